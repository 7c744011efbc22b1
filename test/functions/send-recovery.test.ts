// What a killed or failed send request leaves behind, and how it is resolved: a message is its own
// idempotency record (its id follows from the key), so overlapping retries find it; a message
// stored and never handed on waits in the outbox for the acceptance sweep (handler and use case);
// failed writes; and the send worker's lease that keeps a second job for one message from sending
// it twice.
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as sweepRaw } from '../../functions/send/sweep';
import { sha256Hex } from '../../shared/crypto/crypto';
import { keys } from '../../shared/db/keys';
import { bodyDigest, LEASE_MS } from '../../shared/sending/messages/idempotency';
import { HANDOFF_WINDOW_MS } from '../../shared/sending/messages/messages';
import type { LegacyClaim } from '../../shared/sending/messages/legacy-claims';
import { messageIdFor } from '../../shared/sending/messages/message-id';
import type { MessageItem } from '../../shared/sending/messages/model';
import { recoverAcceptances } from '../../shared/sending/messages/recovery';
import { MessageRepository, OutboxRepository } from '../../shared/sending/messages/repository';
import { readTimeline, recordEvent } from '../../shared/sending/messages/timeline';
import { suppress } from '../../shared/sending/suppressions/service';
import { call } from '../support/api';
import { underNeeds } from '../support/grants';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { emailSends } from '../support/send-body';
import { useTestbed } from '../support/testbed';
import { sendWorker as worker } from '../support/consumers';

const sweep = underNeeds('functions/send/sweep.ts', sweepRaw);

const bed = useTestbed();

const request = emailSends('rec', { to: 'ada@example.com', subject: 'Hello', text: 'Hi Ada' });
const send = (body: unknown) => call({ method: 'POST', path: '/v1/send', key: bed.account.admin_key, body });
const sendBatch = (body: unknown) => call({ method: 'POST', path: '/v1/send/batch', key: bed.account.admin_key, body });
const jobsFor = (id: string) => bed.c.sent.filter((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === id);
const idFor = (body: Record<string, any>) => messageIdFor(bed.account.account_id, body.idempotency_key);
const stored = (id: string) => bed.c.store.get<MessageItem>(keys.message(id));
/** Every outbox item a sweep would look at now. */
async function outboxDue(): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const page of new OutboxRepository(bed.c.store).due(bed.c.clock.now().getTime())) out.push(...page);
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

/** Runs `act` while the message puts fail (as a request killed or refused between its hand-off and its put). */
async function messagePutFailing<R>(act: () => Promise<R>): Promise<R> {
  const put = bed.c.store.put.bind(bed.c.store);
  const spy = vi.spyOn(bed.c.store, 'put').mockImplementation(async (item, condition) => {
    if ((item as { entity?: string }).entity === 'message') throw new Error('killed before the message was stored');
    return put(item, condition);
  });
  try {
    return await act();
  } finally {
    spy.mockRestore();
  }
}

describe('the message as its own idempotency record', () => {
  it('stores the message under the id its account and key give, and answers with it', async () => {
    const body = request();

    const res = await send(body);

    expect(res.status).toBe(201);
    expect(res.body.id).toBe(idFor(body));
    expect(res.body.id).toMatch(/^msg_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(await stored(res.body.id)).toMatchObject({ idempotency_key: body.idempotency_key, body_digest: bodyDigest(body).slice(0, 32) });
    expect(await bed.c.store.get(keys.idempotency(bed.account.account_id, sha256Hex(body.idempotency_key)))).toBeUndefined();
  });

  it('gives every overlapping copy the one message, sent once', async () => {
    const body = request();

    const results = await Promise.all(Array.from({ length: 8 }, () => send(body)));

    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.id))).toEqual(new Set([idFor(body)]));
    const partition = (await bed.c.store.query({ keyCondition: 'pk = :pk', values: { ':pk': keys.messagePartition(idFor(body)) } })).items;
    // Beside the message, the mark of each copy that found it stored and gave its reservation back.
    expect(partition.filter((i) => i.entity !== 'spend_returned')).toMatchObject([{ entity: 'message' }]);
    expect(partition.filter((i) => i.entity === 'spend_returned')).toHaveLength(7);
    // Each copy handed a job on before it found the message stored; the dispatch lease sends it once.
    for (const job of jobsFor(idFor(body))) await worker(sqsEvent([sqsRecord(job.body)]));
    for (const job of jobsFor(idFor(body))) await worker(sqsEvent([sqsRecord(job.body, 2)]));
    expect(bed.c.mailed.filter((m) => m.messageId === idFor(body))).toHaveLength(1);
  });

  it('answers idempotency_key_reused to an overlapping copy with another body, and keeps the first body', async () => {
    const body = request();
    const other = { ...body, payload: { subject: 'Other', body_text: 'Not this' } };

    const [a, b] = await Promise.all([send(body), send(other)]);

    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const winner = a.status === 201 ? body : other;
    expect(await stored(idFor(body))).toMatchObject({ subject: winner.payload.subject, body_digest: bodyDigest(winner).slice(0, 32) });
  });

  it('never lets a reused key with another large body overwrite the first message\'s content', async () => {
    const big = (tag: string) => `<p>${tag} ${'lorem ipsum dolor sit amet '.repeat(120)}</p>`;
    const body = request({ payload: { subject: 'First', body_html: big('first') } });
    const first = await send(body);
    const reused = await send({ ...body, payload: { subject: 'Second', body_html: big('second') } });

    expect(first.status).toBe(201);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
    const job = jobsFor(first.body.id)[0]!.body;
    await worker(sqsEvent([sqsRecord(job)]));
    const mailed = bed.c.mailed.find((m) => m.messageId === first.body.id);
    expect(mailed?.subject).toBe('First');
    expect(mailed?.html).toContain('first lorem');
  });
});

describe('a request killed between handing its message on and storing it', () => {
  it('stores nothing; the job waits for the message a while, then is dropped, and nothing is mailed', async () => {
    const body = request();
    const res = await messagePutFailing(() => send(body));
    expect(res.status).toBe(500);
    const id = idFor(body);
    expect(await stored(id)).toBeUndefined();
    const [job] = jobsFor(id);

    const early = await worker(sqsEvent([sqsRecord(job!.body)]));
    const putBack = jobsFor(id).slice(1);
    bed.c.clock.advance(HANDOFF_WINDOW_MS);
    const late = await worker(sqsEvent([sqsRecord(putBack[0]!.body)]));

    expect(early.batchItemFailures).toEqual([]);
    expect(putBack).toHaveLength(1);
    expect(late.batchItemFailures).toEqual([]);
    expect(jobsFor(id)).toHaveLength(2);
    expect(bed.c.mailed.filter((m) => m.messageId === id)).toEqual([]);
  });

  it('gives its reservation back, and a retry stores the message under the same id and mails it once with both jobs', async () => {
    const body = request();
    await messagePutFailing(() => send(body));

    const retry = await send(body);

    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(idFor(body));
    const jobs = jobsFor(retry.body.id);
    expect(jobs).toHaveLength(2);
    for (const j of jobs) await worker(sqsEvent([sqsRecord(j.body)]));
    for (const j of jobs) await worker(sqsEvent([sqsRecord(j.body, 2)]));
    expect(bed.c.mailed.filter((m) => m.messageId === retry.body.id)).toHaveLength(1);
  });

  it('sends a message whose job arrived before it was stored, once it is: the job comes back after a second, not after the queue\'s visibility timeout', async () => {
    const body = request();
    const id = idFor(body);
    const job = { message_id: id, account_id: bed.account.account_id, handed_at: bed.c.clock.now().getTime() };

    const before = await worker(sqsEvent([sqsRecord(job)]));
    const putBack = jobsFor(id);
    await send(body);
    const again = await worker(sqsEvent([sqsRecord(putBack[0]!.body)]));

    expect(before.batchItemFailures).toEqual([]);
    expect(putBack).toHaveLength(1);
    expect(putBack[0]).toMatchObject({ body: { ...job, handoff_tries: 1 }, delaySeconds: 1 });
    expect(again.batchItemFailures).toEqual([]);
    expect(bed.c.mailed.filter((m) => m.messageId === id)).toHaveLength(1);
  });

  it('looks for a message that is not stored yet less often each time, and drops the job once the hand-off window has passed', async () => {
    const body = request();
    const id = idFor(body);
    const job = { message_id: id, account_id: bed.account.account_id, handed_at: bed.c.clock.now().getTime(), handoff_tries: 7 };

    await worker(sqsEvent([sqsRecord(job)]));
    const late = await worker(sqsEvent([sqsRecord({ ...job, handed_at: bed.c.clock.now().getTime() - HANDOFF_WINDOW_MS })]));

    expect(jobsFor(id).map((j) => j.delaySeconds)).toEqual([60]);
    expect(late.batchItemFailures).toEqual([]);
    expect(jobsFor(id)).toHaveLength(1);
    expect(bed.c.mailed.filter((m) => m.messageId === id)).toEqual([]);
  });

  it('leaves a schedule that finds no message when it fires: nothing is mailed', async () => {
    const at = new Date(bed.c.clock.now().getTime() + 3600_000).toISOString();
    const body = request({ scheduled_at: at });
    expect((await messagePutFailing(() => send(body))).status).toBe(500);
    bed.c.clock.advance(3600_000);
    await bed.c.scheduler.fireDue(new Date(at), bed.c.queue);
    const [job] = jobsFor(idFor(body));

    const out = await worker(sqsEvent([sqsRecord(job!.body)]));

    expect(out.batchItemFailures).toEqual([]);
    expect(await stored(idFor(body))).toBeUndefined();
    expect(bed.c.mailed.filter((m) => m.messageId === idFor(body))).toEqual([]);
  });
});

describe('a request that stored its message', () => {
  it('had handed it on already: it is mailed once, and the sweep finds nothing to do', async () => {
    const body = request();
    const res = await send(body);
    const [job] = jobsFor(res.body.id);
    bed.c.clock.advance(LEASE_MS + 1);

    const swept = await recoverAcceptances(bed.c);
    await worker(sqsEvent([sqsRecord(job!.body)]));

    expect(swept).toEqual({ completed: 0, released: 0 });
    expect(await outboxDue()).toEqual([]);
    expect(bed.c.mailed.filter((m) => m.messageId === res.body.id)).toHaveLength(1);
  });

  it('failing at the hand-off answers 500 and stores nothing; a retry is accepted', async () => {
    const body = request();
    const res = await failingOnce(bed.c.queue, 'sendBatch', () => send(body));
    expect(res.status).toBe(500);
    expect(await stored(idFor(body))).toBeUndefined();

    const retry = await send(body);

    expect(retry.status).toBe(201);
    expect(jobsFor(retry.body.id)).toHaveLength(1);
  });
});

describe('the acceptance sweep', () => {
  beforeEach(async () => {
    // What earlier tests left in the outbox is resolved first: each test counts its own.
    bed.c.clock.advance(LEASE_MS + 1);
    await recoverAcceptances(bed.c);
  });

  /** A suppressed send whose request died before writing its timeline event. */
  async function suppressedButNotRecorded(): Promise<string> {
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'gone@example.com', reason: 'manual' });
    const body = request({ destination: { email: 'gone@example.com' } });
    const create = bed.c.store.create.bind(bed.c.store);
    const spy = vi.spyOn(bed.c.store, 'create').mockImplementation(async (item) => {
      if ((item as { entity?: string }).entity === 'message_event') throw new Error('killed');
      return create(item);
    });
    try {
      expect((await send(body)).status).toBe(500);
    } finally {
      spy.mockRestore();
    }
    return idFor(body);
  }

  it('writes the timeline event of a suppressed send whose request died before it could, once its lease is over', async () => {
    const id = await suppressedButNotRecorded();

    const early = await recoverAcceptances(bed.c);
    bed.c.clock.advance(LEASE_MS + 1);
    await sweep({});
    await sweep({});

    expect(early).toEqual({ completed: 0, released: 0 });
    const { message, events } = await readTimeline(bed.c.store, id);
    expect(message?.status).toBe('suppressed');
    expect(events.map((e) => e.type)).toEqual(['suppressed']);
    expect(jobsFor(id)).toEqual([]);
    expect(await outboxDue()).toEqual([]);
  });

  it('at a local start, does so though the lease has not run out', async () => {
    const id = await suppressedButNotRecorded();

    await recoverAcceptances(bed.c, { leaseEndingBy: bed.c.clock.now().getTime() + LEASE_MS });

    expect((await readTimeline(bed.c.store, id)).message?.status).toBe('suppressed');
  });

  it('walks the whole outbox page by page', async () => {
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await suppressedButNotRecorded());
    bed.c.clock.advance(LEASE_MS + 1);

    const result = await recoverAcceptances(bed.c, { pageSize: 2 });

    expect(result).toEqual({ completed: 5, released: 0 });
    for (const id of ids) expect((await readTimeline(bed.c.store, id)).events.map((e) => e.type)).toEqual(['suppressed']);
  });
});

describe('idempotency records of the design before', () => {
  /** A pending claim as a request of the earlier design left it. */
  async function legacyClaim(body: Record<string, any>, messageId: string): Promise<void> {
    const now = bed.c.clock.now();
    const digest = sha256Hex(body.idempotency_key);
    const claim: LegacyClaim = {
      ...keys.idempotency(bed.account.account_id, digest),
      ...keys.outboxEntry(digest, now.getTime() + LEASE_MS),
      entity: 'idempotency',
      account_id: bed.account.account_id,
      idempotency_key: body.idempotency_key,
      body_digest: bodyDigest(body),
      message_id: messageId,
      decision: { kind: 'accepted', message: { id: messageId, status: 'queued', channel: 'email', idempotency_key: body.idempotency_key, created_at: now.toISOString() } },
      state: 'pending',
      lease_until: now.getTime() + LEASE_MS,
      created_at: now.toISOString(),
    };
    await bed.c.store.put(claim);
  }

  it('hands on the stored message of a pending claim, deletes one without a message, and finds the first by its key', async () => {
    const withMessage = request();
    const sent = await send(request());
    const legacyId = sent.body.id as string;
    await legacyClaim(withMessage, legacyId);
    const orphan = request();
    await legacyClaim(orphan, 'msg_01jdeadclaim000000000000000');
    bed.c.sent.length = 0;
    bed.c.clock.advance(LEASE_MS + 1);

    const result = await recoverAcceptances(bed.c);

    expect(result).toEqual({ completed: 1, released: 1 });
    expect(jobsFor(legacyId)).toHaveLength(1);
    expect(await bed.c.store.get(keys.idempotency(bed.account.account_id, sha256Hex(orphan.idempotency_key)))).toBeUndefined();
    const found = await call({ method: 'GET', path: '/v1/messages', key: bed.account.admin_key, query: { idempotency_key: withMessage.idempotency_key } });
    expect(found.body).toMatchObject({ id: legacyId });
  });
});

describe('a failed message write', () => {
  it('answers 500, stores nothing, and a retry creates the message under the same id', async () => {
    const body = request();
    const res = await failingOnce(bed.c.store, 'put', () => send(body));
    expect(res.status).toBe(500);
    expect(await stored(idFor(body))).toBeUndefined();

    const retry = await send(body);

    expect(retry.status).toBe(201);
    expect(retry.body.id).toBe(idFor(body));
    expect(await stored(retry.body.id)).toMatchObject({ status: 'queued' });
  });
});

describe('a failed content write', () => {
  it('answers 500 for a large message whose object the store refused, stores no message, and a retry is accepted', async () => {
    // Random bytes as base64: gzip cannot bring them under 8 KiB, so they go to the object store.
    const body = request({ payload: { subject: 'Big', body_html: `<p>${randomBytes(75_000).toString('base64')}</p>` } });
    const res = await failingOnce(bed.c.objects, 'put', () => send(body));
    expect(res.status).toBe(500);
    expect(await stored(idFor(body))).toBeUndefined();

    const retry = await send(body);

    expect(retry.status).toBe(201);
    expect(await stored(retry.body.id)).toMatchObject({ status: 'queued', content_ref: expect.any(String) });
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
