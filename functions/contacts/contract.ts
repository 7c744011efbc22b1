import * as z from 'zod';
import {
  addMemberBody,
  contactQuery,
  contactView,
  createContactBody,
  createListBody,
  listView,
  updateContactBody,
  updateListBody,
} from '../../shared/audiences/contacts/schemas';
import { listOf, pageQuery, type ContractsOf } from '../../shared/http/contract';
import type { contacts } from './definition';

const contactId = z.object({ id: z.string().meta({ description: 'The contact id, ctc_…' }) });
const listId = z.object({ id: z.string().meta({ description: 'The list id, lst_…' }) });
const memberIds = z.object({
  id: z.string().meta({ description: 'The list id, lst_…' }),
  contact_id: z.string().meta({ description: 'The contact id, ctc_…' }),
});

const dynamicRefused = { code: 'invalid_request', status: 422 } as const;

const CONTACTS = [
  'A contact is an address with names, a flat `data` object (strings, numbers, booleans; its keys are what a template can use at a broadcast) and `unsubscribed`.',
  'Addresses are trimmed and lower-cased, and unique per account: a second contact with one is 409 `duplicate_contact`.',
  '`list_ids` are the static lists the contact is a member of.',
].join('\n');

const LISTS = [
  'A static list holds the contacts added to it; its `member_count` is exact. A dynamic list holds the contacts its `filter` matches when it is read',
  '(`match` all or any of at most 20 conditions `{field, op, value}`: fields email, first_name, last_name, created_at, data.<key>; ops eq, neq, contains,',
  'starts_with, ends_with, gt, lt, exists, not_exists). Text ops ignore case; gt and lt compare numbers (and created_at as instants); a number never equals a string.',
  "A dynamic list's `member_count` is an estimate as of `counted_at`, recounted when read once older than 5 minutes.",
].join('\n');

const WALK =
  'A walk that filters (a dynamic list, `q`) reads a bounded number of contacts per page, so a page may hold fewer than `limit` contacts, even none, with a `next_cursor`: walk on until it is null.';

const vip = { match: 'all', conditions: [{ field: 'data.plan', op: 'eq', value: 'pro' }, { field: 'email', op: 'ends_with', value: '@example.com' }] };

export const contracts: ContractsOf<typeof contacts> = {
  'POST /v1/contacts': {
    operationId: 'createContact',
    description: `${CONTACTS}\n\n\`list_ids\` must name static lists of the account: 404 \`not_found\` for one that is not, 422 for a dynamic list; nothing is written then.`,
    body: createContactBody,
    responses: { 201: { description: 'The contact', schema: contactView } },
    errors: ['duplicate_contact', 'not_found', dynamicRefused],
    examples: [
      { name: 'a contact', body: { email: 'Ada-{{unique}}@Example.com', first_name: 'Ada', last_name: 'Lovelace', data: { plan: 'pro', seats: 3, beta: true } }, status: 201 },
      { name: 'in a static list', body: { email: 'grace-{{unique}}@example.com', list_ids: ['{{list_id}}'] }, status: 201 },
      { name: 'in a dynamic list', body: { email: 'alan-{{unique}}@example.com', list_ids: ['{{dynamic_list_id}}'] }, status: 422 },
      { name: 'an address taken', body: { email: '{{contact_email}}' }, status: 409 },
      { name: 'nested data', body: { email: 'nested-{{unique}}@example.com', data: { address: { city: 'London' } } }, status: 400 },
      { name: 'no such list', body: { email: 'lost-{{unique}}@example.com', list_ids: ['lst_01jzzzzzzzzzzzzzzzzzzzzzzz'] }, status: 404 },
    ],
  },
  'GET /v1/contacts': {
    operationId: 'listContacts',
    description: `Newest first. \`email\` finds the one contact with the address (one read); \`list_id\` lists a list's members; \`q\` is a prefix of the email, first_name or last_name, regardless of case. ${WALK}`,
    query: contactQuery,
    paginated: true,
    responses: { 200: { description: 'A page of contacts', schema: listOf('contacts', contactView) } },
    errors: ['not_found'],
    examples: [
      { name: 'first page', status: 200, as: 'read' },
      { name: 'by address', query: { email: '{{contact_email}}' }, status: 200 },
      { name: 'a static list', query: { list_id: '{{list_id}}', limit: '10' }, status: 200 },
      { name: 'by prefix', query: { q: 'ada' }, status: 200 },
      { name: 'no such list', query: { list_id: 'lst_01jzzzzzzzzzzzzzzzzzzzzzzz' }, status: 404 },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'GET /v1/contacts/{id}': {
    operationId: 'getContact',
    params: contactId,
    responses: { 200: { description: 'The contact', schema: contactView } },
    errors: ['not_found'],
    examples: [
      { name: 'a contact', params: { id: '{{contact_id}}' }, status: 200, as: 'read' },
      { name: 'no such contact', params: { id: 'ctc_missing' }, status: 404 },
    ],
  },
  'PATCH /v1/contacts/{id}': {
    operationId: 'updateContact',
    description: 'Only the fields sent change; `data`, when sent, replaces the whole object. A new address must be free (409 `duplicate_contact`).',
    params: contactId,
    body: updateContactBody,
    responses: { 200: { description: 'The contact', schema: contactView } },
    errors: ['duplicate_contact', 'not_found', 'conflict'],
    examples: [
      { name: 'unsubscribed', params: { id: '{{contact_id}}' }, body: { unsubscribed: true, data: { plan: 'free' } }, status: 200 },
      { name: 'not an address', params: { id: '{{contact_id}}' }, body: { email: 'nobody' }, status: 400 },
      { name: 'no such contact', params: { id: 'ctc_missing' }, body: { first_name: 'Ada' }, status: 404 },
    ],
  },
  'DELETE /v1/contacts/{id}': {
    operationId: 'deleteContact',
    description: 'The contact leaves every list it is a member of, and its address is free again.',
    params: contactId,
    responses: { 204: { description: 'Deleted' } },
    errors: ['not_found', 'conflict'],
    examples: [
      { name: 'delete', params: { id: '{{contact_id}}' }, status: 204 },
      { name: 'no such contact', params: { id: 'ctc_missing' }, status: 404 },
    ],
  },
  'POST /v1/lists': {
    operationId: 'createList',
    description: LISTS,
    body: createListBody,
    responses: { 201: { description: 'The list', schema: listView } },
    errors: [],
    examples: [
      { name: 'static', body: { name: 'Newsletter', type: 'static' }, status: 201 },
      { name: 'dynamic', body: { name: 'Pro customers', type: 'dynamic', filter: vip }, status: 201 },
      { name: 'a bad condition', body: { name: 'Odd', type: 'dynamic', filter: { match: 'all', conditions: [{ field: 'email', op: 'gt', value: 'a' }] } }, status: 400 },
      { name: 'a filter on a static list', body: { name: 'Odd', type: 'static', filter: vip }, status: 400 },
      { name: 'no type', body: { name: 'Newsletter' }, status: 400 },
    ],
  },
  'GET /v1/lists': {
    operationId: 'listLists',
    description: 'Newest first, with member counts (an estimate for dynamic lists; a page recounts at most two stale estimates).',
    query: pageQuery,
    paginated: true,
    responses: { 200: { description: 'A page of lists', schema: listOf('lists', listView) } },
    errors: [],
    examples: [
      { name: 'first page', status: 200, as: 'read' },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'GET /v1/lists/{id}': {
    operationId: 'getList',
    params: listId,
    responses: { 200: { description: 'The list', schema: listView } },
    errors: ['not_found'],
    examples: [
      { name: 'a static list', params: { id: '{{list_id}}' }, status: 200, as: 'read' },
      { name: 'a dynamic list', params: { id: '{{dynamic_list_id}}' }, status: 200 },
      { name: 'no such list', params: { id: 'lst_missing' }, status: 404 },
    ],
  },
  'PATCH /v1/lists/{id}': {
    operationId: 'updateList',
    description: "Only the fields sent change: the name, and a dynamic list's filter (422 on a static list). A new filter is counted at once.",
    params: listId,
    body: updateListBody,
    responses: { 200: { description: 'The list', schema: listView } },
    errors: ['not_found', dynamicRefused],
    examples: [
      { name: 'renamed', params: { id: '{{list_id}}' }, body: { name: 'Weekly newsletter' }, status: 200 },
      { name: 'a new filter', params: { id: '{{dynamic_list_id}}' }, body: { filter: { match: 'any', conditions: [{ field: 'data.seats', op: 'gt', value: 10 }] } }, status: 200 },
      { name: 'a filter on a static list', params: { id: '{{list_id}}' }, body: { filter: vip }, status: 422 },
      { name: 'no such list', params: { id: 'lst_missing' }, body: { name: 'Gone' }, status: 404 },
    ],
  },
  'DELETE /v1/lists/{id}': {
    operationId: 'deleteList',
    description:
      'The contacts stay; the list leaves their `list_ids`. The list answers 404 at once; a list of more than 1,000 members leaves the rest of its removal to a background job, and until it is done the contacts it has not reached yet still show the list in `list_ids`.',
    params: listId,
    responses: { 204: { description: 'Deleted' } },
    errors: ['not_found'],
    examples: [
      { name: 'delete', params: { id: '{{list_id}}' }, status: 204 },
      { name: 'no such list', params: { id: 'lst_missing' }, status: 404 },
    ],
  },
  'POST /v1/lists/{id}/members': {
    operationId: 'addListMember',
    description: 'Adds a contact to a static list, by `contact_id`, or by `email` (the contact is created when the account has none with the address). 409 `duplicate_member` when it is a member already; 422 on a dynamic list.',
    params: listId,
    body: addMemberBody,
    responses: { 201: { description: 'The contact, now a member', schema: contactView } },
    errors: ['not_found', 'duplicate_member', 'conflict', dynamicRefused],
    examples: [
      { name: 'by id', params: { id: '{{list_id}}' }, body: { contact_id: '{{contact_id}}' }, status: 201 },
      { name: 'by address, a new contact', params: { id: '{{list_id}}' }, body: { email: 'new-{{unique}}@example.com' }, status: 201 },
      { name: 'a member already', params: { id: '{{list_id}}' }, body: { contact_id: '{{member_id}}' }, status: 409 },
      { name: 'a dynamic list', params: { id: '{{dynamic_list_id}}' }, body: { contact_id: '{{contact_id}}' }, status: 422 },
      { name: 'both id and address', params: { id: '{{list_id}}' }, body: { contact_id: '{{contact_id}}', email: 'x-{{unique}}@example.com' }, status: 400 },
      { name: 'no such contact', params: { id: '{{list_id}}' }, body: { contact_id: 'ctc_missing' }, status: 404 },
    ],
  },
  'GET /v1/lists/{id}/members': {
    operationId: 'listListMembers',
    description: `A static list's members, or the contacts a dynamic list's filter matches now, newest first. ${WALK}`,
    params: listId,
    query: pageQuery,
    paginated: true,
    responses: { 200: { description: 'A page of contacts', schema: listOf('contacts', contactView) } },
    errors: ['not_found'],
    examples: [
      { name: 'a static list', params: { id: '{{list_id}}' }, status: 200, as: 'read' },
      { name: 'a dynamic list', params: { id: '{{dynamic_list_id}}' }, query: { limit: '10' }, status: 200 },
      { name: 'no such list', params: { id: 'lst_missing' }, status: 404 },
    ],
  },
  'DELETE /v1/lists/{id}/members/{contact_id}': {
    operationId: 'removeListMember',
    description: 'The contact stays; it leaves the list. 404 when it is not a member.',
    params: memberIds,
    responses: { 204: { description: 'Removed' } },
    errors: ['not_found', 'conflict', dynamicRefused],
    examples: [
      { name: 'remove', params: { id: '{{list_id}}', contact_id: '{{member_id}}' }, status: 204 },
      { name: 'not a member', params: { id: '{{list_id}}', contact_id: '{{contact_id}}' }, status: 404 },
    ],
  },
};
