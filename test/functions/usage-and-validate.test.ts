// Usage and address validation through the handlers: GET /v1/usage counts live sends when they
// are accepted and gives back those that are never sent (never test-mode, suppressed or redelivered
// ones; test/functions/usage-at-acceptance.test.ts has the rest); POST /v1/validate and
// validate_recipient on a send check syntax and whether the domain takes mail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channels } from '../../shared/accounts/service';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { RetryableError } from '../../shared/errors';
import type { Dns } from '../../shared/ports/dns';
import type { SendJob } from '../../shared/sending/messages/messages';
import { UsageRepository } from '../../shared/billing/usage/repository';
import { call } from '../support/api';
import { useTestbed } from '../support/testbed';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { sendWorker } from '../support/consumers';

let sequence = 0;

const bed = useTestbed({ scopedKeys: true });

const request = bed.request;

const sendBody = (overrides: Record<string, unknown> = {}) => ({
  channel: 'email',
  idempotency_key: `usage-test-${++sequence}`,
  destination: { email: 'reader@example.com' },
  payload: { subject: 'Hello', body_text: 'Hello there' },
  metadata: { from_email: 'hello@acme.test' },
  ...overrides,
});
const postSend = (body: unknown, key = bed.sendKey) => request({ method: 'POST', path: '/v1/send', key, body });

async function send(overrides: Record<string, unknown> = {}, key = bed.sendKey): Promise<string> {
  const res = await postSend(sendBody(overrides), key);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const usage = (query: Record<string, string> = {}, key = bed.readKey) => request({ method: 'GET', path: '/v1/usage', key, query });
const validate = (body: unknown, key = bed.sendKey) => request({ method: 'POST', path: '/v1/validate', key, body });
const currentPeriod = () => bed.c.clock.now().toISOString().slice(0, 7);

function jobOf(messageId: string): SendJob {
  const found = bed.c.sent.find((s) => s.queue === 'send' && (s.body as SendJob).message_id === messageId);
  if (!found) throw new Error(`no send job for ${messageId}`);
  return found.body as SendJob;
}

async function runWorker(jobs: SendJob[], receiveCount = 1): Promise<void> {
  const result = await sendWorker(sqsEvent(jobs.map((job) => sqsRecord(job, receiveCount))));
  expect(result.batchItemFailures).toEqual([]);
}

/** The Usage body with `emails` live email sends accepted and not given back (100 micros each), nothing on other channels. */
function usageOf(period: string, emails: number) {
  return {
    period,
    total_send_count: emails,
    broadcast_send_count: 0,
    total_cost_micros: emails * 100,
    channels: channels.map((channel) => ({
      channel,
      send_count: channel === 'email' ? emails : 0,
      broadcast_send_count: 0,
      cost_micros: channel === 'email' ? emails * 100 : 0,
    })),
    // The sending reputation (test/functions/reputation.test.ts covers it).
    reputation: expect.objectContaining({ state: 'ok', bounces: 0, complaints: 0 }),
  };
}

describe('GET /v1/usage', () => {
  it('defaults to the current period with a zero row for each of the five channels', async () => {
    const res = await usage();

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      period: currentPeriod(),
      total_send_count: 0,
      broadcast_send_count: 0,
      total_cost_micros: 0,
      channels: [
        { channel: 'email', send_count: 0, broadcast_send_count: 0, cost_micros: 0 },
        { channel: 'sms', send_count: 0, broadcast_send_count: 0, cost_micros: 0 },
        { channel: 'push', send_count: 0, broadcast_send_count: 0, cost_micros: 0 },
        { channel: 'voice', send_count: 0, broadcast_send_count: 0, cost_micros: 0 },
        { channel: 'webhook', send_count: 0, broadcast_send_count: 0, cost_micros: 0 },
      ],
      reputation: expect.objectContaining({ state: 'ok', sends: 0, bounces: 0, complaints: 0, bounce_rate: 0, complaint_rate: 0, window_hours: 168, min_sends: 200 }),
    });
  });

  it('counts live sends and their cost, 100 micros per email, when they are accepted; the worker adds nothing', async () => {
    const sent = [await send(), await send(), await send()];
    const beforeWorker = await usage();

    await runWorker(sent.map(jobOf));
    const after = await usage();

    expect(beforeWorker.body).toEqual(usageOf(currentPeriod(), 3));
    expect(bed.c.mailed).toHaveLength(3);
    expect(after.body).toEqual(usageOf(currentPeriod(), 3));
  });

  it('leaves out test-mode sends', async () => {
    const live = await send();
    const tests = [
      await send({ destination: { email: 'delivered@example.com' } }, bed.account.test_admin_key),
      await send({ destination: { email: 'bounced@example.com' } }, bed.account.test_admin_key),
    ];

    await runWorker([live, ...tests].map(jobOf));
    const res = await usage();

    expect(res.body).toEqual(usageOf(currentPeriod(), 1));
  });

  it('leaves out sends refused for a suppressed recipient and sends suppressed before dispatch', async () => {
    const suppress = (recipient: string) => request({ method: 'POST', path: '/v1/suppressions', key: bed.sendKey, body: { channel: 'email', recipient } });
    expect((await suppress('gone@example.com')).status).toBe(201);
    const refused = await postSend(sendBody({ destination: { email: 'gone@example.com' } }));
    const queued = await send({ destination: { email: 'later-gone@example.com' } });
    expect((await suppress('later-gone@example.com')).status).toBe(201);
    const delivered = await send();
    expect((await usage()).body).toEqual(usageOf(currentPeriod(), 2));

    await runWorker([queued, delivered].map(jobOf));
    const res = await usage();

    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('recipient_suppressed');
    expect(bed.c.mailed.map((m) => m.messageId)).toEqual([delivered]);
    expect(res.body).toEqual(usageOf(currentPeriod(), 1));
  });

  it('leaves out a send the provider refused on its last attempt', async () => {
    const id = await send();
    expect((await usage()).body).toEqual(usageOf(currentPeriod(), 1));
    bed.c.mailerFailure = new Error('provider unavailable');
    try {
      await runWorker([jobOf(id)], 5);
    } finally {
      bed.c.mailerFailure = undefined;
    }

    const res = await usage();
    const message = await request({ method: 'GET', path: `/v1/messages/${id}`, key: bed.readKey });

    expect(message.body.status).toBe('failed');
    expect(res.body).toEqual(usageOf(currentPeriod(), 0));
  });

  it('counts a redelivered job once', async () => {
    const id = await send();
    const job = jobOf(id);

    await runWorker([job], 1);
    await runWorker([job], 2);
    const res = await usage();

    expect(bed.c.mailed).toHaveLength(1);
    expect(res.body).toEqual(usageOf(currentPeriod(), 1));
  });

  it('reads the month named by ?period and keeps months apart', async () => {
    const february = new UsageRepository(bed.c.store);
    for (const at of ['2026-02-10T08:00:00.000Z', '2026-02-28T23:59:59.999Z']) {
      await february.reserve(bed.account.account_id, at.slice(0, 7), { channel: 'email', kind: 'transactional', count: 1, keyId: 'key_x', micros: 100 });
    }
    await runWorker([jobOf(await send())]);

    const feb = await usage({ period: '2026-02' });
    const current = await usage();
    const january = await usage({ period: '2026-01' });

    expect(feb.body).toEqual(usageOf('2026-02', 2));
    expect(current.body).toEqual(usageOf(currentPeriod(), 1));
    expect(january.body).toEqual(usageOf('2026-01', 0));
  });

  it('shows each account only its own usage', async () => {
    await runWorker([jobOf(await send())]);
    const other = await createAccount(bed.c, { name: 'other' });

    const res = await usage({}, other.admin_key);

    expect(res.body).toEqual(usageOf(currentPeriod(), 0));
  });

  it.each(['2026-13', 'abc', '2026-00', '2026-1', '26-03'])('answers 400 invalid_request naming query.period for %j', async (period) => {
    const res = await usage({ period });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message.startsWith('query.period:')).toBe(true);
  });

  it('needs the read scope: a send key gets 403 forbidden', async () => {
    const res = await usage({}, bed.sendKey);

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });
});

describe('POST /v1/validate', () => {
  it('finds an address on a domain that takes mail valid', async () => {
    const res = await validate({ email: 'jane@example.com' });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ email: 'jane@example.com', valid: true, reason: '' });
  });

  it.each(['not-an-address', 'jane@', '@example.com', 'jane@localhost', 'two@@example.com', 'jane doe@example.com'])(
    'answers valid false, reason invalid_syntax, for %j',
    async (email) => {
      const res = await validate({ email });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ valid: false, reason: 'invalid_syntax' });
    },
  );

  it('answers valid false, reason no_mail_records, for a domain without MX, A or AAAA records', async () => {
    const res = await validate({ email: 'jane@no-mail.invalid-domain.test' });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ email: 'jane@no-mail.invalid-domain.test', valid: false, reason: 'no_mail_records' });
  });

  it('answers valid false, reason dns_unavailable, when the resolver gives no answer', async () => {
    const dns = bed.c.dns;
    bed.c.dns = { acceptsMail: async () => Promise.reject(new RetryableError('DNS lookup timed out')), lookup: async () => Promise.reject(new RetryableError('DNS lookup timed out')) } satisfies Dns;
    try {
      const res = await validate({ email: 'jane@example.com' });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ email: 'jane@example.com', valid: false, reason: 'dns_unavailable' });
    } finally {
      bed.c.dns = dns;
    }
  });

  it.each([
    ['no body', undefined, 'body'],
    ['an empty object', {}, 'body.email'],
    ['a non-string email', { email: 42 }, 'body.email'],
    ['an extra field', { email: 'jane@example.com', deep: true }, 'body'],
    ['an array', ['jane@example.com'], 'body'],
  ])('answers 400 invalid_request for %s', async (_label, body, field) => {
    const res = await validate(body);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message.startsWith(`${field}`)).toBe(true);
  });

  it('accepts send, read and admin keys', async () => {
    for (const key of [bed.sendKey, bed.readKey, bed.account.admin_key]) {
      expect((await validate({ email: 'jane@example.com' }, key)).status).toBe(200);
    }
  });

  it('answers 503 validation_not_configured when validation is off in the deployment', async () => {
    bed.c.config.validationEnabled = false;
    try {
      const res = await validate({ email: 'jane@example.com' });

      expect(res.status).toBe(503);
      expect(res.body.error).toEqual({ code: 'validation_not_configured', message: expect.any(String), status: 503 });
    } finally {
      bed.c.config.validationEnabled = true;
    }
  });
});

describe('validate_recipient on POST /v1/send', () => {
  it('refuses a recipient whose domain takes no mail with 422 recipient_undeliverable and enqueues nothing', async () => {
    const res = await postSend(sendBody({ destination: { email: 'jane@no-mail.invalid-domain.test' }, validate_recipient: true }));

    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({ code: 'recipient_undeliverable', message: expect.any(String), status: 422 });
    expect(bed.c.sent).toEqual([]);
  });

  it('accepts a recipient on a domain that takes mail with 201', async () => {
    const res = await postSend(sendBody({ destination: { email: 'jane@example.org' }, validate_recipient: true }));

    expect(res.status).toBe(201);
    expect(res.body.status).toBe('queued');
    expect(bed.c.sent.map((s) => (s.body as SendJob).message_id)).toEqual([res.body.id]);
  });

  it('does not check the domain unless asked', async () => {
    const res = await postSend(sendBody({ destination: { email: 'jane@no-mail.invalid-domain.test' } }));

    expect(res.status).toBe(201);
  });

  it('sends anyway when the resolver gives no answer', async () => {
    const dns = bed.c.dns;
    bed.c.dns = { acceptsMail: async () => Promise.reject(new RetryableError('DNS lookup timed out')), lookup: async () => Promise.reject(new RetryableError('DNS lookup timed out')) } satisfies Dns;
    try {
      const res = await postSend(sendBody({ validate_recipient: true }));

      expect(res.status).toBe(201);
    } finally {
      bed.c.dns = dns;
    }
  });

  it('answers 503 validation_not_configured when validation is off in the deployment, and enqueues nothing', async () => {
    bed.c.config.validationEnabled = false;
    try {
      const res = await postSend(sendBody({ validate_recipient: true }));

      expect(res.status).toBe(503);
      expect(res.body.error).toEqual({ code: 'validation_not_configured', message: expect.any(String), status: 503 });
      expect(bed.c.sent).toEqual([]);
    } finally {
      bed.c.config.validationEnabled = true;
    }
  });

  it('still sends without validate_recipient when validation is off', async () => {
    bed.c.config.validationEnabled = false;
    try {
      const res = await postSend(sendBody());

      expect(res.status).toBe(201);
    } finally {
      bed.c.config.validationEnabled = true;
    }
  });
});
