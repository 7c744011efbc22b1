// A reputation pause (shared/billing/reputation) at the levels the operator set (REPUTATION_*), and what it
// stops: live mail the account accepted before the pause (queued, scheduled, a broadcast's chunks
// not yet fanned out) fails at the send worker or the fan-out with the reason recorded, as a
// suspension does, and stays failed after the lift; test-mode mail goes on. The account is paused
// through real SES notifications into the ses-events consumer.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getAccount } from '../../shared/accounts/service';
import { createKey } from '../../shared/accounts/api-keys/service';
import type { BroadcastItem } from '../../shared/audiences/broadcasts/model';
import { keys } from '../../shared/db/keys';
import { readTimeline } from '../../shared/sending/messages/timeline';
import type { ReputationAlertJob } from '../../shared/billing/reputation/alert-job';
import { readLocalSettings } from '../../shared/runtime/config';
import { countSentEmail } from '../../shared/billing/reputation/service';
import { TEST_SECRETS } from '../support/container';
import { bounceNotification, seedSentMessage, snsWrap } from '../support/ses-events';
import { drain, sqsEvent, sqsRecord, takeJobs } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker, fanOut, ingestSesEvent as ingest } from '../support/consumers';

const bed = useTestbed({ scopedKeys: true });
let accountId: string;
beforeEach(() => {
  accountId = bed.account.account_id;
});
afterEach(() => {
  delete bed.c.config.reputation;
});

let n = 0;
const later = (seconds: number): string => new Date(bed.c.clock.now().getTime() + seconds * 1000).toISOString();

async function sends(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await countSentEmail(bed.c.store, { account_id: accountId, channel: 'email' }, bed.c.clock.now().toISOString());
}

/** Hard bounces, one SES notification per new sent message, through the real consumer. */
async function bounces(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const sent = await seedSentMessage(bed.c, { accountId });
    expect(await ingest(sqsEvent([sqsRecord(snsWrap(bounceNotification(sent.target, { at: later(1), bounceType: 'Permanent' })))]))).toEqual({ batchItemFailures: [] });
  }
}

const stateOf = async () => (await getAccount(bed.c.store, accountId))?.reputation_state;
const alertJobs = () => bed.c.sent.filter((s) => s.queue === 'send' && (s.body as { kind?: string }).kind === 'reputation_alert').map((s) => s.body as ReputationAlertJob);

/** Pauses the account at the default levels: 16 hard bounces over 200 sends is 8%. */
async function pause(): Promise<void> {
  await sends(200);
  await bounces(16);
  expect(await stateOf()).toBe('paused');
}

const email = (over: Record<string, unknown> = {}) => ({
  channel: 'email',
  idempotency_key: `rep-pause-${++n}`,
  destination: { email: 'ada@example.com' },
  payload: { subject: 'Hello', body_text: 'Hi' },
  metadata: { from_email: 'hello@acme.test' },
  ...over,
});

async function accept(body: Record<string, unknown> = email(), key = bed.sendKey): Promise<string> {
  const res = await bed.request({ method: 'POST', path: '/v1/send', key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

/** The send queue's jobs for messages (all when none is named), taken off the recorder. */
const takeSendJobs = (ids?: string[]) => takeJobs(bed.c.sent, 'send', (body: { message_id: string }) => !('kind' in body) && (!ids || ids.includes(body.message_id)));

async function expectFailedForPause(id: string): Promise<void> {
  const { message, events } = await readTimeline(bed.c.store, id);
  expect(message?.status).toBe('failed');
  expect(events.map((e) => ({ type: e.type, source: e.source, payload: e.payload }))).toEqual([
    { type: 'failed', source: 'worker', payload: { error: 'not sent: live sending is paused: the bounce or complaint rate passed the pause level', reason: 'sending_paused' } },
  ]);
}

const lift = async () => expect((await bed.request({ method: 'POST', path: `/v1/admin/accounts/${accountId}/reputation/lift`, key: TEST_SECRETS['staff-token'] })).status).toBe(200);

describe('levels the operator set', () => {
  it('warn and pause at them, not at the defaults, and GET /v1/usage and the alert mail show them', async () => {
    bed.c.config.reputation = readLocalSettings({ REPUTATION_MIN_SENDS: '100', REPUTATION_WARN_BOUNCE_RATE: '0.01', REPUTATION_PAUSE_BOUNCE_RATE: '0.03' }).reputation;
    await sends(100);
    // 1 of 100 (1%): below the default minimum of 200 sends nothing would be judged.
    await bounces(1);
    expect(await stateOf()).toBe('warned');
    await bounces(1);
    expect(await stateOf()).toBe('warned');
    // 3 of 100: 3%, this deployment's pause level (the default pauses at 8%).
    await bounces(1);
    expect(await stateOf()).toBe('paused');

    const usage = await bed.request({ method: 'GET', path: '/v1/usage', key: bed.readKey });
    expect(usage.body.reputation).toMatchObject({ state: 'paused', sends: 100, bounces: 3, min_sends: 100, warn_bounce_rate: 0.01, pause_bounce_rate: 0.03, warn_complaint_rate: 0.0008, pause_complaint_rate: 0.003 });
    expect(await sendWorker(sqsEvent(alertJobs().map((j) => sqsRecord(j))))).toEqual({ batchItemFailures: [] });
    expect(bed.c.mailed.map((m) => m.subject)).toEqual(['Warning: bounce or complaint rate is high', 'Live sending paused: bounce or complaint rate too high']);
    expect(bed.c.mailed[1]?.text).toContain('Warning at 1.00% bounces or 0.08% complaints; pause at 3.00% or 0.30%.');
  });

  it('the defaults would not have judged the same window', async () => {
    await sends(100);
    await bounces(3);
    expect(await stateOf()).toBeUndefined();
  });
});

describe('live mail accepted before the pause', () => {
  it('fails at the send worker with the reason, mails nothing, bills nothing; a test-mode message goes on', async () => {
    const testKey = (await createKey(bed.c, accountId, { scope: 'send', test_mode: true }, { testMode: false })).key;
    const live = [await accept(), await accept(email({ destination: { email: 'bob@example.com' } }))];
    const simulated = await accept(email(), testKey);
    await pause();
    // Counted when accepted (the window's sends below are the reputation's, not usage's).
    expect((await bed.request({ method: 'GET', path: '/v1/usage', key: bed.readKey })).body).toMatchObject({ total_send_count: 2, total_cost_micros: 200 });

    expect(await sendWorker(sqsEvent(takeSendJobs([...live, simulated]).map((job) => sqsRecord(job))))).toEqual({ batchItemFailures: [] });

    expect(bed.c.mailed).toEqual([]);
    for (const id of live) await expectFailedForPause(id);
    expect((await readTimeline(bed.c.store, simulated)).message?.status).toBe('delivered');
    const usage = await bed.request({ method: 'GET', path: '/v1/usage', key: bed.readKey });
    // The failed ones' count and reserved cost are given back.
    expect(usage.body).toMatchObject({ total_send_count: 0, total_cost_micros: 0 });
  });

  it('stays failed after staff lift the pause: a redelivered job sends nothing, a new send goes', async () => {
    const id = await accept();
    const [job] = takeSendJobs([id]);
    await pause();
    expect((await sendWorker(sqsEvent([sqsRecord(job)]))).batchItemFailures).toEqual([]);

    await lift();
    expect((await sendWorker(sqsEvent([sqsRecord(job, 2)]))).batchItemFailures).toEqual([]);
    await expectFailedForPause(id);
    expect(bed.c.mailed).toEqual([]);

    const fresh = await accept();
    expect((await sendWorker(sqsEvent(takeSendJobs([fresh]).map((j) => sqsRecord(j))))).batchItemFailures).toEqual([]);
    expect((await readTimeline(bed.c.store, fresh)).message?.status).toBe('sent');
    expect(bed.c.mailed.map((m) => m.to)).toEqual(['ada@example.com']);
  });

  it('fails a scheduled send that comes due while paused', async () => {
    const id = await accept(email({ scheduled_at: new Date(bed.c.clock.now().getTime() + 10 * 60_000).toISOString() }));
    await pause();

    expect(await bed.c.scheduler.fireDue(new Date(bed.c.clock.now().getTime() + 15 * 60_000), bed.c.queue)).toBe(1);
    expect((await sendWorker(sqsEvent(takeSendJobs([id]).map((job) => sqsRecord(job))))).batchItemFailures).toEqual([]);

    expect(bed.c.mailed).toEqual([]);
    await expectFailedForPause(id);
  });

  it('stops a live broadcast already started: its chunks fan out nothing and it fails with the reason', async () => {
    const made = await bed.request({
      method: 'POST',
      path: '/v1/broadcasts',
      key: bed.sendKey,
      body: { from_email: 'news@acme.test', name: 'News', subject: 'News', body_text: 'News for you', recipients: [{ email: 'ada@example.com' }, { email: 'bob@example.com' }], send_now: true },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await pause();

    await drain(bed.c.sent, 'fanout', fanOut);

    expect(takeSendJobs()).toEqual([]);
    const stored = await bed.c.store.get<BroadcastItem>(keys.broadcast(accountId, made.body.id));
    expect(stored).toMatchObject({ status: 'failed', failure_reason: 'live sending is paused: the bounce or complaint rate passed the pause level' });
  });

  it('leaves a test-mode broadcast alone', async () => {
    const testKey = (await createKey(bed.c, accountId, { scope: 'send', test_mode: true }, { testMode: false })).key;
    const made = await bed.request({
      method: 'POST',
      path: '/v1/broadcasts',
      key: testKey,
      body: { from_email: 'news@acme.test', name: 'News', subject: 'News', body_text: 'News for you', recipients: [{ email: 'ada@example.com' }], send_now: true },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await pause();

    await drain(bed.c.sent, 'fanout', fanOut);

    expect(takeSendJobs()).toHaveLength(1);
    expect((await bed.c.store.get<BroadcastItem>(keys.broadcast(accountId, made.body.id)))?.status).toBe('sent');
  });
});
