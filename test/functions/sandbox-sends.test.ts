// What the sandbox lets an account do with the deployment's shared sender (issue 28): no display
// name of the account's choosing on it, on any path that sends from it, and a daily cap on mail to
// the account's own address beside the test recipients' 10 a day.
import { beforeEach, describe, expect, it } from 'vitest';
import { createSignUpAccount, markOwnerVerified } from '../../shared/accounts/service';
import { createKey } from '../../shared/accounts/api-keys/service';
import { keys } from '../../shared/db/keys';
import type { MessageItem } from '../../shared/sending/messages/model';
import { OWN_ADDRESS_SENDS_PER_DAY } from '../../shared/sending/test-recipients/model';
import type { HttpEventInput } from '../support/events';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker } from '../support/consumers';

// Sandbox mode: no verified domain; the account's address is owner@example.com and the shared
// sender onboarding@sandbox.test (test/support/container.ts).
const bed = useTestbed({ sandbox: true });
const OWN = 'owner@example.com';
const SHARED = 'onboarding@sandbox.test';
const POSING = `PayPal Security <${SHARED}>`;

let n = 0;
const req = (input: HttpEventInput) => bed.request(input);
const email = (over: Record<string, unknown> = {}) => ({
  channel: 'email',
  idempotency_key: `sb-${++n}`,
  destination: { email: OWN },
  payload: { subject: 'Your account is locked', body_text: 'Sign in at once' },
  ...over,
});
const send = (body: unknown, key = bed.account.admin_key) => req({ method: 'POST', path: '/v1/send', key, body });
const sendBatch = (body: unknown, key = bed.account.admin_key) => req({ method: 'POST', path: '/v1/send/batch', key, body });
const stored = (id: string) => bed.c.store.get<MessageItem>(keys.message(id));

function expectNamedSharedSender(res: { status: number; body: any }): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error).toEqual({ code: 'invalid_request', status: 400, message: expect.stringContaining(`the shared sender ${SHARED} takes no display name of your choosing`) });
}

describe('the shared sender', () => {
  it('refuses a display name of the account’s choosing on a single send, in a batch, on a bulk send and a broadcast, with live and test keys', async () => {
    const testKey = (await createKey(bed.c, bed.account.account_id, { scope: 'admin', test_mode: true }, { testMode: false })).key;
    const bulkBody = { from_email: POSING, subject: 'Locked', body_text: 'Sign in', recipients: [{ email: OWN }] };

    const single = await send(email({ metadata: { from_email: POSING } }));
    const quoted = await send(email({ metadata: { from_email: `"Bank" <${SHARED}>` } }));
    const test = await send(email({ metadata: { from_email: POSING } }), testKey);
    const batch = await sendBatch([email({ metadata: { from_email: POSING } }), email()]);
    const bulk = await req({ method: 'POST', path: '/v1/send/bulk', key: bed.account.admin_key, body: bulkBody });
    const broadcast = await req({ method: 'POST', path: '/v1/broadcasts', key: bed.account.admin_key, body: { ...bulkBody, name: 'Phish' } });

    for (const res of [single, quoted, test, bulk, broadcast]) expectNamedSharedSender(res);
    expect(batch.status).toBe(200);
    expect(batch.body[0]).toEqual({ success: false, error: { code: 'invalid_request', status: 400, message: expect.stringContaining('takes no display name') } });
    expect(batch.body[1]).toMatchObject({ success: true });
    // Nothing refused was stored or queued: only the batch's second item went on.
    expect(bed.c.sent.filter((s) => s.queue === 'send')).toHaveLength(1);
    expect(bed.c.sent.filter((s) => s.queue === 'fanout')).toHaveLength(0);
  });

  it('takes the shared sender bare or omitted, and sends it as configured', async () => {
    const bare = await send(email({ metadata: { from_email: SHARED.toUpperCase() } }));
    const omitted = await send(email());

    expect(bare.status).toBe(201);
    expect(omitted.status).toBe(201);
    expect((await stored(bare.body.id))?.from).toBe(SHARED);
    expect((await stored(omitted.body.id))?.from).toBe(SHARED);
  });

  it('is refused to the Mail app, which sends only from a domain of the account’s own', async () => {
    const res = await req({ method: 'POST', path: '/v1/mail/compose', key: bed.account.admin_key, body: { to: OWN, from: POSING, subject: 'Locked', body_text: 'Sign in' } });

    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('no_verified_domain');
  });

  it('goes out under its own name for a message stored with another before the rule (a send scheduled weeks ago)', async () => {
    const accepted = await send(email());
    await bed.c.store.update(keys.message(accepted.body.id), { expression: 'SET #from = :from', names: { '#from': 'from' }, values: { ':from': POSING } });
    const job = bed.c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === accepted.body.id);

    expect((await sendWorker(sqsEvent([sqsRecord(job?.body)]))).batchItemFailures).toEqual([]);

    expect(bed.c.mailed).toHaveLength(1);
    expect(bed.c.mailed[0]?.from).toBe(SHARED);
  });
});

describe('mail to the account’s own address', () => {
  /** A live admin key of an account made by sign-up whose owner has verified their address (still in the sandbox). */
  async function signedUpKey(address = OWN): Promise<string> {
    const id = await createSignUpAccount(bed.c, { email: address });
    await markOwnerVerified(bed.c, id);
    return (await createKey(bed.c, id, { scope: 'admin' }, { testMode: false })).key;
  }

  it(`is capped at ${OWN_ADDRESS_SENDS_PER_DAY} a UTC day for a signed-up account: past that 429 test_send_daily_limit with Retry-After to midnight; a retry is not counted; the next day opens again`, async () => {
    const key = await signedUpKey();
    const first = Array.from({ length: OWN_ADDRESS_SENDS_PER_DAY }, () => email());
    const accepted = await sendBatch(first, key);
    expect(accepted.status).toBe(200);
    expect(accepted.body.every((r: { success: boolean }) => r.success)).toBe(true);

    const retry = await send(first[0], key);
    const over = await send(email(), key);
    const now = bed.c.clock.now();
    const overBatch = await sendBatch([email(), email(), email()], key);

    // A retry of an accepted send answers its first answer and is not counted.
    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(accepted.body[0].response.id);
    expect(over.status).toBe(429);
    expect(over.body.error).toEqual({ code: 'test_send_daily_limit', status: 429, message: expect.stringContaining(`${OWN} has had its ${OWN_ADDRESS_SENDS_PER_DAY} sandbox sends to the account address today`) });
    const midnight = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00.000Z`) + 24 * 3600_000;
    expect(over.headers['retry-after']).toBe(String(Math.ceil((midnight - now.getTime()) / 1000)));
    expect(overBatch.body.map((r: any) => r.error?.code)).toEqual(['test_send_daily_limit', 'test_send_daily_limit', 'test_send_daily_limit']);
    // The retry handed its job on again for the same message (the dispatch lease sends it once).
    expect(new Set(bed.c.sent.filter((s) => s.queue === 'send').map((s) => (s.body as { message_id: string }).message_id)).size).toBe(OWN_ADDRESS_SENDS_PER_DAY);

    bed.c.clock.set(new Date(midnight + 1000));
    expect((await send(email(), key)).status).toBe(201);
  });

  it('is not capped for a test-mode key, which sends nothing', async () => {
    const id = await createSignUpAccount(bed.c, { email: OWN });
    await markOwnerVerified(bed.c, id);
    const testKey = (await createKey(bed.c, id, { scope: 'send', test_mode: true }, { testMode: false })).key;

    const res = await sendBatch(Array.from({ length: OWN_ADDRESS_SENDS_PER_DAY + 1 }, () => email()), testKey);

    expect(res.body.filter((r: { success: boolean }) => r.success)).toHaveLength(OWN_ADDRESS_SENDS_PER_DAY + 1);
  });

  it('is not capped for an account the operator made (the staff route, npm start’s own), whose address is the operator’s word', async () => {
    const res = await sendBatch(Array.from({ length: OWN_ADDRESS_SENDS_PER_DAY + 1 }, () => email()));

    expect(res.body.filter((r: { success: boolean }) => r.success)).toHaveLength(OWN_ADDRESS_SENDS_PER_DAY + 1);
  });
});
