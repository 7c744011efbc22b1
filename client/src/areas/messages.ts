// The client's calls of the message log, suppressions, sandbox test recipients and the unsubscribe
// link: each a function of the transport's Requester, which client/src/index.ts makes a namespace
// of Postbox.
import { enc, type Requester } from '../transport';
import type { Body, Ok, PageOf, PathParams, Query } from '../types';

export const messagesCalls = (request: Requester) => ({
  /** Newest first; walk every page with `paginate(postbox.messages.list, query)`. */
  list: (query?: Omit<Query<'/v1/messages', 'get'>, 'idempotency_key'>) =>
    request<PageOf<Ok<'/v1/messages', 'get'>>>({ method: 'GET', path: '/v1/messages', query }),
  /** A message with its event timeline. */
  get: (id: PathParams<'/v1/messages/{id}', 'get'>['id']) =>
    request<Ok<'/v1/messages/{id}', 'get'>>({ method: 'GET', path: `/v1/messages/${enc(id)}` }),
  /** The message a send with this idempotency_key made, with its timeline. */
  getByIdempotencyKey: (idempotencyKey: NonNullable<Query<'/v1/messages', 'get'>['idempotency_key']>) =>
    request<Exclude<Ok<'/v1/messages', 'get'>, PageOf<Ok<'/v1/messages', 'get'>>>>({
      method: 'GET',
      path: '/v1/messages',
      query: { idempotency_key: idempotencyKey } satisfies Query<'/v1/messages', 'get'>,
    }),
  /** Cancels a scheduled message before it is sent. */
  cancel: (id: PathParams<'/v1/messages/{id}/cancel', 'post'>['id']) =>
    request<Ok<'/v1/messages/{id}/cancel', 'post'>>({ method: 'POST', path: `/v1/messages/${enc(id)}/cancel`, resendable: true }),
});

export const suppressionsCalls = (request: Requester) => ({
  list: (query?: Query<'/v1/suppressions', 'get'>) => request<Ok<'/v1/suppressions', 'get'>>({ method: 'GET', path: '/v1/suppressions', query }),
  add: (body: Body<'/v1/suppressions', 'post'>) =>
    request<Ok<'/v1/suppressions', 'post'>>({ method: 'POST', path: '/v1/suppressions', body, resendable: true }),
  remove: (query: Query<'/v1/suppressions', 'delete'>) =>
    request<Ok<'/v1/suppressions', 'delete'>>({ method: 'DELETE', path: '/v1/suppressions', query }),
  /** Upserts up to 10000 entries: a repeat is safe. */
  import: (body: Body<'/v1/suppressions/import', 'post'>) =>
    request<Ok<'/v1/suppressions/import', 'post'>>({ method: 'POST', path: '/v1/suppressions/import', body, resendable: true }),
});

export const testRecipientsCalls = (request: Requester) => ({
  list: (query?: Query<'/v1/test-recipients', 'get'>) =>
    request<Ok<'/v1/test-recipients', 'get'>>({ method: 'GET', path: '/v1/test-recipients', query }),
  /** Registers a sandbox test recipient (at most 3); it gets a one-time link to confirm. */
  add: (body: Body<'/v1/test-recipients', 'post'>) => request<Ok<'/v1/test-recipients', 'post'>>({ method: 'POST', path: '/v1/test-recipients', body }),
  remove: (id: PathParams<'/v1/test-recipients/{id}', 'delete'>['id']) =>
    request<Ok<'/v1/test-recipients/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/test-recipients/${enc(id)}` }),
  /** What the one-time link in the confirmation mail does (a public route: the key is sent, not needed). */
  verify: (token: Query<'/v1/test-recipients/verify', 'get'>['token']) =>
    request<Ok<'/v1/test-recipients/verify', 'get'>>({
      method: 'GET',
      path: '/v1/test-recipients/verify',
      query: { token } satisfies Query<'/v1/test-recipients/verify', 'get'>,
    }),
});

export const unsubscribeCalls = (request: Requester) => ({
  /** What the link would do; changes nothing. */
  show: (token: PathParams<'/v1/unsubscribe/{token}', 'get'>['token']) =>
    request<Ok<'/v1/unsubscribe/{token}', 'get'>>({ method: 'GET', path: `/v1/unsubscribe/${enc(token)}` }),
  /** Unsubscribes the message's recipient on its channel; a repeat changes nothing. */
  confirm: (token: PathParams<'/v1/unsubscribe/{token}', 'post'>['token']) =>
    request<Ok<'/v1/unsubscribe/{token}', 'post'>>({ method: 'POST', path: `/v1/unsubscribe/${enc(token)}`, resendable: true }),
});
