// Usage exact across a dead request and its retry: each accepting request is an attempt whose
// messages record it and whose send jobs carry what it reserved, so a reservation another
// attempt's message made surplus, or one whose message was never stored, is given back exactly
// once: by the request itself, or by its job (shared/sending/messages/dispatch.ts).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keys } from '../../shared/db/keys';
import { HANDOFF_WINDOW_MS, type SendJob } from '../../shared/sending/messages/messages';
import { messageIdFor } from '../../shared/sending/messages/message-id';
import type { MessageItem } from '../../shared/sending/messages/model';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { emailSends } from '../support/send-body';
import { useTestbed } from '../support/testbed';
import { sendWorker } from '../support/consumers';

const bed = useTestbed({ scopedKeys: true });
afterEach(() => vi.restoreAllMocks());

const email = emailSends('retry');
const inAnHour = () => new Date(bed.c.clock.now().getTime() + 3600_000).toISOString();
const idOf = (body: { idempotency_key: string }) => messageIdFor(bed.account.account_id, body.idempotency_key);

async function send(body: unknown): Promise<string> {
  const res = await bed.request({ method: 'POST', path: '/v1/send', key: bed.sendKey, body });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/**
 * The request as a kill after its hand-on leaves it: reserved and handed on, its message never
 * stored and nothing given back (the message's put and every give-back's mark fail; the request
 * answers 500).
 */
async function diesAfterHandOn(body: unknown): Promise<void> {
  const write = bed.c.store.doc.send.bind(bed.c.store.doc);
  vi.spyOn(bed.c.store.doc, 'send').mockImplementation(((command: { constructor: { name: string }; input: Record<string, any> }) =>
    command.constructor.name === 'PutCommand' && ['message', 'spend_returned'].includes(command.input.Item?.entity)
      ? Promise.reject(new Error('killed'))
      : write(command as never)) as never);
  const res = await bed.request({ method: 'POST', path: '/v1/send', key: bed.sendKey, body });
  vi.restoreAllMocks();
  expect(res.status).toBe(500);
}

/** The send jobs handed on for `id`, oldest first. */
const jobsFor = (id: string) => bed.c.sent.filter((s) => s.queue === 'send' && (s.body as SendJob).message_id === id).map((s) => s.body as SendJob);
async function work(jobs: SendJob[]): Promise<void> {
  for (const job of jobs) expect(await sendWorker(sqsEvent([sqsRecord(job)]))).toEqual({ batchItemFailures: [] });
}

async function counts() {
  const res = await bed.request({ method: 'GET', path: '/v1/usage', key: bed.readKey });
  expect(res.status).toBe(200);
  const email = res.body.channels.find((r: { channel: string }) => r.channel === 'email');
  return { email: email.send_count, cost: res.body.total_cost_micros };
}

describe('a retry of a request', () => {
  it('whose messages were all stored gives its own reservation back once, even when its jobs run too', async () => {
    const body = email();
    const id = await send(body);
    await send(body);
    expect(await counts()).toEqual({ email: 1, cost: 100 });

    const [first, retry] = jobsFor(id);
    await work([retry!, first!, retry!]);

    expect(bed.c.mailed).toHaveLength(1);
    expect(await counts()).toEqual({ email: 1, cost: 100 });
  });

  it('that stores the message a dead request did not: the dead one’s job gives its reservation back once, and sends the message', async () => {
    const body = email();
    await diesAfterHandOn(body);
    expect(await counts()).toEqual({ email: 1, cost: 100 });
    await send(body);
    expect(await counts()).toEqual({ email: 2, cost: 200 });
    const stored = await bed.c.store.get<MessageItem>(keys.message(idOf(body)));
    const [dead, retry] = jobsFor(idOf(body));
    expect(dead!.reservation!.attempt).not.toBe(stored!.reserved_by);
    expect(retry!.reservation!.attempt).toBe(stored!.reserved_by);

    await work([dead!]);
    expect(await counts()).toEqual({ email: 1, cost: 100 });
    await work([dead!, retry!, dead!]);

    expect(bed.c.mailed).toHaveLength(1);
    expect(await counts()).toEqual({ email: 1, cost: 100 });
  });

  it('never made: the dead request’s job waits out the hand-off window, then gives its reservation back once', async () => {
    const body = email();
    await diesAfterHandOn(body);
    const [dead] = jobsFor(idOf(body));

    await work([dead!]);
    expect(bed.c.sent.filter((s) => s.queue === 'send')).toHaveLength(2); // put back to wait for its message
    expect(await counts()).toEqual({ email: 1, cost: 100 });
    bed.c.clock.advance(HANDOFF_WINDOW_MS + 1000);
    await work([dead!, dead!]);

    expect(bed.c.mailed).toHaveLength(0);
    expect(await counts()).toEqual({ email: 0, cost: 0 });
  });

  it('of a scheduled send whose earlier attempt’s schedule stands: the retry gives its own back at once; the schedule’s job keeps the earlier one', async () => {
    const body = email({ scheduled_at: inAnHour() });
    await diesAfterHandOn(body);
    await send(body);
    expect(await counts()).toEqual({ email: 1, cost: 100 });
    expect(jobsFor(idOf(body))).toEqual([]); // both wait in the scheduler: one schedule, the first attempt's

    bed.c.clock.advance(3600_000 + 1000);
    expect(await bed.c.scheduler.fireDue(bed.c.clock.now(), bed.c.queue)).toBe(1);
    await work(jobsFor(idOf(body)));

    expect(bed.c.mailed).toHaveLength(1);
    expect(await counts()).toEqual({ email: 1, cost: 100 });
  });

  it('of a scheduled send, canceled after the retry stored it: nothing is left counted', async () => {
    const body = email({ scheduled_at: inAnHour() });
    await diesAfterHandOn(body);
    const id = await send(body);

    expect((await bed.request({ method: 'POST', path: `/v1/messages/${id}/cancel`, key: bed.account.admin_key })).status).toBe(200);

    expect(await counts()).toEqual({ email: 0, cost: 0 });
  });
});

describe('a send job without reservation (an older job, or the acceptance sweep’s)', () => {
  it('changes nothing: neither for a message another attempt stored nor for one never stored', async () => {
    const stored = email();
    const never = email();
    await diesAfterHandOn(stored);
    await diesAfterHandOn(never);
    await send(stored);
    expect(await counts()).toEqual({ email: 3, cost: 300 });
    const bare = (job: SendJob | undefined): SendJob => {
      const { reservation: _none, ...rest } = job!;
      return rest;
    };

    bed.c.clock.advance(HANDOFF_WINDOW_MS + 1000);
    await work([bare(jobsFor(idOf(stored))[0]), bare(jobsFor(idOf(never))[0])]);

    expect(bed.c.mailed).toHaveLength(1);
    expect(await counts()).toEqual({ email: 3, cost: 300 });
  });
});
