// What a killed or failed send request leaves behind, and how it is resolved: overlapping retries,
// claims taken over after their lease, failed writes, the acceptance sweep (handler and use case),
// and the send worker's lease that keeps a second job for one message from sending it twice.
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as sweepRaw } from '../../functions/send/sweep';
import { handler as workerRaw } from '../../functions/send/send-message';
import { sha256Hex } from '../../shared/crypto';
import { keys } from '../../shared/db/keys';
import { bodyDigest, LEASE_MS, type SendDecision } from '../../shared/messages/idempotency';
import type { MessageItem } from '../../shared/messages/model';
import { recoverAcceptances } from '../../shared/messages/recovery';
import { IdempotencyRepository, MessageRepository } from '../../shared/messages/repository';
import { readTimeline, recordEvent } from '../../shared/messages/timeline';
import { call } from '../support/api';
import { underNeeds } from '../support/grants';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';

const sweep = underNeeds('functions/send/sweep.ts', sweepRaw);
const worker = underNeeds('functions/send/send-message.ts', workerRaw);

const bed = useTestbed();

let n = 0;
const request = (over: Record<string, unknown> = {}): Record<string, any> => ({
  channel: 'email',
  idempotency_key: `rec-${++n}`,
  destination: { email: 'ada@example.com' },
  payload: { subject: 'Hello', body_text: 'Hi Ada' },
  metadata: { from_email: 'hello@acme.test' },
  ...over,
});
const send = (body: unknown) => call({ method: 'POST', path: '/v1/send', key: bed.account.admin_key, body });
const sendBatch = (body: unknown) => call({ method: 'POST', path: '/v1/send/batch', key: bed.account.admin_key, body });
const jobsFor = (id: string) => bed.c.sent.filter((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === id);
const claims = () => new IdempotencyRepository(bed.c.store);
/** Every claim the sweep would resolve now. */
async function pendingDue(): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const page of claims().dueForRecovery(bed.c.clock.now().getTime())) out.push(...page);
  return out;
}

/** Runs `act` while the port's `method` fails once, as a store, bucket or queue refusing a write would. */
async function failingOnce<T extends object, R>(port: T, method: keyof T & string, act: () => Promise<R>): Promise<R> {
  const spy = vi.spyOn(port as Record<string, any>, method).mockRejectedValueOnce(new Error(`${method} refused`));
  try {
    return await act();
  } finally {
    spy.mockRestore();
  }
}

/** What a request killed right after claiming its key leaves: a pending claim and no message. */
async function deadClaim(body: Record<string, any>, messageId = `msg_dead${++n}`): Promise<string> {
  const now = bed.c.clock.now();
  const decision: SendDecision = {
    kind: 'accepted',
    message: { id: messageId, status: 'queued', channel: 'email', idempotency_key: body.idempotency_key, created_at: now.toISOString() },
  };
  const claim = await claims().claim(
    {
      account_id: bed.account.account_id,
      idempotency_key: body.idempotency_key,
      body_digest: bodyDigest(body),
      message_id: messageId,
      decision,
      state: 'pending',
      lease_until: now.getTime() + LEASE_MS,
      created_at: now.toISOString(),
    },
    now.getTime(),
  );
  expect(claim.kind).toBe('new');
  return messageId;
}

/** What a request killed after storing its message but before enqueueing it leaves. */
async function acceptedButNotEnqueued(body: Record<string, any>, status = 'queued'): Promise<string> {
  const res = await failingOnce(bed.c.queue, 'sendBatch', () => send(body));
  expect(res.status).toBe(500);
  const claim = await claims().get(bed.account.account_id, body.idempotency_key);
  expect(claim?.state).toBe('pending');
  expect(await bed.c.store.get(keys.message(claim!.message_id))).toMatchObject({ status });
  return claim!.message_id;
}

describe('a retry that overlaps a request still holding the key', () => {
  it('answers 409 idempotency_key_in_use with Retry-After while the message is not stored, never an id that does not exist', async () => {
    const body = request();
    await deadClaim(body);
    bed.c.clock.advance(10_000);

    const res = await send(body);

    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({ code: 'idempotency_key_in_use', message: expect.any(String), status: 409 });
    expect(res.headers['retry-after']).toBe('20');
    expect(bed.c.sent).toEqual([]);
  });

  it('replays the first answer once the message is stored, though the claim is still pending', async () => {
    const body = request();
    const id = await acceptedButNotEnqueued(body);

    const res = await send(body);

    expect(res.status).toBe(201);
    expect(res.body.id).toBe(id);
  });

  it('gives each overlapping copy either the one message or 409 in use, and a later retry the message', async () => {
    const body = request();

    const results = await Promise.all(Array.from({ length: 8 }, () => send(body)));
    const after = await send(body);

    const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.id));
    expect(ids.size).toBe(1);
    for (const r of results.filter((r) => r.status !== 201)) expect(r.body.error.code).toBe('idempotency_key_in_use');
    expect(after.status).toBe(201);
    expect(ids.has(after.body.id)).toBe(true);
    expect(jobsFor(after.body.id)).toHaveLength(1);
  });

  it('answers in_use for that item alone inside a batch', async () => {
    const held = request();
    await deadClaim(held);
    const other = request();

    const res = await sendBatch([held, other]);

    expect(res.status).toBe(200);
    expect(res.body[0]).toEqual({ success: false, error: { code: 'idempotency_key_in_use', message: expect.any(String), status: 409 } });
    expect(res.body[1]).toMatchObject({ success: true, response: { status: 'queued' } });
  });
});

describe('a claim whose request died, retried after its lease', () => {
  it('is taken over and its message created when none was stored', async () => {
    const body = request();
    const id = await deadClaim(body);
    bed.c.clock.advance(LEASE_MS + 1);

    const res = await send(body);

    expect(res.status).toBe(201);
    expect(res.body.id).toBe(id);
    expect(await bed.c.store.get(keys.message(id))).toMatchObject({ status: 'queued', recipient: 'ada@example.com' });
    expect(jobsFor(id)).toHaveLength(1);
    expect((await claims().get(bed.account.account_id, body.idempotency_key))?.state).toBe('done');
  });

  it('never writes a stored message again: one that was sent meanwhile stays sent and is not enqueued', async () => {
    const body = request();
    const id = await acceptedButNotEnqueued(body);
    await new MessageRepository(bed.c.store).moveStatus(id, { status: 'sent', at: bed.c.clock.now().toISOString(), now: bed.c.clock.now().toISOString(), providerMessageId: 'ses-x' });
    bed.c.clock.advance(LEASE_MS + 1);

    const res = await send(body);

    expect(res.status).toBe(201);
    expect(res.body.id).toBe(id);
    expect(await bed.c.store.get(keys.message(id))).toMatchObject({ status: 'sent', provider_message_id: 'ses-x' });
    expect(jobsFor(id)).toEqual([]);
  });
});

describe('after a local restart', () => {
  it('a retry takes over the claims of the process before at once, without waiting for their lease', async () => {
    const body = request();
    const id = await deadClaim(body);
    bed.c.config.claimsExpiredBy = bed.c.clock.now().getTime() + LEASE_MS;
    try {
      const res = await send(body);

      expect(res.status).toBe(201);
      expect(res.body.id).toBe(id);
      expect(await bed.c.store.get(keys.message(id))).toMatchObject({ status: 'queued' });
    } finally {
      bed.c.config.claimsExpiredBy = undefined;
    }
  });
});

describe('a failed message write', () => {
  it('answers 500, releases the claim, and a retry creates a message that exists', async () => {
    const body = request();
    const res = await failingOnce(bed.c.store, 'batchPut', () => send(body));
    expect(res.status).toBe(500);
    expect(await claims().get(bed.account.account_id, body.idempotency_key)).toBeUndefined();

    const retry = await send(body);

    expect(retry.status).toBe(201);
    expect(await bed.c.store.get(keys.message(retry.body.id))).toMatchObject({ status: 'queued' });
  });
});

describe('a failed content write', () => {
  it('answers 500 for a large message whose object the store refused, keeps no claim, and a retry is accepted', async () => {
    // Random bytes as base64: gzip cannot bring them under 8 KiB, so they go to the object store.
    const body = request({ payload: { subject: 'Big', body_html: `<p>${randomBytes(75_000).toString('base64')}</p>` } });
    const res = await failingOnce(bed.c.objects, 'put', () => send(body));
    expect(res.status).toBe(500);
    expect(await claims().get(bed.account.account_id, body.idempotency_key)).toBeUndefined();

    const retry = await send(body);

    expect(retry.status).toBe(201);
    expect(await bed.c.store.get(keys.message(retry.body.id))).toMatchObject({ status: 'queued', content_ref: expect.any(String) });
  });
});

describe('the acceptance sweep', () => {
  beforeEach(async () => {
    // Claims earlier tests left pending are resolved first: each test counts its own.
    bed.c.clock.advance(LEASE_MS + 1);
    await recoverAcceptances(bed.c);
    bed.c.sent.length = 0;
  });

  it('hands on a stored message whose request died before the enqueue, once, and completes its claim', async () => {
    const body = request();
    const id = await acceptedButNotEnqueued(body);
    expect(jobsFor(id)).toEqual([]);

    const early = await recoverAcceptances(bed.c);
    bed.c.clock.advance(LEASE_MS + 1);
    await sweep({});
    await sweep({});

    expect(early).toEqual({ completed: 0, released: 0 });
    expect(jobsFor(id)).toHaveLength(1);
    expect((await claims().get(bed.account.account_id, body.idempotency_key))?.state).toBe('done');
    expect(await pendingDue()).toEqual([]);
  });

  it('deletes a claim whose message was never stored, so a retry creates it', async () => {
    const body = request();
    const id = await deadClaim(body);
    bed.c.clock.advance(LEASE_MS + 1);

    const result = await recoverAcceptances(bed.c);

    expect(result).toMatchObject({ released: 1 });
    expect(await claims().get(bed.account.account_id, body.idempotency_key)).toBeUndefined();
    const retry = await send(body);
    expect(retry.status).toBe(201);
    expect(retry.body.id).not.toBe(id);
    expect(await bed.c.store.get(keys.message(retry.body.id))).toBeDefined();
  });

  it('schedules a stored scheduled message whose schedule was never written', async () => {
    const at = new Date(bed.c.clock.now().getTime() + 3600_000).toISOString();
    const scheduled = request({ scheduled_at: at });
    const scheduledId = await acceptedButNotEnqueued(scheduled, 'scheduled');
    await bed.c.scheduler.cancel(scheduledId);
    bed.c.clock.advance(LEASE_MS + 1);

    await recoverAcceptances(bed.c);

    expect(jobsFor(scheduledId)).toEqual([]);
    await bed.c.scheduler.fireDue(new Date(at), bed.c.queue);
    expect(jobsFor(scheduledId)).toHaveLength(1);
  });

  it('at a local start, resolves the claims of the last process though their lease has not run out', async () => {
    const body = request();
    const id = await acceptedButNotEnqueued(body);

    await recoverAcceptances(bed.c, { leaseEndingBy: bed.c.clock.now().getTime() + LEASE_MS });

    expect(jobsFor(id)).toHaveLength(1);
  });

  it('walks the whole outbox page by page, past entries whose claim no longer matches them', async () => {
    // Index entries pointing at claims that are done (as a lagging index can show) come first...
    for (let i = 0; i < 6; i++) {
      const body = request();
      await deadClaim(body);
      const claim = (await claims().get(bed.account.account_id, body.idempotency_key))!;
      await bed.c.store.put({ ...keys.idempotency(bed.account.account_id, sha256Hex(body.idempotency_key)), ...keys.outboxEntry(sha256Hex(body.idempotency_key), 1), ...claim, state: 'done' });
    }
    // ...then real leftovers of a dead request.
    const dead = [request(), request(), request()];
    for (const body of dead) await deadClaim(body);
    bed.c.clock.advance(LEASE_MS + 1);

    const result = await recoverAcceptances(bed.c, { pageSize: 2 });

    expect(result).toEqual({ completed: 0, released: 3 });
    for (const body of dead) expect(await claims().get(bed.account.account_id, body.idempotency_key)).toBeUndefined();
  });

  it('leaves claims of requests still within their lease alone', async () => {
    const body = request();
    await deadClaim(body);

    expect(await recoverAcceptances(bed.c)).toEqual({ completed: 0, released: 0 });
    expect((await claims().get(bed.account.account_id, body.idempotency_key))?.state).toBe('pending');
  });
});

describe('the send worker lease', () => {
  async function queued(): Promise<{ id: string; job: unknown }> {
    const res = await send(request());
    expect(res.status).toBe(201);
    return { id: res.body.id, job: jobsFor(res.body.id)[0]!.body };
  }

  it('sends once when two jobs for one message arrive together', async () => {
    const { id, job } = await queued();

    const [a, b] = await Promise.all([worker(sqsEvent([sqsRecord(job)])), worker(sqsEvent([sqsRecord(job)]))]);

    expect(bed.c.mailed.filter((m) => m.messageId === id)).toHaveLength(1);
    // The job that found the message taken is retried later, and then finds it sent.
    expect(a.batchItemFailures.length + b.batchItemFailures.length).toBe(1);
    const again = await worker(sqsEvent([sqsRecord(job, 2)]));
    expect(again.batchItemFailures).toEqual([]);
    expect(bed.c.mailed.filter((m) => m.messageId === id)).toHaveLength(1);
    const { events } = await readTimeline(bed.c.store, id);
    expect(events.filter((e) => e.type === 'sent')).toHaveLength(1);
  });

  it('takes over a message whose attempt died once the lease is over', async () => {
    const { id, job } = await queued();
    await new MessageRepository(bed.c.store).markDispatched(id, bed.c.clock.now().toISOString(), undefined);

    const busy = await worker(sqsEvent([sqsRecord(job)]));
    bed.c.clock.advance(30_001);
    const retaken = await worker(sqsEvent([sqsRecord(job, 2)]));

    expect(busy.batchItemFailures).toHaveLength(1);
    expect(retaken.batchItemFailures).toEqual([]);
    expect(bed.c.mailed.filter((m) => m.messageId === id)).toHaveLength(1);
    expect(await bed.c.store.get<MessageItem>(keys.message(id))).toMatchObject({ status: 'sent' });
  });

  it('records the handoff of a send retried after a crash without moving a delivered message back to sent', async () => {
    const { id, job } = await queued();
    // While the retried attempt hands the message over, the delivery of the first attempt's mail
    // (which reached the provider before the crash) is ingested.
    const mailer = bed.c.mailer;
    bed.c.mailer = {
      send: async (email) => {
        await recordEvent(bed.c, { id, account_id: bed.account.account_id, test_mode: false }, {
          type: 'delivered',
          source: 'sns',
          providerEventId: 'sns-delivery-1',
          payload: {},
          occurredAt: new Date(bed.c.clock.now().getTime() - 5000).toISOString(),
        });
        return mailer.send(email);
      },
    };
    let out;
    try {
      out = await worker(sqsEvent([sqsRecord(job)]));
    } finally {
      bed.c.mailer = mailer;
    }

    expect(out.batchItemFailures).toEqual([]);
    const { message, events } = await readTimeline(bed.c.store, id);
    expect(message?.status).toBe('delivered');
    expect(message?.provider_message_id).toEqual(expect.any(String));
    expect(events.map((e) => e.type).sort()).toEqual(['delivered', 'sent']);
  });

  it('finishes the status move of a signal that died between storing its event and moving the status', async () => {
    const { id } = await queued();
    const at = bed.c.clock.now().toISOString();
    // The first delivery of the signal stored its event and died.
    await new MessageRepository(bed.c.store).addEvent({
      id: 'evt_first',
      type: 'delivered',
      message_id: id,
      account_id: bed.account.account_id,
      source: 'sns',
      provider_event_id: 'sns-dup-1',
      payload: {},
      occurred_at: at,
      created_at: at,
    });

    const again = await recordEvent(bed.c, { id, account_id: bed.account.account_id, test_mode: false }, { type: 'delivered', source: 'sns', providerEventId: 'sns-dup-1', payload: {}, occurredAt: at });

    expect(again.created).toBe(false);
    expect(again.event.id).toBe('evt_first');
    const { message, events } = await readTimeline(bed.c.store, id);
    expect(message).toMatchObject({ status: 'delivered', status_at: at });
    expect(events).toHaveLength(1);
  });

  it('gives the lease back after a failure worth retrying, so the next receive sends at once', async () => {
    const { id, job } = await queued();
    bed.c.mailerFailure = new Error('SES is busy');

    const failed = await worker(sqsEvent([sqsRecord(job)]));
    bed.c.mailerFailure = undefined;
    const retried = await worker(sqsEvent([sqsRecord(job, 2)]));

    expect(failed.batchItemFailures).toHaveLength(1);
    expect(retried.batchItemFailures).toEqual([]);
    expect(bed.c.mailed.filter((m) => m.messageId === id)).toHaveLength(1);
  });
});
