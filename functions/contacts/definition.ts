// The contacts function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ, SEND_LIVE } from '../access';

export const contacts = defineFunction({
  // Contacts and their lists (static and dynamic), with memberships.
  name: 'contacts',
  entry: 'functions/contacts/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/contacts', access: SEND_LIVE, summary: 'Create a contact (addresses unique per account), optionally in static lists' },
    { method: 'GET', path: '/v1/contacts', access: SEND_OR_READ, summary: 'List contacts, newest first; by email, list_id or a prefix q' },
    { method: 'GET', path: '/v1/contacts/{id}', access: SEND_OR_READ, summary: 'A contact' },
    { method: 'PATCH', path: '/v1/contacts/{id}', access: SEND_LIVE, summary: 'Change a contact; only the fields sent change' },
    { method: 'DELETE', path: '/v1/contacts/{id}', access: SEND_LIVE, summary: 'Delete a contact and its memberships' },
    { method: 'POST', path: '/v1/lists', access: SEND_LIVE, summary: 'Create a list: static, or dynamic with a filter' },
    { method: 'GET', path: '/v1/lists', access: SEND_OR_READ, summary: 'List contact lists with their member counts, newest first' },
    { method: 'GET', path: '/v1/lists/{id}', access: SEND_OR_READ, summary: 'A contact list with its member count' },
    { method: 'PATCH', path: '/v1/lists/{id}', access: SEND_LIVE, summary: "Rename a list or change a dynamic list's filter" },
    { method: 'DELETE', path: '/v1/lists/{id}', access: SEND_LIVE, summary: 'Delete a list; its contacts stay' },
    { method: 'POST', path: '/v1/lists/{id}/members', access: SEND_LIVE, summary: 'Add a contact to a static list, by id or by address' },
    { method: 'GET', path: '/v1/lists/{id}/members', access: SEND_OR_READ, summary: "A list's members; a dynamic list's are the contacts its filter matches now" },
    { method: 'DELETE', path: '/v1/lists/{id}/members/{contact_id}', access: SEND_LIVE, summary: 'Take a contact out of a static list' },
  ],
  // The imports queue: a list delete longer than one request's share leaves the rest to a job there.
  needs: { table: 'readwrite', secrets: ['cursor-signing-key'], sendTo: ['imports'] },
  memoryMb: 512,
  timeoutSeconds: 29,
});
