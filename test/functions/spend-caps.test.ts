// Spend caps through the handlers: PUT/GET/DELETE /v1/spend-caps with every failure case, and the
// hard cap where sends are accepted (single, batch, bulk recipients), exact under racing sends,
// never holding test mode, and given back when a send turns out unbillable.
import { beforeEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { createKey } from '../../shared/accounts/api-keys/service';
import type { BroadcastItem } from '../../shared/audiences/broadcasts/model';
import { keys } from '../../shared/db/keys';
import type { SendJob } from '../../shared/sending/messages/messages';
import { findByIdempotencyKey } from '../../shared/sending/messages/query';
import { acceptSends } from '../../shared/sending/messages/send';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { emailSends } from '../support/send-body';
import { useTestbed } from '../support/testbed';
import { sendWorker, fanOut } from '../support/consumers';

const bed = useTestbed({ scopedKeys: true });
let accountId: string;
let adminKey: string;
let readKey: string;
let sendKey: string;
let sendKeyId: string;
beforeEach(async () => {
  accountId = bed.account.account_id;
  adminKey = bed.account.admin_key;
  readKey = bed.readKey;
  const created = await createKey(bed.c, accountId, { scope: 'send' }, { testMode: false });
  sendKey = created.key;
  sendKeyId = created.id;
});

const putCap = (body: unknown, key = adminKey) => bed.request({ method: 'PUT', path: '/v1/spend-caps', key, body });
const listCaps = (key = readKey) => bed.request({ method: 'GET', path: '/v1/spend-caps', key });
const deleteCap = (query: Record<string, string> = {}, key = adminKey) => bed.request({ method: 'DELETE', path: '/v1/spend-caps', key, query });
const usage = () => bed.request({ method: 'GET', path: '/v1/usage', key: readKey });
const email = emailSends('cap');
const send = (body: unknown = email(), key = sendKey) => bed.request({ method: 'POST', path: '/v1/send', key, body });
const batch = (items: unknown[], key = sendKey) => bed.request({ method: 'POST', path: '/v1/send/batch', key, body: items });
const sendJobs = () => bed.c.sent.filter((s) => s.queue === 'send' && !('kind' in (s.body as object))).map((s) => s.body as SendJob);

describe('PUT /v1/spend-caps', () => {
  it('creates the account cap, then changes only the limits sent, keeping its id', async () => {
    const created = await putCap({ hard_limit_micros: 5000 });
    const changed = await putCap({ soft_limit_micros: 4000 });
    const cleared = await putCap({ hard_limit_micros: null });

    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(/^spc_[0-9a-z]{26}$/), account_id: accountId, key_id: null, soft_limit_micros: null, hard_limit_micros: 5000 });
    expect(changed.body).toEqual({ ...created.body, soft_limit_micros: 4000 });
    expect(cleared.body).toEqual({ ...created.body, soft_limit_micros: 4000, hard_limit_micros: null });
  });

  it('caps one live key of the account apart from the account cap', async () => {
    await putCap({ hard_limit_micros: 9000 });
    const res = await putCap({ key_id: sendKeyId, hard_limit_micros: 100, soft_limit_micros: 0 });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ key_id: sendKeyId, hard_limit_micros: 100, soft_limit_micros: 0 });
    expect((await listCaps()).body.spend_caps.map((cap: { key_id: string | null }) => cap.key_id)).toEqual([null, sendKeyId]);
  });

  it.each([
    ['a negative hard limit', { hard_limit_micros: -1 }, 'body.hard_limit_micros:'],
    ['a negative soft limit', { soft_limit_micros: -5 }, 'body.soft_limit_micros:'],
    ['a fractional limit', { hard_limit_micros: 1.5 }, 'body.hard_limit_micros:'],
    ['a limit as a string', { hard_limit_micros: '100' }, 'body.hard_limit_micros:'],
    ['an unknown field', { hard_limit: 100 }, 'body:'],
  ])('answers 400 invalid_request for %s, storing nothing', async (_, body, field) => {
    const res = await putCap(body);

    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(res.body.error.message.startsWith(field)).toBe(true);
    expect((await listCaps()).body).toEqual({ spend_caps: [] });
  });

  it('answers 404 for another account\'s key, an unknown key, a malformed id and a revoked key', async () => {
    const other = await createAccount(bed.c, { name: 'other' });
    const theirs = await createKey(bed.c, other.account_id, { scope: 'send' }, { testMode: false });
    const revoked = await createKey(bed.c, accountId, { scope: 'send' }, { testMode: false });
    expect((await bed.request({ method: 'DELETE', path: `/v1/keys/${revoked.id}`, key: adminKey })).status).toBeLessThan(300);

    for (const keyId of [theirs.id, 'key_01hzzzzzzzzzzzzzzzzzzzzzzz', 'not-a-key', revoked.id]) {
      const res = await putCap({ key_id: keyId, hard_limit_micros: 1 });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await listCaps()).body).toEqual({ spend_caps: [] });
  });

  it('answers 400 for a test-mode key: it sends nothing billable', async () => {
    const testKey = await createKey(bed.c, accountId, { scope: 'send', test_mode: true }, { testMode: false });

    const res = await putCap({ key_id: testKey.id, hard_limit_micros: 1 });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });

  it('needs a live admin key: read and send keys get 403 forbidden, a test admin key 403, no key 401', async () => {
    expect((await putCap({ hard_limit_micros: 1 }, readKey)).status).toBe(403);
    expect((await putCap({ hard_limit_micros: 1 }, sendKey)).status).toBe(403);
    const test = await putCap({ hard_limit_micros: 1 }, bed.account.test_admin_key);
    expect(test.status).toBe(403);
    expect(test.body.error.code).toBe('forbidden');
    expect((await bed.request({ method: 'PUT', path: '/v1/spend-caps', body: { hard_limit_micros: 1 } })).status).toBe(401);
    expect((await listCaps()).body).toEqual({ spend_caps: [] });
  });
});

describe('GET and DELETE /v1/spend-caps', () => {
  it('lists only the caller\'s caps; read, admin and test keys may read, a send key may not', async () => {
    await putCap({ hard_limit_micros: 700 });
    const other = await createAccount(bed.c, { name: 'other' });

    expect((await listCaps(adminKey)).body.spend_caps).toHaveLength(1);
    expect((await listCaps(bed.account.test_admin_key)).status).toBe(200);
    expect((await listCaps(other.admin_key)).body).toEqual({ spend_caps: [] });
    expect((await listCaps(sendKey)).status).toBe(403);
  });

  it('removes the account cap or a key cap (204); a cap not set, or another account\'s key, is 404', async () => {
    await putCap({ hard_limit_micros: 700 });
    await putCap({ key_id: sendKeyId, hard_limit_micros: 100 });
    const other = await createAccount(bed.c, { name: 'other' });
    const theirs = await createKey(bed.c, other.account_id, { scope: 'send' }, { testMode: false });

    expect((await deleteCap({ key_id: theirs.id })).status).toBe(404);
    expect((await deleteCap({ key_id: 'nonsense' })).status).toBe(404);
    const removedKeyCap = await deleteCap({ key_id: sendKeyId });
    const removedAccountCap = await deleteCap();
    const again = await deleteCap();

    expect(removedKeyCap.status).toBe(204);
    expect(removedAccountCap.status).toBe(204);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
    expect((await listCaps()).body).toEqual({ spend_caps: [] });
  });

  it('needs a live admin key to remove a cap', async () => {
    await putCap({ hard_limit_micros: 700 });

    expect((await deleteCap({}, readKey)).status).toBe(403);
    expect((await deleteCap({}, bed.account.test_admin_key)).status).toBe(403);
    expect((await listCaps()).body.spend_caps).toHaveLength(1);
  });
});

describe('a hard cap where sends are accepted', () => {
  it('refuses the send that would pass the cap with 402 spend_cap_exceeded, storing and billing nothing', async () => {
    await putCap({ hard_limit_micros: 200 });
    const first = await send();
    const second = await send();
    const refusedBody = email();
    const refused = await send(refusedBody);

    expect([first.status, second.status]).toEqual([201, 201]);
    expect(refused.status).toBe(402);
    expect(refused.body).toEqual({ error: { code: 'spend_cap_exceeded', message: expect.any(String), status: 402 } });
    expect(await findByIdempotencyKey(bed.c.store, accountId, refusedBody.idempotency_key)).toBeUndefined();
    expect(sendJobs()).toHaveLength(2);
    expect((await usage()).body.total_cost_micros).toBe(200);
  });

  it('lets the refused key through once the cap is raised, and replays an accepted send past the cap', async () => {
    await putCap({ hard_limit_micros: 100 });
    const acceptedBody = email();
    const accepted = await send(acceptedBody);
    const refusedBody = email();
    expect((await send(refusedBody)).status).toBe(402);

    const replay = await send(acceptedBody);
    await putCap({ hard_limit_micros: 200 });
    const retried = await send(refusedBody);

    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(accepted.body.id);
    expect(retried.status).toBe(201);
    expect((await usage()).body.total_cost_micros).toBe(200);
  });

  it('gives back what a retry reserved: retries of one send cost it once and leave the room to others', async () => {
    await putCap({ hard_limit_micros: 200 });
    const body = email();

    const copies = [await send(body), await send(body), await send(body)];
    const other = await send();

    expect(copies.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(new Set(copies.map((r) => r.body.id)).size).toBe(1);
    expect(other.status).toBe(201);
    expect((await usage()).body.total_cost_micros).toBe(200);
  });

  it('lets exactly 10 of 50 racing sends through a cap with room for 10', async () => {
    await putCap({ hard_limit_micros: 1000 });
    const sender = { accountId, keyId: sendKeyId, testMode: false };

    // Straight to the use case: 50 requests at once through the handler would meet the rate limit first.
    const results = (await Promise.all(Array.from({ length: 50 }, () => acceptSends(bed.c, sender, [email()], { batch: false })))).flat();

    expect(results.filter((r) => r.kind === 'accepted')).toHaveLength(10);
    expect(results.filter((r) => r.kind === 'rejected' && r.error.code === 'spend_cap_exceeded')).toHaveLength(40);
    expect(sendJobs()).toHaveLength(10);
    expect((await usage()).body.total_cost_micros).toBe(1000);
  });

  it('racing batches share the last of the room exactly: 15 of 4 × 10 items against room for 15', async () => {
    await putCap({ hard_limit_micros: 1500 });
    const sender = { accountId, keyId: sendKeyId, testMode: false };

    const results = (await Promise.all(Array.from({ length: 4 }, () => acceptSends(bed.c, sender, Array.from({ length: 10 }, () => email()), { batch: true })))).flat();

    expect(results.filter((r) => r.kind === 'accepted')).toHaveLength(15);
    expect(results.filter((r) => r.kind === 'rejected' && r.error.code === 'spend_cap_exceeded')).toHaveLength(25);
    expect((await usage()).body.total_cost_micros).toBe(1500);
  });

  it('a batch: the items that fit pass, each later one gets its own 402 result', async () => {
    await putCap({ hard_limit_micros: 250 });
    const items = [email(), email({ destination: { email: 'not an address' } }), email(), email(), email()];

    const res = await batch(items);

    expect(res.status).toBe(200);
    expect(res.body.map((r: { status?: number; error?: { code: string } }) => r.error?.code ?? 'ok')).toEqual(['ok', 'invalid_destination', 'ok', 'spend_cap_exceeded', 'spend_cap_exceeded']);
    expect(res.body[3].error).toEqual({ code: 'spend_cap_exceeded', message: expect.any(String), status: 402 });
    expect(sendJobs()).toHaveLength(2);
    expect((await usage()).body.total_cost_micros).toBe(200);
  });

  it('a key cap holds that key alone; the account cap holds every key', async () => {
    await putCap({ key_id: sendKeyId, hard_limit_micros: 100 });
    const other = await createKey(bed.c, accountId, { scope: 'send' }, { testMode: false });

    expect((await send()).status).toBe(201);
    expect((await send()).status).toBe(402);
    expect((await send(email(), other.key)).status).toBe(201);
    await putCap({ hard_limit_micros: 200 });
    expect((await send(email(), other.key)).status).toBe(402);
  });

  it('never holds test-mode sends, which cost nothing', async () => {
    await putCap({ hard_limit_micros: 0 });

    const test = await send(email({ destination: { email: 'delivered@example.com' } }), bed.account.test_admin_key);
    const live = await send();

    expect(test.status).toBe(201);
    expect(live.status).toBe(402);
    expect((await usage()).body.total_cost_micros).toBe(0);
  });

  it('gives the reservation back when a send is suppressed before dispatch or a scheduled one is canceled', async () => {
    await putCap({ hard_limit_micros: 200 });
    const later = await send(email({ destination: { email: 'later-gone@example.com' } }));
    const scheduled = await send(email({ scheduled_at: new Date(bed.c.clock.now().getTime() + 3600_000).toISOString() }));
    expect((await send()).status).toBe(402);
    expect((await bed.request({ method: 'POST', path: '/v1/suppressions', key: adminKey, body: { channel: 'email', recipient: 'later-gone@example.com' } })).status).toBe(201);

    const job = sendJobs().find((j) => j.message_id === later.body.id)!;
    expect(await sendWorker(sqsEvent([sqsRecord(job)]))).toEqual({ batchItemFailures: [] });
    expect((await bed.request({ method: 'POST', path: `/v1/messages/${scheduled.body.id}/cancel`, key: adminKey })).status).toBe(200);

    expect((await usage()).body.total_cost_micros).toBe(0);
    expect((await send()).status).toBe(201);
    expect((await send()).status).toBe(201);
    expect((await send()).status).toBe(402);
  });

  it('a bulk send: recipients past the cap are refused (failed_count) and nothing is stored for them', async () => {
    await putCap({ hard_limit_micros: 200 });
    const recipients = ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'].map((address) => ({ email: address }));
    const created = await bed.request({
      method: 'POST',
      path: '/v1/send/bulk',
      key: sendKey,
      body: { from_email: 'news@acme.test', subject: 'News', body_text: 'News', recipients },
    });
    expect(created.status).toBe(202);

    await drain(bed.c.sent, 'fanout', fanOut, { where: (body) => 'chunk' in body });

    expect(await bed.c.store.get<BroadcastItem>(keys.broadcast(accountId, created.body.id))).toMatchObject({ sent_count: 2, failed_count: 2 });
    expect(sendJobs()).toHaveLength(2);
    expect((await usage()).body.total_cost_micros).toBe(200);
  });
});
