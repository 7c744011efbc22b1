// Wire shapes of the hosted sign-up forms: the form an account manages, what an embed reads, what
// a sign-up sends and what the confirmation link answers (zod; the TypeScript types are inferred).
import * as z from 'zod';
import { DATA_KEY, MAX_NAME_LENGTH } from '../contacts/schemas';

export const MAX_FORM_FIELDS = 20;
export const MAX_LABEL_LENGTH = 100;
/** Characters of one data value a sign-up may send (names keep the contacts' own 200). */
export const MAX_DATA_VALUE_LENGTH = 500;
export const MAX_EMAIL_LENGTH = 320;
/** The honeypot input: hidden from people and screen readers, so only a bot fills it. */
export const HONEYPOT_FIELD = 'website';

const timestamp = z.string().meta({ description: 'RFC 3339 UTC timestamp with milliseconds' });

/** email, first_name, last_name or data.<key> (a contact data key). */
export function isFieldKey(key: string): boolean {
  return key === 'email' || key === 'first_name' || key === 'last_name' || (key.startsWith('data.') && DATA_KEY.test(key.slice(5)));
}

export const formField = z
  .object({
    key: z
      .string()
      .max(69)
      .refine(isFieldKey, 'email, first_name, last_name or data.<key> (a key is 1 to 64 letters, digits, _ or -, starting with a letter or _)')
      .meta({ description: 'What the input fills: `email`, `first_name`, `last_name` or `data.<key>` of the contact' }),
    label: z.string().trim().min(1).max(MAX_LABEL_LENGTH).meta({ description: 'The visible label of the input' }),
    required: z.boolean().optional().meta({ description: 'Default false; always true for email' }),
  })
  .strict();

export interface FormField {
  key: string;
  label: string;
  required: boolean;
}

/** Only https, no credentials: where a browser is sent after a sign-up from the hosted page. */
function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.username === '' && url.password === '' && url.hostname !== '';
  } catch {
    return false;
  }
}

/** A BCP 47 language tag, as the page's `lang` attribute takes it (en, de-CH, zh-Hant-TW). */
const LANGUAGE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$/;

const DEFAULT_EMAIL_FIELD: FormField = { key: 'email', label: 'Email', required: true };

/** The fields as stored: email always (first when the request left it out), each key once. */
const fields = z
  .array(formField)
  .min(1)
  .max(MAX_FORM_FIELDS)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((field, i) => {
      if (seen.has(field.key)) ctx.addIssue({ code: 'custom', path: [i, 'key'], message: `${field.key} is listed twice` });
      seen.add(field.key);
      if (field.key === 'email' && field.required === false) ctx.addIssue({ code: 'custom', path: [i, 'required'], message: 'email is always required' });
    });
    if (!seen.has('email') && list.length >= MAX_FORM_FIELDS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_FORM_FIELDS} fields, email included` });
  })
  .transform((list): FormField[] => {
    const normalized = list.map((f) => ({ key: f.key, label: f.label, required: f.key === 'email' ? true : (f.required ?? false) }));
    return normalized.some((f) => f.key === 'email') ? normalized : [DEFAULT_EMAIL_FIELD, ...normalized];
  });

/** POST /v1/forms and PUT /v1/forms/{id} (a PUT replaces the whole form: what it omits takes its default). */
export const formBody = z
  .object({
    name: z.string().trim().min(1).max(MAX_NAME_LENGTH).meta({ description: 'Also the page heading unless `title` is given' }),
    list_id: z.string().min(1).max(64).meta({ description: 'The static list a sign-up joins (lst_…)' }),
    fields: fields.optional().meta({ description: `At most ${MAX_FORM_FIELDS}, in order; email is always there and required` }),
    double_opt_in: z.boolean().optional().meta({ description: 'Default false: a sign-up joins only once its mailed link is confirmed' }),
    redirect_url: z
      .string()
      .max(2000)
      .refine(isHttpsUrl, 'must be an https URL without credentials')
      .nullable()
      .optional()
      .meta({ description: 'Where the hosted page redirects after a sign-up (303); default null' }),
    title: z.string().trim().min(1).max(MAX_NAME_LENGTH).nullable().optional().meta({ description: 'The heading of the hosted page; default the name' }),
    description: z.string().trim().min(1).max(1000).nullable().optional().meta({ description: 'A paragraph under the heading; default none' }),
    submit_label: z.string().trim().min(1).max(50).optional().meta({ description: 'The button; default "Subscribe"' }),
    success_message: z.string().trim().min(1).max(500).nullable().optional().meta({ description: 'Shown after a sign-up; default null (a standard message)' }),
    language: z.string().regex(LANGUAGE, 'a language tag such as en or de-CH').optional().meta({ description: 'The page\'s `lang`; default "en"' }),
  })
  .strict();
export type FormBody = z.infer<typeof formBody>;

const fieldView = z
  .object({
    key: z.string().meta({ description: '`email`, `first_name`, `last_name` or `data.<key>`' }),
    label: z.string(),
    required: z.boolean(),
  })
  .strict();

export const formView = z
  .object({
    id: z.string().meta({ description: 'frm_…' }),
    name: z.string(),
    list_id: z.string(),
    fields: z.array(fieldView),
    double_opt_in: z.boolean(),
    redirect_url: z.string().nullable(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    submit_label: z.string(),
    success_message: z.string().nullable(),
    language: z.string(),
    page_url: z.string().meta({ description: 'The hosted page (public)' }),
    config_url: z.string().meta({ description: 'What an embed reads (public JSON)' }),
    submit_url: z.string().meta({ description: 'Where a sign-up is posted (public)' }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .strict();
export type FormView = z.infer<typeof formView>;

/** GET /v1/forms/{id}/config: what an embed needs to draw the form and post it; never the list. */
export const formConfigView = z
  .object({
    id: z.string(),
    title: z.string().meta({ description: 'The heading: the title, or the name' }),
    description: z.string().nullable(),
    language: z.string(),
    fields: z.array(fieldView),
    submit_label: z.string(),
    success_message: z.string().meta({ description: 'What to show after a 202' }),
    double_opt_in: z.boolean(),
    honeypot_field: z.literal(HONEYPOT_FIELD).meta({ description: 'Render an input of this name hidden from people and screen readers and send it empty; a sign-up with it filled is answered as a success and stored nowhere' }),
    submit_url: z.string(),
    page_url: z.string(),
  })
  .strict();
export type FormConfigView = z.infer<typeof formConfigView>;

/**
 * POST /v1/forms/{id}/submit as JSON. The form's fields decide which of these it takes and which
 * are required; the same names come form-encoded (`data.<key>` for a data field).
 */
export const submitBody = z
  .object({
    email: z.string().meta({ description: 'The address to sign up' }),
    first_name: z.string().optional(),
    last_name: z.string().optional(),
    data: z.record(z.string(), z.string()).optional().meta({ description: 'The form\'s data fields by key (without `data.`), as strings' }),
    [HONEYPOT_FIELD]: z.string().optional().meta({ description: 'The honeypot: send it empty or not at all' }),
  })
  .strict();

/** The same sign-up as `application/x-www-form-urlencoded` (what the hosted page posts). */
export const submitForm = z
  .object({
    email: z.string(),
    first_name: z.string().optional(),
    last_name: z.string().optional(),
    [HONEYPOT_FIELD]: z.string().optional(),
  })
  .catchall(z.string().meta({ description: '`data.<key>` for each data field of the form' }));

export const submitResult = z
  .object({
    status: z.enum(['subscribed', 'pending_confirmation']).meta({
      description: '`subscribed`: the address is on the list; `pending_confirmation`: a confirmation link is mailed (double opt-in) and the address joins when it is followed',
    }),
    message: z.string().meta({ description: 'The form\'s success message' }),
  })
  .strict();
export type SubmitResult = z.infer<typeof submitResult>;

export const confirmBody = z.object({ token: z.string().max(200).meta({ description: 'The token of the mailed confirmation link' }) }).strict();

export const confirmQuery = z.object({ token: z.string().meta({ description: 'The token of the mailed confirmation link' }) }).strict();

/** GET /v1/forms/confirm as JSON: the sign-up the link would confirm. */
export const pendingSignupView = z
  .object({
    status: z.literal('pending_confirmation'),
    form_id: z.string(),
    email: z.string(),
    expires_at: timestamp,
  })
  .strict();
export type PendingSignupView = z.infer<typeof pendingSignupView>;

export const confirmedView = z
  .object({
    status: z.literal('confirmed'),
    form_id: z.string(),
    list_id: z.string(),
    email: z.string(),
  })
  .strict();
export type ConfirmedView = z.infer<typeof confirmedView>;
