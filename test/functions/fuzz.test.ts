// Property-based fuzzing of every route in the manifest, through the real handlers and pipeline
// over the embedded store: random bodies (deep, huge, odd numbers, not JSON), random path ids
// (the ids of the account's live broadcast, template, snippet, contact, list and scheduled
// message among them), query strings and headers (cookies and CSRF tokens among them), with good,
// wrong and missing credentials: live and test API keys, the staff token, and console sessions
// of every state (unverified, verified, staff, a suspended account's; with and without the CSRF
// token; ended), and a suspended account's key. Whatever comes in, the answer is never a 5xx, and
// every 4xx is the spec's envelope; test keys let loose on the live things change none of them.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { functions, httpRoutes } from '../../functions/manifest';
import { createKey } from '../../shared/accounts/api-keys/service';
import { keys } from '../../shared/db/keys';
import { createRouteMatcher } from '../../shared/http/route-match';
import { loadFunction } from '../../local/runtime';
import { httpEvent } from '../support/events';
import { runningAs } from '../support/grants';
import { TEST_SECRETS } from '../support/container';
import { useTestbed } from '../support/testbed';
import { useBilling } from '../support/billing';
import { linkTokenIn, sessionFrom, signUp, withSession, type TestSession } from '../support/sessions';

type Lambda = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

const bed = useTestbed();
// Billing configured (Stripe's library against a loopback stand-in), as validation is: a route's
// 503 `…_not_configured` is a deployment's choice, not what the fuzzing looks for.
useBilling(bed);
const matchRoute = createRouteMatcher(functions);
const RUNS_PER_ROUTE = 30;
const tally = { requests: 0, serverErrors: 0, byStatus: new Map<number, number>() };

afterAll(() => {
  // The closing note quotes these figures.
  process.stdout.write(`fuzz: ${tally.requests} requests, ${tally.serverErrors} 5xx, statuses ${JSON.stringify(Object.fromEntries(tally.byStatus))}\n`);
});

/** Nested `depth` levels deep, as arrays or objects. */
const deep = (depth: number, asObject: boolean): string => (asObject ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth));

const oddJson = fc.constantFrom(
  '1e999',
  '-1e999',
  '{"metadata":' + deep(3000, true) + '}',
  deep(2000, false),
  '{"channel":"email","idempotency_key":"k","destination":{"email":"a@example.com"},"payload":{"subject":"s","body_text":"t"},"metadata":' + deep(2000, true) + '}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '"\\ud800"',
  '{"a":1,"a":2}',
  'null',
  '',
  '{',
  '\u0000',
);
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  oddJson,
  fc.string({ maxLength: 200 }),
  fc.record({ channel: fc.constantFrom('email', 'webhook', 'sms', 'x'), destination: fc.jsonValue({ maxDepth: 2 }), payload: fc.jsonValue({ maxDepth: 3 }) }).map((v) => JSON.stringify(v)),
);
/** The account's live things, made with the live admin key before each route's runs; a path id `@live:<name>` stands for one. */
const LIVE_THINGS = ['broadcast', 'template', 'snippet', 'contact', 'list', 'message'] as const;
type LiveThing = (typeof LIVE_THINGS)[number];
let live: Record<LiveThing, string>;
const liveId = fc.constantFrom(...LIVE_THINGS).map((name) => `@live:${name}`);
const pathId = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.constantFrom('a'.repeat(1200), 'key_' + 'z'.repeat(2000), '..', '%', '%00', 'msg_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'example.com', 'ACCT#x', 'x'.repeat(300) + '.com'),
  fc.stringMatching(/^[a-z]{3,6}_[0-9A-Z]{26}$/),
  liveId,
);
const query = fc.dictionary(
  fc.constantFrom('limit', 'cursor', 'status', 'channel', 'from', 'to', 'recipient', 'period', 'idempotency_key', 'token', 'x'),
  fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('-1', '1e999', '0', '99999999999999999999', 'a'.repeat(3000), '2026-13-45', 'null')),
  { maxKeys: 4 },
);
const headers = fc.dictionary(
  fc.constantFrom('content-type', 'idempotency-key', 'x-forwarded-for', 'x-forwarded-proto', 'host', 'accept', 'cookie', 'x-csrf-token'),
  fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('multipart/form-data; boundary=x', 'image/svg+xml', 'application/json', 'text/plain')),
  { maxKeys: 3 },
);
type PersonState = 'unverified' | 'verified' | 'staff' | 'suspended';
type Credential =
  | 'admin'
  | 'test_admin'
  | 'test_send'
  | 'none'
  | 'garbage'
  | 'staff'
  | 'suspended_key'
  | `session_${PersonState}`
  | 'session_without_csrf'
  | 'ended_session';
const credential = fc.constantFrom<Credential>(
  'admin', 'admin', 'admin', 'test_admin', 'test_admin', 'test_send', 'none', 'garbage', 'staff', 'suspended_key',
  'session_unverified', 'session_verified', 'session_staff', 'session_suspended', 'session_without_csrf', 'ended_session',
);

/** Signed-in people of other accounts (console sessions) in every state, and the suspended account's live key; made once for the file. */
const people = {} as Record<PersonState, TestSession>;
let suspendedKey: string;
let testSendKey: string;

async function verifiedPerson(): Promise<TestSession> {
  const s = await signUp(bed.request);
  const token = linkTokenIn(bed.c.mailed.filter((m) => m.to === s.email).at(-1)?.text, 'verify-email');
  expect((await bed.request({ method: 'POST', path: '/v1/auth/verify-email', body: { token } })).status).toBe(200);
  return s;
}

/** A new session of the person (their account, and its state, stay as they are). */
async function signIn(s: TestSession): Promise<TestSession> {
  const login = await bed.request({ method: 'POST', path: '/v1/auth/login', body: { email: s.email, password: s.password } });
  return sessionFrom(bed.request, login, s);
}

beforeAll(async () => {
  people.unverified = await signUp(bed.request);
  people.verified = await verifiedPerson();
  const operator = await verifiedPerson();
  expect((await bed.request({ method: 'POST', path: '/v1/admin/users/role', key: TEST_SECRETS['staff-token'], body: { email: operator.email, role: 'staff' } })).status).toBe(200);
  people.staff = await signIn(operator);
  await suspendPerson();
}, 60_000);

/** A verified owner with a live admin key, whose account staff then suspend (a suspended account starts no new session). */
async function suspendPerson(): Promise<void> {
  people.suspended = await verifiedPerson();
  suspendedKey = (await bed.request(withSession(people.suspended, { method: 'POST', path: '/v1/keys', body: { scope: 'admin' } }))).body.key;
  expect((await bed.request({ method: 'POST', path: `/v1/admin/accounts/${people.suspended.accountId}/suspend`, key: TEST_SECRETS['staff-token'] })).status).toBe(200);
}

/** The account's live things (a draft broadcast, a template and a snippet it includes, a contact in a list, a scheduled message), made with the live admin key. */
async function makeLiveThings(): Promise<void> {
  const key = bed.account.admin_key;
  const made = async (path: string, body: unknown): Promise<string> => {
    const res = await bed.request({ method: 'POST', path, key, body });
    if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.id;
  };
  const snippet = await made('/v1/templates/snippets', { name: 'footer', body_html: '<p>Regards</p>' });
  const template = await made('/v1/templates', { name: 'welcome', channel: 'email', subject: 'Welcome', body_html: '<p>Hi</p>{{> footer }}' });
  const list = await made('/v1/lists', { name: 'Newsletter', type: 'static' });
  const contact = await made('/v1/contacts', { email: 'ada@example.com', list_ids: [list] });
  const broadcast = await made('/v1/broadcasts', { from_email: 'news@acme.test', subject: 'News', body_text: 'Hello', audience_list_id: list });
  const message = await made('/v1/send', {
    channel: 'email',
    idempotency_key: 'fuzz-live-scheduled',
    destination: { email: 'ada@example.com' },
    payload: { subject: 'Later', body_text: 'Later' },
    metadata: { from_email: 'hello@acme.test' },
    scheduled_at: new Date(bed.c.clock.now().getTime() + 3600_000).toISOString(),
  });
  live = { broadcast, template, snippet, contact, list, message };
  testSendKey = (await createKey(bed.c, bed.account.account_id, { scope: 'send', test_mode: true }, { testMode: false })).key;
}

/** How the live things read to the live admin key: what a test key must leave as it found it. */
async function liveState(): Promise<unknown[]> {
  const paths = [`/v1/broadcasts/${live.broadcast}`, `/v1/templates/${live.template}`, `/v1/templates/snippets/${live.snippet}`, `/v1/contacts/${live.contact}`, `/v1/lists/${live.list}`, `/v1/lists/${live.list}/members`, `/v1/messages/${live.message}`];
  return Promise.all(paths.map(async (path) => (await bed.request({ method: 'GET', path, key: bed.account.admin_key })).body));
}

/** What a request carries for each credential: a key, or the session's cookie (with its CSRF token, or without). */
function credentialsOf(who: Credential): { key?: string; cookies?: string[]; headers?: Record<string, string> } {
  switch (who) {
    case 'admin':
      return { key: bed.account.admin_key };
    case 'test_admin':
      return { key: bed.account.test_admin_key };
    case 'test_send':
      return { key: testSendKey };
    case 'staff':
      return { key: TEST_SECRETS['staff-token'] };
    case 'garbage':
      return { key: 'sk_live_' + 'x'.repeat(40) };
    case 'suspended_key':
      return { key: suspendedKey };
    case 'session_unverified':
    case 'session_verified':
    case 'session_staff':
    case 'session_suspended': {
      const person = people[who.slice('session_'.length) as PersonState];
      return { cookies: [person.cookie], headers: { 'x-csrf-token': person.csrf } };
    }
    case 'session_without_csrf':
      return { cookies: [people.verified.cookie] };
    case 'ended_session':
      return { cookies: ['__Host-postbox_session=' + 'A'.repeat(43)], headers: { 'x-csrf-token': people.verified.csrf } };
    case 'none':
      return {};
  }
}

/** The path with every parameter set to `id`; `@live:<name>` is the live thing of that name. */
function concrete(template: string, id: string): string {
  const value = id.startsWith('@live:') ? (live?.[id.slice('@live:'.length) as LiveThing] ?? id) : id;
  return template.replace(/\{(\w+)\}/g, () => encodeURIComponent(value));
}

async function send(
  method: string,
  path: string,
  input: { body: string; query: Record<string, string>; headers: Record<string, string>; key?: string; cookies?: string[] },
): Promise<APIGatewayProxyStructuredResultV2> {
  bed.c.clock.advance(150);
  const match = matchRoute(method, path);
  const fn = match.kind === 'route' ? match.fn : functions.find((f) => f.defaultRoute)!;
  const handler = await loadFunction<Lambda>(fn);
  const event = httpEvent({ method, path, rawBody: input.body === '' ? undefined : input.body, query: input.query, headers: input.headers, key: input.key, cookies: input.cookies });
  return runningAs.run(fn, () => handler(event));
}

/** A valid email send with `patch` merged in, for hostile values inside an otherwise good body. */
const goodSend = (metadataExtra: string, bodyText = 't'): string =>
  `{"channel":"email","idempotency_key":"fuzz-${Math.random().toString(36).slice(2)}","destination":{"email":"a@example.com"},` +
  `"payload":{"subject":"s","body_text":"${bodyText}"},"metadata":{"from_email":"hello@acme.test"${metadataExtra}}}`;

/** Every hostile case the issues name, tried on every route with a working admin key. */
const HOSTILE_BODIES = [
  '1e999',
  goodSend(''),
  goodSend(',"a":1e999'),
  goodSend(`,"deep":${deep(2000, true)}`),
  goodSend(`,"deep":${deep(3000, true)}`),
  deep(5000, false),
  '{"__proto__":{"polluted":true}}',
];
const HOSTILE_IDS = ['a'.repeat(1200), 'key_' + 'z'.repeat(2000), `${'x'.repeat(300)}.com`, '%00', '..'];

describe('hostile cases on every route', () => {
  for (const route of httpRoutes()) {
    it(`${route.method} ${route.path}`, async () => {
      const key = route.access.kind === 'staff' ? TEST_SECRETS['staff-token'] : bed.account.admin_key;
      const ids = route.path.includes('{') ? HOSTILE_IDS : ['x'];
      for (const id of ids) {
        for (const rawBody of route.method === 'GET' || route.method === 'DELETE' ? [''] : HOSTILE_BODIES) {
          const res = await send(route.method, concrete(route.path, id), { body: rawBody, query: {}, headers: {}, key });
          expectEnvelopeOrSuccess(route.method, route.path, res);
        }
      }
    });
  }
});

describe('message size', () => {
  type Part = { field: 'subject' | 'body_html' | 'body_text' | 'metadata' | 'destination' | 'template_vars'; bytes: number; wide: boolean };
  const MiB = 1024 * 1024;
  const jsonBytes = (v: unknown): number => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v)));

  /** A good email send with `parts` of filler (two-byte characters when `wide`) in the named fields. */
  function sizedSend(parts: Part[]): { body: Record<string, any>; contentBytes: number } {
    const body: Record<string, any> = {
      channel: 'email',
      idempotency_key: `size-${Math.random().toString(36).slice(2)}`,
      destination: { email: 'a@example.com' },
      payload: { subject: 's', body_text: 't' },
      metadata: { from_email: 'hello@acme.test' },
    };
    parts.forEach((part, i) => {
      const filler = part.wide ? 'é'.repeat(Math.floor(part.bytes / 2)) : 'x'.repeat(part.bytes);
      if (part.field === 'subject' || part.field === 'body_html' || part.field === 'body_text') body.payload[part.field] = filler;
      else if (part.field === 'template_vars') body.template_vars = { ...body.template_vars, [`v${i}`]: filler };
      else body[part.field][`pad${i}`] = filler;
    });
    // The documented measure: payload, destination, metadata and template_vars as compact JSON, UTF-8.
    return { body, contentBytes: jsonBytes(body.payload) + jsonBytes(body.destination) + jsonBytes(body.metadata) + jsonBytes(body.template_vars) };
  }

  async function expectSizeRule(parts: Part[]): Promise<void> {
    const { body, contentBytes } = sizedSend(parts);
    const res = await send('POST', '/v1/send', { body: JSON.stringify(body), query: {}, headers: {}, key: bed.account.admin_key });
    expectEnvelopeOrSuccess('POST', '/v1/send', res);
    const parsed = JSON.parse(res.body ?? '');
    if (contentBytes > 5 * MiB) {
      expect(res.statusCode, `${contentBytes} bytes of content`).toBe(413);
      expect(parsed.error.code).toBe('payload_too_large');
      return;
    }
    expect(res.statusCode, `${contentBytes} bytes of content: ${res.body?.slice(0, 300)}`).toBe(201);
    // Far below DynamoDB's 400 KB whatever the content: past 16 KiB it is in the object store.
    const item = await bed.c.store.get(keys.message(parsed.id));
    expect(jsonBytes(item)).toBeLessThan(32 * 1024);
  }

  it('POST /v1/send with content past the 400 KB item limit: 201 up to 5 MiB, 413 payload_too_large past it, never a 5xx', async () => {
    // The case that used to answer 500: 390 KB of metadata and a 500 KB body.
    await expectSizeRule([{ field: 'metadata', bytes: 390_000, wide: false }, { field: 'body_html', bytes: 500_000, wide: false }]);
    await expectSizeRule([{ field: 'body_html', bytes: 5 * MiB, wide: false }]);
    await expectSizeRule([{ field: 'body_text', bytes: 3 * MiB, wide: true }]);

    const field = fc.constantFrom<Part['field']>('subject', 'body_html', 'body_text', 'metadata', 'destination', 'template_vars');
    const bytes = fc.oneof(
      fc.constantFrom(16 * 1024 - 60, 16 * 1024 + 1, 400 * 1024, 5 * MiB - 120, 5 * MiB - 60, 5 * MiB, 5 * MiB + 1),
      fc.integer({ min: 0, max: 5 * MiB + 256 * 1024 }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ field, bytes, wide: fc.boolean() }), { minLength: 1, maxLength: 2 }), expectSizeRule),
      { numRuns: 16, seed: Number(process.env.FUZZ_SEED ?? 20261123), endOnFailure: true },
    );
  });
});

function expectEnvelopeOrSuccess(method: string, path: string, res: APIGatewayProxyStructuredResultV2): void {
  const status = res.statusCode ?? 200;
  tally.requests++;
  tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
  if (status >= 500) tally.serverErrors++;
  expect(status, `${method} ${path.slice(0, 80)} answered ${status}: ${res.body?.slice(0, 300)}`).toBeLessThan(500);
  if (status < 400) return;
  const parsed = JSON.parse(res.body ?? '') as { error?: { code?: unknown; message?: unknown; status?: unknown } };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(typeof parsed.error?.code).toBe('string');
  expect(typeof parsed.error?.message).toBe('string');
  expect(parsed.error?.status).toBe(status);
}

describe('fuzzing every route', () => {
  beforeEach(makeLiveThings);
  for (const route of httpRoutes()) {
    it(`${route.method} ${route.path}: never a 5xx, always the envelope`, async () => {
      await fc.assert(
        fc.asyncProperty(body, pathId, query, headers, credential, async (rawBody, id, q, h, who) => {
          const { key, cookies, headers: sent } = credentialsOf(who);
          const res = await send(route.method, concrete(route.path, id), { body: rawBody, query: q, headers: { ...h, ...sent }, key, cookies });
          expectEnvelopeOrSuccess(route.method, route.path, res);
          // Signing out ends that person's session: the rest of the routes get a fresh one.
          if (route.path === '/v1/auth/logout' && who.startsWith('session_') && who !== 'session_without_csrf' && res.statusCode === 204) {
            const state = who.slice('session_'.length) as PersonState;
            if (state === 'suspended') await suspendPerson();
            else people[state] = await signIn(people[state]);
          }
        }),
        { numRuns: RUNS_PER_ROUTE, seed: Number(process.env.FUZZ_SEED ?? 20261123), endOnFailure: true },
      );
    });
  }
});

describe('test keys on the live things', () => {
  beforeEach(makeLiveThings);
  const testKey = fc.constantFrom<Credential>('test_admin', 'test_send');
  for (const route of httpRoutes().filter((r) => r.path.includes('{') && (r.access.kind === 'key' || r.access.kind === 'any_key'))) {
    it(`${route.method} ${route.path}: never a 5xx, and the live things stay as they were`, async () => {
      const before = await liveState();
      await fc.assert(
        fc.asyncProperty(fc.oneof(body, fc.constant('{}')), liveId, query, testKey, async (rawBody, id, q, who) => {
          const res = await send(route.method, concrete(route.path, id), { body: rawBody, query: q, headers: {}, key: credentialsOf(who).key });
          expectEnvelopeOrSuccess(route.method, route.path, res);
        }),
        { numRuns: 12, seed: Number(process.env.FUZZ_SEED ?? 20261123), endOnFailure: true },
      );
      expect(await liveState()).toEqual(before);
    });
  }
});
