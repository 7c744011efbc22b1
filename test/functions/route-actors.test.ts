// Every route of the manifest called by every kind of caller, through the real handlers and
// pipeline over one embedded store: live keys of each scope, test keys of each scope, the console
// sessions of an unverified, a verified and a staff user, a suspended account's key and session,
// no credentials, and the staff token. Each answer must be what docs/threat-model.md's table of
// powers says (test/support/powers.ts, the rule the table is made from): through to the route, or
// refused with 401, 403 or 403 account_suspended; and a refused call must change nothing: the
// store (scanned before and after, the limiter's budgets and the keys' use counters aside), the
// queues and the mailer are as they were.
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRoutes } from '../../functions/manifest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { createKey } from '../../shared/accounts/api-keys/service';
import { routeKey } from '../../shared/platform';
import { installContainer } from '../../shared/runtime/container';
import { callRaw } from '../support/api';
import { createTestContainer, TEST_SECRETS, type TestContainer } from '../support/container';
import { giveVerifiedDomain } from '../support/domains';
import { parseResult, type HttpEventInput, type ParsedResult } from '../support/events';
import { actors, expectedAnswer, type Actor, type Answer } from '../support/powers';
import { linkTokenIn, sessionFrom, signUp, withSession, type TestSession } from '../support/sessions';

let c: TestContainer;
const tally = { requests: 0, refused: 0 };
const credentials = new Map<Actor, (input: HttpEventInput) => HttpEventInput>();

/** As API Gateway calls it, 150 ms after the last call (the per-second budgets are never what this measures). */
async function request(input: HttpEventInput): Promise<ParsedResult> {
  c.clock.advance(150);
  const raw = await callRaw(input);
  // Pages, zone files and logos are not JSON; only an error's envelope is read here.
  const json = (raw.headers?.['content-type'] as string | undefined)?.startsWith('application/json') ?? false;
  return json ? parseResult(raw) : { status: raw.statusCode ?? 200, headers: {}, cookies: raw.cookies ?? [], body: undefined };
}

/** A person who signed up and proved their address by the mailed link. */
async function verifiedPerson(): Promise<TestSession> {
  const s = await signUp(request);
  const token = linkTokenIn(c.mailed.filter((m) => m.to === s.email).at(-1)?.text, 'verify-email');
  expect((await request({ method: 'POST', path: '/v1/auth/verify-email', body: { token } })).status).toBe(200);
  return s;
}

const asKey = (key: string) => (input: HttpEventInput): HttpEventInput => ({ ...input, key });
const asSession = (s: TestSession) => (input: HttpEventInput): HttpEventInput => withSession(s, input);
const staffToken = TEST_SECRETS['staff-token'];

beforeAll(async () => {
  c = await createTestContainer();
  installContainer(c);
  // The account the keys belong to: made by staff, with the verified domain acme.test.
  const account = await createAccount(c, { email: 'owner@example.com' });
  await giveVerifiedDomain(c, account.account_id);
  const key = async (scope: 'send' | 'read', testMode: boolean) => (await createKey(c, account.account_id, { scope, test_mode: testMode }, { testMode: false })).key;
  credentials.set('live_send', asKey(await key('send', false)));
  credentials.set('live_read', asKey(await key('read', false)));
  credentials.set('live_admin', asKey(account.admin_key));
  credentials.set('test_send', asKey(await key('send', true)));
  credentials.set('test_read', asKey(await key('read', true)));
  credentials.set('test_admin', asKey(account.test_admin_key));

  // People who signed up, each with their own account.
  credentials.set('session_unverified', asSession(await signUp(request)));
  credentials.set('session_verified', asSession(await verifiedPerson()));
  const operator = await verifiedPerson();
  expect((await request({ method: 'POST', path: '/v1/admin/users/role', key: staffToken, body: { email: operator.email, role: 'staff' } })).status).toBe(200);
  const login = await request({ method: 'POST', path: '/v1/auth/login', body: { email: operator.email, password: operator.password } });
  credentials.set('session_staff', asSession(await sessionFrom(request, login, operator)));

  // A verified owner with a live admin key, whose account staff then suspend.
  const stopped = await verifiedPerson();
  const stoppedKey = await request(withSession(stopped, { method: 'POST', path: '/v1/keys', body: { scope: 'admin' } }));
  expect(stoppedKey.body.key).toMatch(/^sk_live_/);
  expect((await request({ method: 'POST', path: `/v1/admin/accounts/${stopped.accountId}/suspend`, key: staffToken })).status).toBe(200);
  credentials.set('suspended_key', asKey(stoppedKey.body.key));
  credentials.set('suspended_session', asSession(stopped));

  credentials.set('none', (input) => input);
  credentials.set('staff_token', asKey(staffToken));
}, 60_000);
afterAll(async () => {
  // The closing note quotes these figures.
  process.stdout.write(`route-actors: ${tally.requests} requests (${tally.refused} refused by the pipeline, each with the store unchanged)\n`);
  await c?.testStore.close();
});

/** Path values that name nothing any account has, so a call let through changes little. */
const PATH_VALUES: Record<string, string> = { domain: 'absent.test', channel: 'webhook', provider: 'github', source: 'inbound', index: '0', token: 'x' };
const concrete = (path: string): string => path.replace(/\{(\w+)\}/g, (_m, name: string) => PATH_VALUES[name] ?? 'x_00000000000000000000000000');
/** The one body-dependent rule of the walk: a test caller (or an unverified owner) mints test keys only, a route's own 403. */
const bodyOf = (key: string): unknown => (key === 'POST /v1/keys' ? { test_mode: true } : {});

/**
 * Routes that answer 401 or 403 themselves to a caller the pipeline let through: their own
 * credential is what they check (a session cookie, a Stripe signature).
 */
const OWN_REFUSALS: Record<string, Partial<Record<Actor, string>>> = {
  'GET /v1/auth/session': Object.fromEntries(actors.map((a) => [a, a === 'suspended_session' ? 'account_suspended' : 'unauthorized']).filter(([a]) => !String(a).startsWith('session_'))),
};

const CODES: Record<Exclude<Answer, 'ok'>, [number, string]> = { '401': [401, 'unauthorized'], '403': [403, 'forbidden'], '403s': [403, 'account_suspended'] };

/** The table's items as comparable text: the limiter's logs and the keys' use counters are bookkeeping every counted request writes. */
async function storeSnapshot(): Promise<string[]> {
  const items: string[] = [];
  let startKey: Record<string, any> | undefined;
  do {
    const page = await c.testStore.client.send(new ScanCommand({ TableName: c.testStore.store.tableName, ExclusiveStartKey: startKey }));
    for (const raw of page.Items ?? []) {
      const { last_used_at: _used, request_count: _count, ...item } = unmarshall(raw);
      if (!String(item.pk).startsWith('RATE#')) items.push(JSON.stringify(item, Object.keys(item).sort()));
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items.sort();
}

// Signing out ends the caller's session: walked last, so every other route meets live sessions.
const routes = [...httpRoutes()].sort((a, b) => Number(routeKey(a) === 'POST /v1/auth/logout') - Number(routeKey(b) === 'POST /v1/auth/logout'));

describe('every route × every actor, as docs/threat-model.md says', () => {
  for (const route of routes) {
    const key = routeKey(route);
    it(key, async () => {
      const input: HttpEventInput = { method: route.method, path: concrete(route.path), ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { body: bodyOf(key) }) };
      const expected = new Map(actors.map((a) => [a, expectedAnswer(route.access, a)]));
      const refused = actors.filter((a) => expected.get(a) !== 'ok');
      const allowed = actors.filter((a) => expected.get(a) === 'ok');
      const got: Record<string, string> = {};
      const want: Record<string, string> = {};

      // Refused callers first, between two scans of the store.
      const before = await storeSnapshot();
      const [queued, mailed] = [c.sent.length, c.mailed.length];
      for (const actor of refused) {
        const res = await request(credentials.get(actor)!(input));
        tally.requests++;
        tally.refused++;
        const [status, code] = CODES[expected.get(actor) as Exclude<Answer, 'ok'>];
        got[actor] = `${res.status} ${res.body?.error?.code}`;
        want[actor] = `${status} ${code}`;
      }
      const after = await storeSnapshot();

      for (const actor of allowed) {
        const res = await request(credentials.get(actor)!(input));
        tally.requests++;
        const own = OWN_REFUSALS[key]?.[actor];
        got[actor] = own ? `${res.status} ${res.body?.error?.code}` : res.status === 401 || res.status === 403 ? `refused: ${res.status} ${res.body?.error?.message}` : 'through';
        want[actor] = own ? `${own === 'unauthorized' ? 401 : 403} ${own}` : 'through';
      }

      expect(got).toEqual(want);
      expect(after, 'a refused call changed the store').toEqual(before);
      expect([c.sent.length, c.mailed.length], 'a refused call queued or mailed something').toEqual([queued, mailed]);
    });
  }
});
