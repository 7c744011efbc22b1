// Wire shapes of the contacts and lists routes, requests and answers (zod; the TypeScript types
// are inferred from them). Addresses are normalized here (trim, lower-case), so the use cases only
// ever see the normalized form.
import * as z from 'zod';
import { isValidAddress, normalizeAddress } from '../../formats/address';

export const MAX_NAME_LENGTH = 200;
export const MAX_DATA_KEYS = 50;
/** Bytes of `data` serialized as JSON. */
export const MAX_DATA_BYTES = 8 * 1024;
export const MAX_LIST_IDS = 20;
export const MAX_CONDITIONS = 20;
export const MAX_VALUE_LENGTH = 1000;

const timestamp = z.string().meta({ description: 'RFC 3339 UTC timestamp with milliseconds' });

/** A data key: what a template's `{{ name }}` can refer to at a broadcast, and what `data.<key>` names in a filter. */
export const DATA_KEY = /^(?!__proto__$)[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

export const email = z
  .string()
  .max(320)
  .transform(normalizeAddress)
  .refine(isValidAddress, 'not a valid email address')
  .meta({ description: 'Trimmed and lower-cased before it is stored or compared' });

const personName = z.string().trim().max(MAX_NAME_LENGTH).nullable();

/** A number DynamoDB can store: its range is 1E-130 to 9.9E+125 in magnitude. */
const storableNumber = z
  .number()
  .refine((n) => n === 0 || (Math.abs(n) >= 1e-128 && Math.abs(n) <= 1e125), 'must be 0 or between 1e-128 and 1e125 in magnitude');

const dataValue = z.union([z.string().max(MAX_DATA_BYTES), storableNumber, z.boolean()]);

export const contactData = z
  .record(z.string(), z.unknown())
  .superRefine((data, ctx) => {
    const entries = Object.entries(data);
    if (entries.length > MAX_DATA_KEYS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_DATA_KEYS} keys` });
    for (const [key, value] of entries) {
      if (!DATA_KEY.test(key)) ctx.addIssue({ code: 'custom', path: [key], message: 'a key is 1 to 64 letters, digits, _ or -, starting with a letter or _' });
      else if (!dataValue.safeParse(value).success) ctx.addIssue({ code: 'custom', path: [key], message: 'must be a string, a number or a boolean' });
    }
    if (Buffer.byteLength(JSON.stringify(data), 'utf8') > MAX_DATA_BYTES) ctx.addIssue({ code: 'custom', message: `at most ${MAX_DATA_BYTES} bytes as JSON` });
  })
  .transform((data) => data as Record<string, string | number | boolean>)
  .meta({
    description: `A flat object of strings, numbers and booleans: at most ${MAX_DATA_KEYS} keys of 1 to 64 letters, digits, _ or - (starting with a letter or _), ${MAX_DATA_BYTES} bytes as JSON`,
  });

const listId = z.string().min(1).max(64);

export const createContactBody = z
  .object({
    email,
    first_name: personName.optional(),
    last_name: personName.optional(),
    data: contactData.optional(),
    unsubscribed: z.boolean().optional().meta({ description: 'Default false' }),
    list_ids: z
      .array(listId)
      .max(MAX_LIST_IDS)
      .optional()
      .meta({ description: `Static lists of the account to add the contact to (at most ${MAX_LIST_IDS}); 404 for a list that does not exist, 422 for a dynamic list` }),
  })
  .strict();

export type CreateContactBody = z.infer<typeof createContactBody>;

/** Partial: only the fields sent change; `data`, when sent, replaces the whole object. */
export const updateContactBody = z
  .object({
    email: email.optional(),
    first_name: personName.optional(),
    last_name: personName.optional(),
    data: contactData.optional().meta({ description: 'Replaces the whole data object' }),
    unsubscribed: z.boolean().optional(),
  })
  .strict();

export type UpdateContactBody = z.infer<typeof updateContactBody>;

export const contactQuery = z
  .object({
    limit: z.string().optional().meta({ description: 'Items per page, 1 to 100 (default 50; larger values are capped, others ignored)' }),
    cursor: z.string().optional().meta({ description: 'The next_cursor of the page before; bound to the account, the list and its filters' }),
    email: z.string().max(320).optional().meta({ description: 'The contact with this address (normalized), if any' }),
    list_id: z.string().max(64).optional().meta({ description: 'Only the members of this list (static or dynamic)' }),
    q: z.string().min(1).max(200).optional().meta({ description: 'A prefix of the email, first_name or last_name, regardless of case' }),
  })
  .strict();

export const contactView = z
  .object({
    id: z.string().meta({ description: 'The contact id, ctc_…' }),
    email: z.string(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    unsubscribed: z.boolean(),
    list_ids: z.array(z.string()).meta({ description: 'The static lists the contact is a member of' }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .strict();

export type ContactView = z.infer<typeof contactView>;

// --- Dynamic list filters -------------------------------------------------------------------

export const filterOps = ['eq', 'neq', 'contains', 'starts_with', 'ends_with', 'gt', 'lt', 'exists', 'not_exists'] as const;
export type FilterOp = (typeof filterOps)[number];

const FIELD = /^(email|first_name|last_name|created_at|data\.[A-Za-z_][A-Za-z0-9_-]{0,63})$/;

export const filterCondition = z
  .object({
    field: z.string().regex(FIELD, 'must be email, first_name, last_name, created_at or data.<key>').meta({ description: 'email, first_name, last_name, created_at or data.<key>' }),
    op: z.enum(filterOps),
    value: z.union([z.string().max(MAX_VALUE_LENGTH), storableNumber, z.boolean()]).optional().meta({ description: 'Required except for exists and not_exists' }),
  })
  .strict()
  .superRefine((c, ctx) => checkCondition(c, ctx));

function checkCondition(c: { field: string; op: FilterOp; value?: string | number | boolean }, ctx: z.RefinementCtx): void {
  const issue = (message: string, path: string): void => void ctx.addIssue({ code: 'custom', path: [path], message });
  if (c.op === 'exists' || c.op === 'not_exists') {
    if (c.value !== undefined) issue(`${c.op} takes no value`, 'value');
    return;
  }
  if (c.value === undefined) return issue(`${c.op} needs a value`, 'value');
  const isText = c.field === 'email' || c.field === 'first_name' || c.field === 'last_name';
  if (c.field === 'created_at') {
    if (c.op === 'contains' || c.op === 'starts_with' || c.op === 'ends_with') return issue('created_at takes eq, neq, gt, lt, exists or not_exists', 'op');
    if (typeof c.value !== 'string' || Number.isNaN(Date.parse(c.value))) return issue('created_at compares with an RFC 3339 timestamp', 'value');
    return;
  }
  if (c.op === 'contains' || c.op === 'starts_with' || c.op === 'ends_with') {
    if (typeof c.value !== 'string' || c.value === '') issue(`${c.op} needs a non-empty string`, 'value');
    return;
  }
  if (c.op === 'gt' || c.op === 'lt') {
    if (isText) return issue(`${c.field} takes eq, neq, contains, starts_with, ends_with, exists or not_exists`, 'op');
    if (typeof c.value !== 'number') issue(`${c.op} needs a number`, 'value');
    return;
  }
  if (isText && typeof c.value !== 'string') issue(`${c.field} compares with a string`, 'value');
}

export type FilterCondition = z.infer<typeof filterCondition>;

export const listFilter = z
  .object({
    match: z.enum(['all', 'any']).meta({ description: 'all: every condition holds; any: at least one does' }),
    conditions: z.array(filterCondition).min(1, 'needs at least one condition').max(MAX_CONDITIONS),
  })
  .strict()
  .meta({ description: `Which contacts a dynamic list holds: at most ${MAX_CONDITIONS} conditions, matched against each contact when the list is read` });

export type ListFilter = z.infer<typeof listFilter>;

const listName = z.string().trim().min(1, 'must not be empty').max(MAX_NAME_LENGTH);

export const createListBody = z
  .object({
    name: listName,
    type: z.enum(['static', 'dynamic']).meta({ description: 'static: members are added and removed; dynamic: the contacts its filter matches' }),
    filter: listFilter.optional().meta({ description: 'Required for a dynamic list; a static list has none' }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.type === 'dynamic' && !body.filter) ctx.addIssue({ code: 'custom', path: ['filter'], message: 'a dynamic list needs a filter' });
    if (body.type === 'static' && body.filter) ctx.addIssue({ code: 'custom', path: ['filter'], message: 'only a dynamic list has a filter' });
  });

export type CreateListBody = z.infer<typeof createListBody>;

export const updateListBody = z
  .object({
    name: listName.optional(),
    filter: listFilter.optional().meta({ description: 'Dynamic lists only (422 on a static list)' }),
  })
  .strict();

export type UpdateListBody = z.infer<typeof updateListBody>;

export const listView = z
  .object({
    id: z.string().meta({ description: 'The list id, lst_…' }),
    name: z.string(),
    type: z.enum(['static', 'dynamic']),
    filter: listFilter.nullable().meta({ description: 'null for a static list' }),
    member_count: z.number().int().meta({ description: 'Exact for a static list; for a dynamic list an estimate as of counted_at' }),
    counted_at: timestamp.nullable().meta({ description: 'When a dynamic list was last counted; null for a static list' }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .strict();

export type ListView = z.infer<typeof listView>;

export const addMemberBody = z
  .object({
    contact_id: z.string().min(1).max(64).optional(),
    email: email.optional().meta({ description: 'The contact with this address; created when there is none' }),
  })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.contact_id === undefined) === (body.email === undefined)) ctx.addIssue({ code: 'custom', path: ['contact_id'], message: 'give exactly one of contact_id and email' });
  });

export type AddMemberBody = z.infer<typeof addMemberBody>;
