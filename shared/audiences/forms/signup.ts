// A sign-up as it arrives, JSON, form-encoded (what the hosted page posts) or multipart (a
// FormData from an embed), read into one flat shape (`email`, `first_name`, `last_name`,
// `data.<key>`, the honeypot) and checked against the form's own fields.
import { parseMultipart } from '../../formats/multipart';
import { MAX_NAME_LENGTH } from '../contacts/schemas';
import { isValidAddress, normalizeAddress } from '../../formats/address';
import { InvalidRequestError } from '../../errors';
import type { FormItem } from './repository';
import { HONEYPOT_FIELD, MAX_DATA_VALUE_LENGTH, MAX_EMAIL_LENGTH } from './schemas';
import type { Signup } from './subscribe';

/** More inputs than any form has (20 fields and the honeypot): a body past it is not a sign-up. */
const MAX_INPUTS = 60;

export type Flat = Record<string, string>;

export interface FieldError {
  /** The field key (`email`, `data.company`); the message names it as `body.<key>`. */
  key: string;
  message: string;
}

export type Checked =
  | { kind: 'honeypot' }
  | { kind: 'invalid'; errors: FieldError[]; values: Flat }
  | { kind: 'valid'; signup: Signup };

const mediaOf = (contentType: string | undefined): string => (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/** Whether the body comes as a browser form posts it (the answer is then a page, unless JSON is asked for). */
export const isFormPost = (contentType: string | undefined): boolean =>
  ['application/x-www-form-urlencoded', 'multipart/form-data'].includes(mediaOf(contentType));

function put(flat: Flat, key: string, value: string): void {
  if (Object.hasOwn(flat, key)) throw new InvalidRequestError(`body.${key}: given more than once`);
  if (Object.keys(flat).length >= MAX_INPUTS) throw new InvalidRequestError(`body: more than ${MAX_INPUTS} inputs`);
  flat[key] = value;
}

function fromJson(text: string): Flat {
  // JSON.parse copes with any depth; what follows takes only strings two levels down, so neither
  // a deep value nor a number out of range gets further than a 400.
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidRequestError('body: malformed JSON', { cause: error });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new InvalidRequestError('body: a JSON object is required');
  const flat: Flat = Object.create(null) as Flat;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'data') {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new InvalidRequestError('body.data: must be an object of strings');
      for (const [dataKey, dataValue] of Object.entries(v as Record<string, unknown>)) {
        if (typeof dataValue !== 'string') throw new InvalidRequestError(`body.data.${dataKey}: must be a string`);
        put(flat, `data.${dataKey}`, dataValue);
      }
      continue;
    }
    if (typeof v !== 'string') throw new InvalidRequestError(`body.${key}: must be a string`);
    put(flat, key, v);
  }
  return flat;
}

function fromUrlEncoded(text: string): Flat {
  const flat: Flat = Object.create(null) as Flat;
  for (const [key, value] of new URLSearchParams(text)) put(flat, key, value);
  return flat;
}

function fromMultipart(contentType: string | undefined, raw: Buffer): Flat {
  const flat: Flat = Object.create(null) as Flat;
  for (const part of parseMultipart(contentType, raw)) {
    if (part.filename !== undefined) throw new InvalidRequestError(`body.${part.name}: a sign-up takes no files`);
    put(flat, part.name, part.body.toString('utf8'));
  }
  return flat;
}

/** The sign-up's inputs by field key; 400 for a body that is no sign-up at all. */
export function readSubmission(contentType: string | undefined, raw: Buffer): Flat {
  const media = mediaOf(contentType);
  const text = raw.toString('utf8');
  if (media === 'multipart/form-data') return fromMultipart(contentType, raw);
  if (text.trim() === '') throw new InvalidRequestError('body: a sign-up is required (JSON or form-encoded)');
  if (media === 'application/x-www-form-urlencoded') return fromUrlEncoded(text);
  // Anything else is read as JSON, as every JSON route reads it.
  return fromJson(text);
}

/** Where an input's problem is reported: `body.email`, `body.data.company`. */
export const fieldPath = (key: string): string => `body.${key}`;

/** Checks the inputs against the form's fields: each known, each within its bounds, the required ones given. */
export function checkSubmission(form: Pick<FormItem, 'fields'>, flat: Flat): Checked {
  if ((flat[HONEYPOT_FIELD] ?? '').trim() !== '') return { kind: 'honeypot' };
  const errors: FieldError[] = [];
  const known = new Set(form.fields.map((f) => f.key));
  for (const key of Object.keys(flat)) {
    if (key !== HONEYPOT_FIELD && !known.has(key)) errors.push({ key, message: 'not a field of this form' });
  }
  const signup: Signup = { email: '', data: {} };
  for (const field of form.fields) {
    const value = (flat[field.key] ?? '').trim();
    if (value === '') {
      if (field.required) errors.push({ key: field.key, message: `${field.label} is required` });
      continue;
    }
    if (field.key === 'email') {
      const address = normalizeAddress(value);
      if (address.length > MAX_EMAIL_LENGTH || !isValidAddress(address)) errors.push({ key: field.key, message: `${field.label} is not a valid email address` });
      else signup.email = address;
    } else if (field.key === 'first_name' || field.key === 'last_name') {
      if (value.length > MAX_NAME_LENGTH) errors.push({ key: field.key, message: `${field.label} is longer than ${MAX_NAME_LENGTH} characters` });
      else signup[field.key] = value;
    } else if (value.length > MAX_DATA_VALUE_LENGTH) {
      errors.push({ key: field.key, message: `${field.label} is longer than ${MAX_DATA_VALUE_LENGTH} characters` });
    } else {
      signup.data[field.key.slice('data.'.length)] = value;
    }
  }
  if (errors.length > 0) return { kind: 'invalid', errors, values: flat };
  return { kind: 'valid', signup };
}
