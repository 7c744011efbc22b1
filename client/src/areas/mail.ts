// The client's calls of received mail, inbound routes and the Mail app: each a function of the
// transport's Requester, which client/src/index.ts makes a namespace of Postbox.
import { enc, type Requester } from '../transport';
import type { Body, Ok, PathParams, Query } from '../types';

export const inboundCalls = (request: Requester) => ({
  /** Newest first, without the bodies. */
  list: (query?: Query<'/v1/inbound', 'get'>) => request<Ok<'/v1/inbound', 'get'>>({ method: 'GET', path: '/v1/inbound', query }),
  /** The full form: text, html (as received), headers, rfc_message_id. */
  get: (id: PathParams<'/v1/inbound/{id}', 'get'>['id']) => request<Ok<'/v1/inbound/{id}', 'get'>>({ method: 'GET', path: `/v1/inbound/${enc(id)}` }),
  /** The message as received, read as text (an 8-bit message loses its non-UTF-8 bytes: fetch the route itself for the bytes). */
  raw: (id: PathParams<'/v1/inbound/{id}/raw', 'get'>['id']) => request<string>({ method: 'GET', path: `/v1/inbound/${enc(id)}/raw` }),
  /** Turns inbound on or off for a domain (its id or name); answers the MX record to publish. 422 domain_not_ready unless verified. */
  setDomainInbound: (domain: PathParams<'/v1/domains/{domain}/inbound', 'post'>['domain'], body: Body<'/v1/domains/{domain}/inbound', 'post'>) =>
    request<Ok<'/v1/domains/{domain}/inbound', 'post'>>({ method: 'POST', path: `/v1/domains/${enc(domain)}/inbound`, body }),
  routes: {
    /** The route with its signing secret, shown once. */
    create: (body: Body<'/v1/inbound/routes', 'post'>) => request<Ok<'/v1/inbound/routes', 'post'>>({ method: 'POST', path: '/v1/inbound/routes', body }),
    list: () => request<Ok<'/v1/inbound/routes', 'get'>>({ method: 'GET', path: '/v1/inbound/routes' }),
    get: (id: PathParams<'/v1/inbound/routes/{id}', 'get'>['id']) =>
      request<Ok<'/v1/inbound/routes/{id}', 'get'>>({ method: 'GET', path: `/v1/inbound/routes/${enc(id)}` }),
    /** Only the fields sent change. */
    update: (id: PathParams<'/v1/inbound/routes/{id}', 'put'>['id'], body: Body<'/v1/inbound/routes/{id}', 'put'>) =>
      request<Ok<'/v1/inbound/routes/{id}', 'put'>>({ method: 'PUT', path: `/v1/inbound/routes/${enc(id)}`, body }),
    remove: (id: PathParams<'/v1/inbound/routes/{id}', 'delete'>['id']) =>
      request<Ok<'/v1/inbound/routes/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/inbound/routes/${enc(id)}` }),
  },
});

export const mailCalls = (request: Requester) => ({
  inboxes: {
    list: () => request<Ok<'/v1/mail/inboxes', 'get'>>({ method: 'GET', path: '/v1/mail/inboxes' }),
    /** 422 domain_not_ready unless the domain is verified with inbound enabled; 409 conflict for an address that has an inbox. */
    create: (body: Body<'/v1/mail/inboxes', 'post'>) => request<Ok<'/v1/mail/inboxes', 'post'>>({ method: 'POST', path: '/v1/mail/inboxes', body }),
    /** Its mail stays, detached from the inbox. */
    remove: (id: PathParams<'/v1/mail/inboxes/{id}', 'delete'>['id']) =>
      request<Ok<'/v1/mail/inboxes/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/mail/inboxes/${enc(id)}` }),
  },
  threads: {
    /** One folder (default inbox), newest message first; `inbox_id` or `inbox` narrows it to an address. */
    list: (query?: Query<'/v1/mail/threads', 'get'>) => request<Ok<'/v1/mail/threads', 'get'>>({ method: 'GET', path: '/v1/mail/threads', query }),
    /** The thread with its messages, oldest first; marks it read. */
    get: (id: PathParams<'/v1/mail/threads/{id}', 'get'>['id']) => request<Ok<'/v1/mail/threads/{id}', 'get'>>({ method: 'GET', path: `/v1/mail/threads/${enc(id)}` }),
    setRead: (id: PathParams<'/v1/mail/threads/{id}/read', 'put'>['id'], body: Body<'/v1/mail/threads/{id}/read', 'put'> = {}) =>
      request<Ok<'/v1/mail/threads/{id}/read', 'put'>>({ method: 'PUT', path: `/v1/mail/threads/${enc(id)}/read`, body }),
    setStarred: (id: PathParams<'/v1/mail/threads/{id}/star', 'put'>['id'], body: Body<'/v1/mail/threads/{id}/star', 'put'> = {}) =>
      request<Ok<'/v1/mail/threads/{id}/star', 'put'>>({ method: 'PUT', path: `/v1/mail/threads/${enc(id)}/star`, body }),
    /** inbox, archive, trash or spam. */
    move: (id: PathParams<'/v1/mail/threads/{id}/folder', 'put'>['id'], body: Body<'/v1/mail/threads/{id}/folder', 'put'>) =>
      request<Ok<'/v1/mail/threads/{id}/folder', 'put'>>({ method: 'PUT', path: `/v1/mail/threads/${enc(id)}/folder`, body }),
    /** Label names, without regard to case; unknown names are ignored. */
    setLabels: (id: PathParams<'/v1/mail/threads/{id}/labels', 'put'>['id'], body: Body<'/v1/mail/threads/{id}/labels', 'put'>) =>
      request<Ok<'/v1/mail/threads/{id}/labels', 'put'>>({ method: 'PUT', path: `/v1/mail/threads/${enc(id)}/labels`, body }),
  },
  /** Stars one message: source inbound or outbound. */
  setMessageStarred: (
    source: PathParams<'/v1/mail/messages/{source}/{id}/star', 'put'>['source'],
    id: PathParams<'/v1/mail/messages/{source}/{id}/star', 'put'>['id'],
    body: Body<'/v1/mail/messages/{source}/{id}/star', 'put'> = {},
  ) => request<Ok<'/v1/mail/messages/{source}/{id}/star', 'put'>>({ method: 'PUT', path: `/v1/mail/messages/${enc(source)}/${enc(id)}/star`, body }),
  /** Newest first; `q` takes words, "phrases", from:, to:, subject:, has:attachment, after:YYYY-MM-DD, before:YYYY-MM-DD. */
  search: (query: Query<'/v1/mail/search', 'get'>) => request<Ok<'/v1/mail/search', 'get'>>({ method: 'GET', path: '/v1/mail/search', query }),
  /** One page of the Export document (format json); pass its next_cursor as cursor until it is null. */
  export: (query?: Omit<Query<'/v1/mail/export', 'get'>, 'format'>) =>
    request<Ok<'/v1/mail/export', 'get'>>({ method: 'GET', path: '/v1/mail/export', query: { ...query, format: 'json' } }),
  labels: {
    /** Ordered by name. */
    list: () => request<Ok<'/v1/mail/labels', 'get'>>({ method: 'GET', path: '/v1/mail/labels' }),
    /** 409 conflict for a name taken without regard to case. */
    create: (body: Body<'/v1/mail/labels', 'post'>) => request<Ok<'/v1/mail/labels', 'post'>>({ method: 'POST', path: '/v1/mail/labels', body }),
    /** It leaves every thread. */
    remove: (id: PathParams<'/v1/mail/labels/{id}', 'delete'>['id']) =>
      request<Ok<'/v1/mail/labels/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/mail/labels/${enc(id)}` }),
  },
  /** A new message from a verified domain, starting a thread; give `idempotency_key` to retry safely. */
  compose: (body: Body<'/v1/mail/compose', 'post'>) => request<Ok<'/v1/mail/compose', 'post'>>({ method: 'POST', path: '/v1/mail/compose', body }),
  /** Replies in the thread to its newest received message (In-Reply-To, References); `to` omitted: the first sender. */
  reply: (id: PathParams<'/v1/mail/threads/{id}/reply', 'post'>['id'], body: Body<'/v1/mail/threads/{id}/reply', 'post'>) =>
    request<Ok<'/v1/mail/threads/{id}/reply', 'post'>>({ method: 'POST', path: `/v1/mail/threads/${enc(id)}/reply`, body }),
  /** Forwards the thread's newest received message to `to`, the original attached. */
  forward: (id: PathParams<'/v1/mail/threads/{id}/forward', 'post'>['id'], body: Body<'/v1/mail/threads/{id}/forward', 'post'>) =>
    request<Ok<'/v1/mail/threads/{id}/forward', 'post'>>({ method: 'POST', path: `/v1/mail/threads/${enc(id)}/forward`, body }),
});
