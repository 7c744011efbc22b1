// A small stand-in for Stripe's API on loopback, answering the few calls billing makes (customers,
// checkout sessions, subscriptions, portal sessions) the way Stripe's library expects, with the
// state a test sets. And Stripe-signed event payloads, made by Stripe's own test-header helper.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export interface StandInSubscription {
  id: string;
  object: 'subscription';
  customer: string;
  status: string;
  metadata: Record<string, string>;
  items: { object: 'list'; data: Array<{ id: string; object: 'subscription_item'; price: { id: string; object: 'price' }; current_period_start: number; current_period_end: number }> };
}

export interface StandInRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  idempotencyKey?: string;
}

export interface StripeStandIn {
  /** http://127.0.0.1:port, what STRIPE_API_BASE points at. */
  url: string;
  requests: StandInRequest[];
  subscriptions: Map<string, StandInSubscription>;
  /** Customers created, by id (a replayed idempotency key creates none). */
  customers: Map<string, Record<string, string>>;
  /** Makes a subscription Stripe holds, as if a checkout had completed. */
  subscribe(input: { customer: string; price: string; status?: string; periodStart: number; periodEnd: number }): StandInSubscription;
  /** Requests to one path, e.g. `POST /v1/customers`. */
  calls(route: string): StandInRequest[];
  reset(): void;
  close(): Promise<void>;
}

async function formOf(req: IncomingMessage): Promise<Record<string, string>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

const notFound = (what: string) => ({ error: { type: 'invalid_request_error', message: `No such ${what}`, code: 'resource_missing' } });

/** What the stand-in holds: its id sequence, the requests it saw, Stripe's objects, and answers by idempotency key. */
interface State {
  sequence: number;
  requests: StandInRequest[];
  subscriptions: Map<string, StandInSubscription>;
  customers: Map<string, Record<string, string>>;
  replays: Map<string, unknown>;
}

const nextId = (state: State, prefix: string): string => `${prefix}_standin${++state.sequence}`;

function subscribeIn(state: State, { customer, price, status = 'active', periodStart, periodEnd }: Parameters<StripeStandIn['subscribe']>[0]): StandInSubscription {
  const id = nextId(state, 'sub');
  const subscription: StandInSubscription = {
    id,
    object: 'subscription',
    customer,
    status,
    metadata: {},
    items: { object: 'list', data: [{ id: nextId(state, 'si'), object: 'subscription_item', price: { id: price, object: 'price' }, current_period_start: periodStart, current_period_end: periodEnd }] },
  };
  state.subscriptions.set(id, subscription);
  return subscription;
}

/** GET or POST /v1/subscriptions/:id: the subscription, its price changed by a POST naming its item. */
function oneSubscription(state: State, method: string, id: string, params: Record<string, string>): [number, unknown] {
  const subscription = state.subscriptions.get(id);
  if (!subscription) return [404, notFound('subscription')];
  if (method === 'POST' && params['items[0][price]']) {
    const item = subscription.items.data.find((i) => i.id === params['items[0][id]']);
    if (!item) return [400, { error: { type: 'invalid_request_error', message: 'No such subscription item' } }];
    item.price = { id: params['items[0][price]'], object: 'price' };
  }
  return [200, subscription];
}

function answer(state: State, method: string, path: string, params: Record<string, string>, query: URLSearchParams): [number, unknown] {
  if (method === 'POST' && path === '/v1/customers') {
    const id = nextId(state, 'cus');
    state.customers.set(id, params);
    return [200, { id, object: 'customer', metadata: { account_id: params['metadata[account_id]'] } }];
  }
  if (method === 'POST' && path === '/v1/checkout/sessions') {
    const id = nextId(state, 'cs');
    return [200, { id, object: 'checkout.session', mode: params.mode, customer: params.customer, url: `https://checkout.stripe.test/c/pay/${id}` }];
  }
  if (method === 'POST' && path === '/v1/billing_portal/sessions') {
    const id = nextId(state, 'bps');
    return [200, { id, object: 'billing_portal.session', customer: params.customer, url: `https://billing.stripe.test/p/session/${id}` }];
  }
  if (method === 'GET' && path === '/v1/subscriptions') {
    const data = [...state.subscriptions.values()].filter((s) => s.customer === query.get('customer') && s.status !== 'canceled');
    return [200, { object: 'list', data, has_more: false, url: '/v1/subscriptions' }];
  }
  const one = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
  if (one) return oneSubscription(state, method, one[1]!, params);
  return [404, { error: { type: 'invalid_request_error', message: `stand-in does not answer ${method} ${path}` } }];
}

/** One request: recorded, then answered (or, for an idempotency key seen with a 200, answered as before). */
async function serve(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://stand-in');
  const params = await formOf(req);
  const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
  state.requests.push({ method: req.method ?? 'GET', path: url.pathname, params, ...(idempotencyKey ? { idempotencyKey } : {}) });
  const replayKey = idempotencyKey ? `${req.method} ${url.pathname} ${idempotencyKey}` : undefined;
  const [status, body] = replayKey && state.replays.has(replayKey) ? [200, state.replays.get(replayKey)] : answer(state, req.method ?? 'GET', url.pathname, params, url.searchParams);
  if (replayKey && status === 200) state.replays.set(replayKey, body);
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${state.sequence}` });
  res.end(JSON.stringify(body));
}

export async function startStripeStandIn(): Promise<StripeStandIn> {
  const state: State = { sequence: 0, requests: [], subscriptions: new Map(), customers: new Map(), replays: new Map() };
  const { requests, subscriptions, customers, replays } = state;
  const server: Server = createServer((req, res) => {
    void serve(state, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    subscriptions,
    customers,
    subscribe: (input) => subscribeIn(state, input),
    calls: (route) => requests.filter((r) => `${r.method} ${r.path}` === route),
    reset: () => {
      requests.length = 0;
      subscriptions.clear();
      customers.clear();
      replays.clear();
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

const signer = new Stripe('sk_test_signer_only');

/** A Stripe event as Stripe posts it, with its Stripe-Signature header made at `timestamp` (epoch seconds). */
export function signedEvent(
  secret: string,
  event: { id: string; type: string; created: number; object: unknown },
  timestamp: number,
): { rawBody: string; signature: string } {
  const rawBody = JSON.stringify({ id: event.id, object: 'event', api_version: '2026-10-28.endive', type: event.type, created: event.created, livemode: false, data: { object: event.object } });
  return { rawBody, signature: signer.webhooks.generateTestHeaderString({ payload: rawBody, secret, timestamp }) };
}
