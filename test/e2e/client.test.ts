// The typed client (client/) against the local runtime in its own process: a fresh account made
// with the staff token, sends in test mode, lists walked with paginate, keys, suppressions, and a
// real webhook delivery to a loopback receiver checked with the client's verifySignature.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Postbox, PostboxError, verifySignature } from '../../client/src/index';
import { startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { startHttpReceiver, type Receiver } from '../support/receivers';
import { waitFor } from '../support/wait';

let dataDir: string;
let runtime: RuntimeProcess;
let receiver: Receiver;
/** Admin keys of the account the test makes: test mode (sends) and live (live-only routes). */
let test: Postbox;
let live: Postbox;
let accountId: string;

/**
 * The per-second limiter answers 429 with Retry-After and the runtime may shed load (503): the
 * client waits and sends again on its own, which is the behaviour under test, so enough retries
 * that a busy machine does not fail the run.
 */
const client = (apiKey: string): Postbox => new Postbox({ apiKey, baseUrl: runtime.url, maxRetries: 20 });

const email = (key: string, to = 'delivered@example.com') => ({
  channel: 'email' as const,
  idempotency_key: key,
  destination: { email: to },
  payload: { subject: `client ${key}`, body_text: 'hello from the typed client' },
});

/** The error a call rejects with. */
async function failureOf(call: Promise<unknown>): Promise<PostboxError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof PostboxError)) throw new Error(`expected a PostboxError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  receiver = await startHttpReceiver();
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-client-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE: 'true' });
  const { staff_token } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { staff_token: string };
  const account = await client(staff_token).admin.createAccount({ name: 'typed client' });
  accountId = account.account_id;
  test = client(account.test_admin_key);
  live = client(account.admin_key);
});
afterAll(async () => {
  await runtime?.stop();
  await receiver?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('sending', () => {
  it('sends one message and reads it back by id and by idempotency key', async () => {
    const sent = await test.send(email('client-one'));
    const again = await test.send(email('client-one'));
    const byId = await test.messages.get(sent.id);
    const byKey = await test.messages.getByIdempotencyKey('client-one');

    expect(sent).toMatchObject({ status: 'queued', channel: 'email', idempotency_key: 'client-one' });
    expect(again.id).toBe(sent.id);
    expect(byId).toMatchObject({ id: sent.id, idempotency_key: 'client-one', test_mode: true });
    expect(Array.isArray(byId.events)).toBe(true);
    expect(byKey.id).toBe(sent.id);
  });

  it('sends a batch, each item on its own', async () => {
    const results = await test.sendBatch([email('client-batch-1'), email('client-batch-2'), { ...email('client-batch-3'), destination: { email: 'not an address' } }]);

    expect(results.map((r) => r.success)).toEqual([true, true, false]);
    const failed = results[2];
    expect(failed && !failed.success ? failed.error : undefined).toMatchObject({ code: 'invalid_destination', status: 422 });
  });

  it('walks every message with paginate, two a page', async () => {
    const listed: string[] = [];
    for await (const message of test.paginate(test.messages.list, { limit: 2 })) listed.push(message.id);
    const first = await test.messages.list({ limit: 2 });

    expect(first.messages).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    expect(listed.length).toBeGreaterThanOrEqual(3);
    expect(new Set(listed).size).toBe(listed.length);
    for (const key of ['client-one', 'client-batch-1', 'client-batch-2']) {
      expect(listed).toContain((await test.messages.getByIdempotencyKey(key)).id);
    }
  });
});

describe('typed errors', () => {
  it('throws PostboxError with the code, status and request id of a bad request', async () => {
    const { idempotency_key: _dropped, ...noKey } = email('unused');
    const error = await failureOf(test.send(noKey as ReturnType<typeof email>));

    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'PostboxError', code: 'invalid_request', status: 400 });
    expect(error.requestId).toEqual(expect.any(String));
    expect(error.message).toContain('idempotency_key');
  });

  it('throws not_found for a message that is not there, and forbidden for a live-only route with a test key', async () => {
    expect(await failureOf(test.messages.get('msg_missing'))).toMatchObject({ code: 'not_found', status: 404 });
    expect(await failureOf(test.suppressions.remove({ channel: 'email', recipient: 'x@example.com' }))).toMatchObject({ code: 'forbidden', status: 403 });
  });
});

describe('keys', () => {
  it('creates, rotates and revokes a key; the old secrets stop working', async () => {
    const created = await live.keys.create({ scope: 'read', name: 'client e2e' });
    const reader = client(created.key);
    const before = await reader.usage.get();
    const rotated = await live.keys.rotate(created.id);
    const oldSecret = await failureOf(reader.usage.get());
    await live.keys.revoke(created.id);
    const revoked = await failureOf(client(rotated.key).usage.get());
    const keys: string[] = [];
    for await (const key of live.paginate(live.keys.list)) if (key.is_revoked) keys.push(key.id);

    expect(created).toMatchObject({ scope: 'read', name: 'client e2e', test_mode: false });
    expect(before.period).toMatch(/^\d{4}-\d{2}$/);
    expect(rotated.id).toBe(created.id);
    expect(rotated.key).not.toBe(created.key);
    expect(oldSecret).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(revoked).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(keys).toContain(created.id);
  });
});

describe('suppressions', () => {
  it('adds, lists and removes a suppression', async () => {
    const added = await live.suppressions.add({ channel: 'email', recipient: 'Blocked@Example.com', reason: 'asked to stop' });
    const listed = await live.suppressions.list({ channel: 'email' });
    // A test-mode send honours the account's suppressions too (a live one would need a verified recipient in the sandbox).
    const refused = await failureOf(test.send(email('client-to-suppressed', 'blocked@example.com')));
    await live.suppressions.remove({ channel: 'email', recipient: 'blocked@example.com' });
    const after = await live.suppressions.list({ channel: 'email' });

    expect(added).toMatchObject({ channel: 'email', recipient: 'blocked@example.com', state: 'suppressed' });
    expect(listed.suppressions.map((s) => s.recipient)).toContain('blocked@example.com');
    expect(refused).toMatchObject({ code: 'recipient_suppressed', status: 409 });
    expect(after.suppressions.map((s) => s.recipient)).not.toContain('blocked@example.com');
  });
});

describe('webhooks', () => {
  it('receives a signed delivery that verifySignature accepts, with the secret it was signed with only', async () => {
    const sub = await test.webhooks.create({ endpoint_url: `${receiver.url}/hooks`, event_types: ['delivered'] });
    const sent = await test.send(email('client-webhook'));

    const [request] = await receiver.waitFor(1, 30_000);
    const raw = request!.body;
    const event = JSON.parse(raw.toString('utf8')) as { event_type: string; message_id: string; account_id: string };

    expect(sub.signing_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(event).toMatchObject({ event_type: 'delivered', message_id: sent.id, account_id: accountId });
    expect(await verifySignature({ payload: raw, headers: request!.headers, secret: sub.signing_secret })).toBe(true);
    expect(await verifySignature({ payload: raw.toString('utf8'), headers: request!.headers, secret: sub.signing_secret })).toBe(true);
    expect(await verifySignature({ payload: raw, headers: request!.headers, secret: 'f'.repeat(64) })).toBe(false);
    expect(await verifySignature({ payload: Buffer.concat([raw, Buffer.from(' ')]), headers: request!.headers, secret: sub.signing_secret })).toBe(false);
  });

  it('lists, reads, updates, rotates, shows deliveries and removes a subscription', async () => {
    const { webhooks } = await test.webhooks.list();
    const sub = webhooks[0]!;
    const read = await test.webhooks.get(sub.id);
    const paused = await test.webhooks.update(sub.id, { is_active: false });
    const rotated = await test.webhooks.rotateSecret(sub.id);
    // The receiver got the request before the worker wrote down its answer: wait for the log to say so.
    const deliveries = await waitFor(async () => {
      const statuses: string[] = [];
      for await (const d of test.paginate((q) => test.webhooks.deliveries(sub.id, q))) statuses.push(d.status);
      return statuses.includes('pending') ? undefined : statuses;
    }, { what: 'the delivery log to record the answer', timeoutMs: 20_000 });
    const removed = await test.webhooks.remove(sub.id);
    const gone = await failureOf(test.webhooks.get(sub.id));

    expect(webhooks).toHaveLength(1);
    expect(read).toMatchObject({ id: sub.id, is_active: true, event_types: ['delivered'] });
    expect(read).not.toHaveProperty('signing_secret');
    expect(paused.is_active).toBe(false);
    expect(rotated.signing_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(deliveries).toEqual(['succeeded']);
    expect(removed).toEqual({ message: expect.any(String) });
    expect(gone).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('account', () => {
  it('reads the domains, the account verification and the usage', async () => {
    const { domains } = await test.domains.list();
    const verification = await test.account.verification();
    const usage = await test.usage.get();

    expect(domains[0]?.sandbox).toBe(true);
    expect(verification).toMatchObject({ account_id: accountId, sandbox_mode: true });
    expect(usage.period).toMatch(/^\d{4}-\d{2}$/);
  });
});
