// The client's calls of contacts, lists, sign-up forms, contact imports (with their uploads) and
// broadcasts: each a function of the transport's Requester, which client/src/index.ts makes a
// namespace of Postbox.
import { enc, type Requester } from '../transport';
import type { Body, Ok, PathParams, Query } from '../types';

export const contactsCalls = (request: Requester) => ({
  /** Addresses are normalized and unique per account (409 duplicate_contact); `list_ids` must be static lists of the account. */
  create: (body: Body<'/v1/contacts', 'post'>) => request<Ok<'/v1/contacts', 'post'>>({ method: 'POST', path: '/v1/contacts', body }),
  /** Newest first; `email`, `list_id` or a prefix `q`. A filtered page may be short with a next_cursor: walk with `paginate`. */
  list: (query?: Query<'/v1/contacts', 'get'>) => request<Ok<'/v1/contacts', 'get'>>({ method: 'GET', path: '/v1/contacts', query }),
  get: (id: PathParams<'/v1/contacts/{id}', 'get'>['id']) => request<Ok<'/v1/contacts/{id}', 'get'>>({ method: 'GET', path: `/v1/contacts/${enc(id)}` }),
  /** Only the fields given change; `data` is replaced whole. */
  update: (id: PathParams<'/v1/contacts/{id}', 'patch'>['id'], body: Body<'/v1/contacts/{id}', 'patch'>) =>
    request<Ok<'/v1/contacts/{id}', 'patch'>>({ method: 'PATCH', path: `/v1/contacts/${enc(id)}`, body }),
  /** The contact leaves every list. */
  remove: (id: PathParams<'/v1/contacts/{id}', 'delete'>['id']) =>
    request<Ok<'/v1/contacts/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/contacts/${enc(id)}` }),
});

export const listsCalls = (request: Requester) => ({
  /** A static list, or a dynamic one with a filter. */
  create: (body: Body<'/v1/lists', 'post'>) => request<Ok<'/v1/lists', 'post'>>({ method: 'POST', path: '/v1/lists', body }),
  list: (query?: Query<'/v1/lists', 'get'>) => request<Ok<'/v1/lists', 'get'>>({ method: 'GET', path: '/v1/lists', query }),
  get: (id: PathParams<'/v1/lists/{id}', 'get'>['id']) => request<Ok<'/v1/lists/{id}', 'get'>>({ method: 'GET', path: `/v1/lists/${enc(id)}` }),
  /** The name, and a dynamic list's filter. */
  update: (id: PathParams<'/v1/lists/{id}', 'patch'>['id'], body: Body<'/v1/lists/{id}', 'patch'>) =>
    request<Ok<'/v1/lists/{id}', 'patch'>>({ method: 'PATCH', path: `/v1/lists/${enc(id)}`, body }),
  /** The contacts stay. */
  remove: (id: PathParams<'/v1/lists/{id}', 'delete'>['id']) => request<Ok<'/v1/lists/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/lists/${enc(id)}` }),
  /** `{ contact_id }` or `{ email }` (the contact is created when absent); 409 duplicate_member for a member. */
  addMember: (id: PathParams<'/v1/lists/{id}/members', 'post'>['id'], body: Body<'/v1/lists/{id}/members', 'post'>) =>
    request<Ok<'/v1/lists/{id}/members', 'post'>>({ method: 'POST', path: `/v1/lists/${enc(id)}/members`, body }),
  /** A static list's members, or the contacts a dynamic list matches now; walk with `paginate`. */
  members: (id: PathParams<'/v1/lists/{id}/members', 'get'>['id'], query?: Query<'/v1/lists/{id}/members', 'get'>) =>
    request<Ok<'/v1/lists/{id}/members', 'get'>>({ method: 'GET', path: `/v1/lists/${enc(id)}/members`, query }),
  removeMember: (id: PathParams<'/v1/lists/{id}/members/{contact_id}', 'delete'>['id'], contactId: PathParams<'/v1/lists/{id}/members/{contact_id}', 'delete'>['contact_id']) =>
    request<Ok<'/v1/lists/{id}/members/{contact_id}', 'delete'>>({ method: 'DELETE', path: `/v1/lists/${enc(id)}/members/${enc(contactId)}` }),
});

export const formsCalls = (request: Requester) => ({
  /** A sign-up form bound to a static list (404 for a list the account lacks, 422 for a dynamic one). A live key is needed. */
  create: (body: Body<'/v1/forms', 'post'>) => request<Ok<'/v1/forms', 'post'>>({ method: 'POST', path: '/v1/forms', body }),
  list: (query?: Query<'/v1/forms', 'get'>) => request<Ok<'/v1/forms', 'get'>>({ method: 'GET', path: '/v1/forms', query }),
  get: (id: PathParams<'/v1/forms/{id}', 'get'>['id']) => request<Ok<'/v1/forms/{id}', 'get'>>({ method: 'GET', path: `/v1/forms/${enc(id)}` }),
  /** Replaces the whole form: what the body leaves out takes its default. */
  replace: (id: PathParams<'/v1/forms/{id}', 'put'>['id'], body: Body<'/v1/forms/{id}', 'put'>) =>
    request<Ok<'/v1/forms/{id}', 'put'>>({ method: 'PUT', path: `/v1/forms/${enc(id)}`, body }),
  remove: (id: PathParams<'/v1/forms/{id}', 'delete'>['id']) => request<Ok<'/v1/forms/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/forms/${enc(id)}` }),
  /** The public configuration an embed draws the form from (a public route: the key is sent, not needed). */
  config: (id: PathParams<'/v1/forms/{id}/config', 'get'>['id']) =>
    request<Ok<'/v1/forms/{id}/config', 'get'>>({ method: 'GET', path: `/v1/forms/${enc(id)}/config` }),
  /** Signs an address up (public; 202). Safe to repeat: a second sign-up makes no second contact or membership. */
  submit: (id: PathParams<'/v1/forms/{id}/submit', 'post'>['id'], body: Body<'/v1/forms/{id}/submit', 'post'>) =>
    request<Ok<'/v1/forms/{id}/submit', 'post'>>({ method: 'POST', path: `/v1/forms/${enc(id)}/submit`, body, resendable: true }),
  /** The pending sign-up a confirmation link's token names (public; confirms nothing). */
  describeConfirmation: (token: Query<'/v1/forms/confirm', 'get'>['token']) =>
    request<Ok<'/v1/forms/confirm', 'get'>>({ method: 'GET', path: '/v1/forms/confirm', query: { token } satisfies Query<'/v1/forms/confirm', 'get'> }),
  /** Confirms a double opt-in sign-up with its mailed token (public); a used token is 400 invalid_token. */
  confirm: (body: Body<'/v1/forms/confirm', 'post'>) =>
    request<Ok<'/v1/forms/confirm', 'post'>>({ method: 'POST', path: '/v1/forms/confirm', body, resendable: true }),
});

export const uploadsCalls = (request: Requester) => ({
  /**
   * Stores a file (CSV, text or JSON, at most 2 MiB) for a contact import and answers its key.
   * A string is sent as `upload.csv` (text/csv) unless `filename` and `contentType` say otherwise.
   */
  create: (file: string | Blob, options: { filename?: string; contentType?: string } = {}) => {
    const form = new FormData();
    const blob = typeof file === 'string' ? new Blob([file], { type: options.contentType ?? 'text/csv' }) : file;
    form.append('file', blob, options.filename ?? 'upload.csv');
    return request<Ok<'/v1/uploads', 'post'>>({ method: 'POST', path: '/v1/uploads', body: form });
  },
});

export const contactImportsCalls = (request: Requester) => ({
  /** Imports an uploaded CSV in the background (202); follow it with `get`. */
  start: (body: Body<'/v1/contacts/import', 'post'>) => request<Ok<'/v1/contacts/import', 'post'>>({ method: 'POST', path: '/v1/contacts/import', body }),
  /** Status, counts and the first 100 row errors. */
  get: (id: PathParams<'/v1/contacts/imports/{id}', 'get'>['id']) =>
    request<Ok<'/v1/contacts/imports/{id}', 'get'>>({ method: 'GET', path: `/v1/contacts/imports/${enc(id)}` }),
});

export const broadcastsCalls = (request: Requester) => ({
  list: (query?: Query<'/v1/broadcasts', 'get'>) => request<Ok<'/v1/broadcasts', 'get'>>({ method: 'GET', path: '/v1/broadcasts', query }),
  get: (id: PathParams<'/v1/broadcasts/{id}', 'get'>['id']) => request<Ok<'/v1/broadcasts/{id}', 'get'>>({ method: 'GET', path: `/v1/broadcasts/${enc(id)}` }),
  /** A draft, unless `send_now` (sending) or `scheduled_at` (scheduled). */
  create: (body: Body<'/v1/broadcasts', 'post'>) => request<Ok<'/v1/broadcasts', 'post'>>({ method: 'POST', path: '/v1/broadcasts', body }),
  /** Edits a draft; null clears a field. */
  update: (id: PathParams<'/v1/broadcasts/{id}', 'patch'>['id'], body: Body<'/v1/broadcasts/{id}', 'patch'>) =>
    request<Ok<'/v1/broadcasts/{id}', 'patch'>>({ method: 'PATCH', path: `/v1/broadcasts/${enc(id)}`, body }),
  /** A draft or scheduled broadcast starts sending now (202). */
  send: (id: PathParams<'/v1/broadcasts/{id}/send', 'post'>['id']) =>
    request<Ok<'/v1/broadcasts/{id}/send', 'post'>>({ method: 'POST', path: `/v1/broadcasts/${enc(id)}/send` }),
  /** A draft or scheduled broadcast becomes cancelled; 409 otherwise. */
  cancel: (id: PathParams<'/v1/broadcasts/{id}/cancel', 'post'>['id']) =>
    request<Ok<'/v1/broadcasts/{id}/cancel', 'post'>>({ method: 'POST', path: `/v1/broadcasts/${enc(id)}/cancel` }),
});
