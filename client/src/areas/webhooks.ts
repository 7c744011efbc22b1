// The client's calls of webhook subscriptions with their delivery log, and API keys: each a
// function of the transport's Requester, which client/src/index.ts makes a namespace of Postbox.
import { enc, type Requester } from '../transport';
import type { Body, Ok, PathParams, Query } from '../types';

export const webhooksCalls = (request: Requester) => ({
  /** The answer holds the signing_secret, once: keep it for verifySignature. */
  create: (body: Body<'/v1/webhooks', 'post'>) => request<Ok<'/v1/webhooks', 'post'>>({ method: 'POST', path: '/v1/webhooks', body }),
  list: (query?: Query<'/v1/webhooks', 'get'>) => request<Ok<'/v1/webhooks', 'get'>>({ method: 'GET', path: '/v1/webhooks', query }),
  get: (id: PathParams<'/v1/webhooks/{id}', 'get'>['id']) => request<Ok<'/v1/webhooks/{id}', 'get'>>({ method: 'GET', path: `/v1/webhooks/${enc(id)}` }),
  /** Only the fields given change. */
  update: (id: PathParams<'/v1/webhooks/{id}', 'put'>['id'], body: Body<'/v1/webhooks/{id}', 'put'>) =>
    request<Ok<'/v1/webhooks/{id}', 'put'>>({ method: 'PUT', path: `/v1/webhooks/${enc(id)}`, body }),
  remove: (id: PathParams<'/v1/webhooks/{id}', 'delete'>['id']) =>
    request<Ok<'/v1/webhooks/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/webhooks/${enc(id)}` }),
  /** A new signing secret, shown once in the answer. */
  rotateSecret: (id: PathParams<'/v1/webhooks/{id}/rotate-secret', 'post'>['id']) =>
    request<Ok<'/v1/webhooks/{id}/rotate-secret', 'post'>>({ method: 'POST', path: `/v1/webhooks/${enc(id)}/rotate-secret` }),
  /** The delivery log, most recent first. */
  deliveries: (id: PathParams<'/v1/webhooks/{id}/deliveries', 'get'>['id'], query?: Query<'/v1/webhooks/{id}/deliveries', 'get'>) =>
    request<Ok<'/v1/webhooks/{id}/deliveries', 'get'>>({ method: 'GET', path: `/v1/webhooks/${enc(id)}/deliveries`, query }),
  /** Delivers a logged event again as a new delivery (202, pending): same body and event id, signed afresh. */
  replayDelivery: (id: PathParams<'/v1/webhooks/{id}/deliveries/{delivery_id}/replay', 'post'>['id'], deliveryId: PathParams<'/v1/webhooks/{id}/deliveries/{delivery_id}/replay', 'post'>['delivery_id']) =>
    request<Ok<'/v1/webhooks/{id}/deliveries/{delivery_id}/replay', 'post'>>({ method: 'POST', path: `/v1/webhooks/${enc(id)}/deliveries/${enc(deliveryId)}/replay` }),
  /** Replays every exhausted event of the log, at most 100 a call (`has_more`: call again). */
  replayFailed: (id: PathParams<'/v1/webhooks/{id}/replay-failed', 'post'>['id']) =>
    request<Ok<'/v1/webhooks/{id}/replay-failed', 'post'>>({ method: 'POST', path: `/v1/webhooks/${enc(id)}/replay-failed` }),
  /** A signed webhook.test event to this subscription (202, pending; its outcome is in the log). */
  sendTest: (id: PathParams<'/v1/webhooks/{id}/test', 'post'>['id']) =>
    request<Ok<'/v1/webhooks/{id}/test', 'post'>>({ method: 'POST', path: `/v1/webhooks/${enc(id)}/test` }),
});

export const keysCalls = (request: Requester) => ({
  list: (query?: Query<'/v1/keys', 'get'>) => request<Ok<'/v1/keys', 'get'>>({ method: 'GET', path: '/v1/keys', query }),
  /** The answer holds the secret, once. */
  create: (body: Body<'/v1/keys', 'post'> = {}) => request<Ok<'/v1/keys', 'post'>>({ method: 'POST', path: '/v1/keys', body }),
  /** A new secret for the same key id; the old one stops working at once. */
  rotate: (id: PathParams<'/v1/keys/{id}/rotate', 'post'>['id']) =>
    request<Ok<'/v1/keys/{id}/rotate', 'post'>>({ method: 'POST', path: `/v1/keys/${enc(id)}/rotate` }),
  /** Revokes for good. */
  revoke: (id: PathParams<'/v1/keys/{id}', 'delete'>['id']) => request<Ok<'/v1/keys/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/keys/${enc(id)}` }),
});
