// The send queue consumer: provider handoff, worker-shaped events, test-mode simulation,
// retries through the queue and the final attempt.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { RetryableError } from '../../shared/errors';
import { readTimeline } from '../../shared/sending/messages/timeline';
import { PermanentSendError } from '../../shared/ports/mailer';
import { findSuppression, suppress } from '../../shared/sending/suppressions/service';
import { getUsage } from '../../shared/billing/usage/service';
import { call } from '../support/api';
import { useTestbed } from '../support/testbed';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { createHash } from 'node:crypto';
import { sendWorker as handler } from '../support/consumers';

const bed = useTestbed();

let n = 0;
async function accept(to: string, key = bed.account.admin_key, over: Record<string, unknown> = {}): Promise<{ id: string; job: unknown }> {
  const res = await call({
    method: 'POST',
    path: '/v1/send',
    key,
    body: { channel: 'email', idempotency_key: `w-${++n}`, destination: { email: to }, payload: { subject: 'Subject', body_text: 'text', body_html: '<b>html</b>' }, metadata: { from_email: 'Acme <hi@acme.test>' }, ...over },
  });
  expect(res.status).toBe(201);
  const job = bed.c.sent.find((s) => (s.body as { message_id: string }).message_id === res.body.id)?.body;
  return { id: res.body.id, job };
}
const wkr = (id: string, type: string) => `wkr_${createHash('sha256').update(`${id}:${type}`).digest('hex')}`;

describe('live sends', () => {
  it('hand the message to the mailer with our id as a tag and record a worker-shaped sent event', async () => {
    const { id, job } = await accept('ada@example.com');

    const out = await handler(sqsEvent([sqsRecord(job)]));

    expect(out.batchItemFailures).toEqual([]);
    expect(bed.c.mailed).toEqual([{ from: 'Acme <hi@acme.test>', to: 'ada@example.com', subject: 'Subject', html: '<b>html</b>', text: 'text', messageId: id, accountId: bed.account.account_id }]);
    const { message, events } = await readTimeline(bed.c.store, id);
    const providerId = `ses-1-${id}`;
    expect(message).toMatchObject({ status: 'sent', provider_message_id: providerId });
    expect(events).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^evt_/), type: 'sent', source: 'worker', provider_event_id: wkr(id, 'sent'), payload: { provider_message_id: providerId } }),
    ]);
  });

  it('send once and bill once when the job is delivered twice', async () => {
    const { job } = await accept('ada@example.com');

    await handler(sqsEvent([sqsRecord(job)]));
    await handler(sqsEvent([sqsRecord(job, 2)]));

    expect(bed.c.mailed).toHaveLength(1);
    const usage = await getUsage(bed.c, bed.account.account_id);
    expect(usage.total_send_count).toBe(1);
    expect(usage.total_cost_micros).toBe(100);
  });

  it('report a retryable failure for that record only, then succeed on redelivery', async () => {
    const first = await accept('one@example.com');
    const second = await accept('two@example.com');
    bed.c.mailerFailure = new RetryableError('SES throttled');

    const failed = await handler(sqsEvent([sqsRecord(first.job)]));
    bed.c.mailerFailure = undefined;
    const mixed = await handler(sqsEvent([sqsRecord(first.job, 2), sqsRecord(second.job)]));

    expect(failed.batchItemFailures).toHaveLength(1);
    expect(mixed.batchItemFailures).toEqual([]);
    expect((await readTimeline(bed.c.store, first.id)).message?.status).toBe('sent');
  });

  it('record failed with the error for a permanent rejection, and on the last attempt', async () => {
    const rejected = await accept('one@example.com');
    const exhausted = await accept('two@example.com');

    bed.c.mailerFailure = new PermanentSendError('SES refused the message: MessageRejected: Email address is not verified.');
    const a = await handler(sqsEvent([sqsRecord(rejected.job)]));
    bed.c.mailerFailure = new RetryableError('still throttled');
    const b = await handler(sqsEvent([sqsRecord(exhausted.job, 5)]));

    expect(a.batchItemFailures).toEqual([]);
    expect(b.batchItemFailures).toEqual([]);
    for (const { id } of [rejected, exhausted]) {
      const { message, events } = await readTimeline(bed.c.store, id);
      expect(message?.status).toBe('failed');
      expect(events).toEqual([expect.objectContaining({ type: 'failed', source: 'worker', payload: { error: expect.any(String) } })]);
    }
    expect((await getUsage(bed.c, bed.account.account_id)).total_send_count).toBe(0);
  });

  it('record suppressed and send nothing when the recipient was suppressed after acceptance', async () => {
    const { id, job } = await accept('late@example.com');
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'late@example.com', reason: 'manual' });

    await handler(sqsEvent([sqsRecord(job)]));

    expect(bed.c.mailed).toHaveLength(0);
    expect((await readTimeline(bed.c.store, id)).message?.status).toBe('suppressed');
  });

  it('recover the sent event when a provider event overtook a crashed attempt', async () => {
    const { id, job } = await accept('ada@example.com');
    // The attempt reached SES and died; the Delivery notification then set the provider id.
    await bed.c.store.update(keys.message(id), {
      expression: 'SET dispatched_at = :at, provider_message_id = :pmid, #status = :delivered, status_at = :later',
      names: { '#status': 'status' },
      values: { ':at': bed.c.clock.now().toISOString(), ':pmid': 'ses-crashed', ':delivered': 'delivered', ':later': new Date(bed.c.clock.now().getTime() + 1000).toISOString() },
    });

    await handler(sqsEvent([sqsRecord(job, 2)]));
    await handler(sqsEvent([sqsRecord(job, 3)]));

    const { message, events } = await readTimeline(bed.c.store, id);
    expect(bed.c.mailed).toHaveLength(0);
    expect(message?.status).toBe('delivered');
    expect(events.filter((e) => e.type === 'sent')).toEqual([expect.objectContaining({ payload: { provider_message_id: 'ses-crashed' } })]);
    expect((await getUsage(bed.c, bed.account.account_id)).total_send_count).toBe(1);
  });

  it('report a malformed job as failed (for the DLQ) and drop a job for an unknown message', async () => {
    const malformed = sqsRecord('not json');
    const unknown = sqsRecord({ message_id: 'msg_x', account_id: 'acct_y' });

    const out = await handler(sqsEvent([malformed, unknown]));

    expect(out.batchItemFailures).toEqual([{ itemIdentifier: malformed.messageId }]);
    expect(bed.c.mailed).toHaveLength(0);
    expect(bed.c.logs).toContainEqual(expect.objectContaining({ level: 'error', msg: 'poison message on the send queue; it goes to the DLQ after its last receive', recordId: malformed.messageId }));
    expect(bed.c.logs).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'send job for an unknown message; dropped' }));
  });
});

describe('test-mode sends', () => {
  it.each([
    ['delivered@example.com', ['sent', 'delivered'], false],
    ['someone@example.com', ['sent', 'delivered'], false],
    ['bounced@example.com', ['sent', 'bounced'], false],
    ['complained@example.com', ['sent', 'complained'], false],
  ])('%s yields %j, worker-shaped, without reaching the mailer nor the suppression list live mail reads', async (to, types, suppresses) => {
    const { id, job } = await accept(to, bed.account.test_admin_key);

    await handler(sqsEvent([sqsRecord(job)]));

    const { message, events } = await readTimeline(bed.c.store, id);
    expect(bed.c.mailed).toHaveLength(0);
    expect(events.map((e) => e.type).sort()).toEqual([...types].sort());
    expect(events.every((e) => e.source === 'worker' && /^wkr_[0-9a-f]{64}$/.test(e.provider_event_id))).toBe(true);
    const last = events.find((e) => e.type === types[1]);
    expect(last?.payload).toEqual(expect.objectContaining({ detail: expect.any(String) }));
    expect(message).toMatchObject({ status: types[1], test_mode: true });
    expect(Boolean(await findSuppression(bed.c.store, bed.account.account_id, 'email', to))).toBe(suppresses);
    expect((await getUsage(bed.c, bed.account.account_id)).total_send_count).toBe(0);
  });
});
