// A suspended account sends nothing more (issue 28): what it accepted before the suspension, queued
// sends, scheduled sends that come due, Mail app sends and a broadcast's messages, fails at the send
// worker with the reason on its timeline, its spend given back, and stays failed once the account
// is unsuspended. The account is suspended through the staff route, as an operator does it.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createKey } from '../../shared/accounts/api-keys/service';
import { recipientIdempotencyKey } from '../../shared/audiences/broadcasts/fan-out';
import type { BroadcastItem } from '../../shared/audiences/broadcasts/model';
import { keys } from '../../shared/db/keys';
import { findByIdempotencyKey } from '../../shared/sending/messages/query';
import { readTimeline } from '../../shared/sending/messages/timeline';
import { TEST_SECRETS } from '../support/container';
import type { HttpEventInput } from '../support/events';
import { drain, sqsEvent, sqsRecord, takeJobs } from '../support/sqs';
import { emailSends } from '../support/send-body';
import { useTestbed } from '../support/testbed';
import { storeCommandsDuring } from '../support/store-commands';
import { sendWorker, fanOut } from '../support/consumers';

const bed = useTestbed({ scopedKeys: true });
let ip = 0;
const req = (input: HttpEventInput) => bed.request(input);

async function setSuspended(suspended: boolean): Promise<void> {
  const path = `/v1/admin/accounts/${bed.account.account_id}/${suspended ? 'suspend' : 'unsuspend'}`;
  const res = await req({ method: 'POST', path, key: TEST_SECRETS['staff-token'], sourceIp: `198.51.100.${++ip}` });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const email = emailSends('susp', { to: 'ada@example.com', subject: 'Hello', text: 'Hi' });

async function accept(body: Record<string, unknown> = email(), key = bed.sendKey): Promise<string> {
  const res = await req({ method: 'POST', path: '/v1/send', key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** The send queue's jobs for these messages (all of them when none is named), taken off the recorder. */
const takeSendJobs = (ids?: string[]) => takeJobs(bed.c.sent, 'send', (body: { message_id: string }) => !ids || ids.includes(body.message_id));

async function expectFailedForSuspension(id: string): Promise<void> {
  const { message, events } = await readTimeline(bed.c.store, id);
  expect(message?.status).toBe('failed');
  expect(events.map((e) => ({ type: e.type, source: e.source, payload: e.payload }))).toEqual([
    { type: 'failed', source: 'worker', payload: { error: 'not sent: the account is suspended', reason: 'account_suspended' } },
  ]);
}

/** GetItem calls on the account item while `run` runs. */
async function accountReadsDuring(run: () => Promise<unknown>): Promise<number> {
  const account = keys.account(bed.account.account_id);
  const commands = await storeCommandsDuring(bed.c.store, run);
  return commands.filter(({ name, input }) => name === 'GetCommand' && input.Key?.pk === account.pk && input.Key?.sk === account.sk).length;
}

beforeEach(() => {
  bed.c.sent.length = 0;
});

describe('the send worker, for a suspended account', () => {
  it('fails every queued message of a batch with the reason, mails nothing, bills nothing, and reads the account once for the batch', async () => {
    const testKey = (await createKey(bed.c, bed.account.account_id, { scope: 'send', test_mode: true }, { testMode: false })).key;
    const ids = [
      await accept(),
      await accept(email({ destination: { email: 'bob@example.com' } })),
      // A test-mode message would only record simulated events, and a webhook message posts: neither goes on either.
      await accept(email(), testKey),
    ];
    await setSuspended(true);

    let out: Awaited<ReturnType<typeof sendWorker>> | undefined;
    const reads = await accountReadsDuring(async () => {
      out = await sendWorker(sqsEvent(takeSendJobs(ids).map((job) => sqsRecord(job))));
    });

    expect(out?.batchItemFailures).toEqual([]);
    expect(reads).toBe(1);
    expect(bed.c.mailed).toEqual([]);
    for (const id of ids) await expectFailedForSuspension(id);
    await setSuspended(false);
    const usage = await req({ method: 'GET', path: '/v1/usage', key: bed.readKey });
    expect(usage.body).toMatchObject({ total_send_count: 0, total_cost_micros: 0 });
  });

  it('leaves the failed messages failed once the account is unsuspended: a redelivered job sends nothing', async () => {
    const id = await accept();
    const [job] = takeSendJobs([id]);
    await setSuspended(true);
    expect((await sendWorker(sqsEvent([sqsRecord(job)]))).batchItemFailures).toEqual([]);

    await setSuspended(false);
    expect((await sendWorker(sqsEvent([sqsRecord(job, 2)]))).batchItemFailures).toEqual([]);

    expect(bed.c.mailed).toEqual([]);
    await expectFailedForSuspension(id);
    const view = await req({ method: 'GET', path: `/v1/messages/${id}`, key: bed.readKey });
    expect(view.body.status).toBe('failed');
  });

  it('fails a scheduled send that comes due while the account is suspended; one due after the unsuspension goes out', async () => {
    const at = (minutes: number) => new Date(bed.c.clock.now().getTime() + minutes * 60_000).toISOString();
    const early = await accept(email({ scheduled_at: at(10) }));
    const late = await accept(email({ scheduled_at: at(60), destination: { email: 'bob@example.com' } }));
    await setSuspended(true);

    expect(await bed.c.scheduler.fireDue(new Date(bed.c.clock.now().getTime() + 15 * 60_000), bed.c.queue)).toBe(1);
    expect((await sendWorker(sqsEvent(takeSendJobs().map((job) => sqsRecord(job))))).batchItemFailures).toEqual([]);
    await setSuspended(false);
    expect(await bed.c.scheduler.fireDue(new Date(bed.c.clock.now().getTime() + 90 * 60_000), bed.c.queue)).toBe(1);
    expect((await sendWorker(sqsEvent(takeSendJobs().map((job) => sqsRecord(job))))).batchItemFailures).toEqual([]);

    await expectFailedForSuspension(early);
    expect((await readTimeline(bed.c.store, late)).message?.status).toBe('sent');
    expect(bed.c.mailed.map((m) => m.to)).toEqual(['bob@example.com']);
  });

  it('fails a Mail app message accepted before the suspension', async () => {
    const res = await req({ method: 'POST', path: '/v1/mail/compose', key: bed.sendKey, body: { to: 'ada@example.com', from: 'team@acme.test', subject: 'Hello', body_text: 'Hi' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    await setSuspended(true);

    expect((await sendWorker(sqsEvent(takeSendJobs([res.body.id]).map((job) => sqsRecord(job))))).batchItemFailures).toEqual([]);

    expect(bed.c.mailed).toEqual([]);
    await expectFailedForSuspension(res.body.id);
  });

  it('fails the messages a broadcast fanned out before the suspension, and its stats count them failed, not sent', async () => {
    const recipients = ['ada@example.com', 'bob@example.com'];
    const res = await req({
      method: 'POST',
      path: '/v1/send/bulk',
      key: bed.sendKey,
      body: { from_email: 'news@acme.test', subject: 'News', body_text: 'News', recipients: recipients.map((address) => ({ email: address })) },
    });
    expect(res.status).toBe(202);
    await drain(bed.c.sent, 'fanout', fanOut);
    await setSuspended(true);

    expect((await sendWorker(sqsEvent(takeSendJobs().map((job) => sqsRecord(job))))).batchItemFailures).toEqual([]);

    expect(bed.c.mailed).toEqual([]);
    for (const recipient of recipients) {
      const claim = await findByIdempotencyKey(bed.c.store, bed.account.account_id, recipientIdempotencyKey(res.body.id, recipient));
      await expectFailedForSuspension(claim?.message_id ?? '');
    }
    await setSuspended(false);
    const view = await req({ method: 'GET', path: `/v1/broadcasts/${res.body.id}`, key: bed.readKey });
    // Every recipient was handed to the send pipeline (the broadcast's `sent`); its stats say what became of them.
    expect(view.body.stats).toMatchObject({ total: 2, sent: 0, failed: 2 });
    expect((await bed.c.store.get<BroadcastItem>(keys.broadcast(bed.account.account_id, res.body.id)))?.status).toBe('sent');
  });
});
