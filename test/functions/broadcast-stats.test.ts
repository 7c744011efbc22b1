// Broadcast stats by attribution, through the real handlers: a bulk send fanned out and handed to
// the provider by the send worker, SES notifications through the ses-events consumer, and
// GET /v1/broadcasts/{id}. Each message counts once per type whatever the duplicates; a crash
// between the counting writes is healed by the retry (or, with no retry, by a stale read); another
// account's broadcast and messages no broadcast sent are left alone.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { createKey } from '../../shared/accounts/api-keys/service';
import { recipientIdempotencyKey } from '../../shared/audiences/broadcasts/fan-out';
import type { FanOutJob } from '../../shared/audiences/broadcasts/messages';
import type { BroadcastItem } from '../../shared/audiences/broadcasts/model';
import { countBroadcastEvent, STAT_SHARDS, shardOf, TOKEN_STALE_MS } from '../../shared/audiences/broadcasts/stats';
import type { StatShardItem } from '../../shared/audiences/broadcasts/stats-repository';
import { keys } from '../../shared/db/keys';
import type { MessageItem } from '../../shared/sending/messages/model';
import { findByIdempotencyKey } from '../../shared/sending/messages/query';
import { PermanentSendError } from '../../shared/ports/mailer';
import { call } from '../support/api';
import { type TestContainer } from '../support/container';
import { giveVerifiedDomain } from '../support/domains';
import { bounceNotification, complaintNotification, deliveryNotification, openNotification, clickNotification, snsWrap, type SesTarget } from '../support/ses-events';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker, fanOut, ingestSesEvent as ingest } from '../support/consumers';

let c: TestContainer;
const bed = useTestbed({ scopedKeys: true });
beforeEach(() => {
  c = bed.c;
});
afterEach(() => vi.restoreAllMocks());

const zeroStats = { sent: 0, delivered: 0, bounced: 0, complained: 0, opened: 0, failed: 0 };

interface Sent {
  broadcastId: string;
  accountId: string;
  /** By recipient address. */
  messages: Record<string, MessageItem>;
}

async function messageTo(accountId: string, broadcastId: string, recipient: string): Promise<MessageItem> {
  const claim = await findByIdempotencyKey(c.store, accountId, recipientIdempotencyKey(broadcastId, recipient));
  const message = claim && (await c.store.get<MessageItem>(keys.message(claim.message_id)));
  if (!message) throw new Error(`no message to ${recipient}`);
  return message;
}

/** POST /v1/send/bulk, its fan-out jobs, then the send worker for each of its messages. */
async function bulkSend(recipients: string[], options: { key?: string; accountId?: string; from?: string } = {}): Promise<Sent> {
  const accountId = options.accountId ?? bed.account.account_id;
  const res = await call({
    method: 'POST',
    path: '/v1/send/bulk',
    key: options.key ?? bed.sendKey,
    body: { from_email: options.from ?? 'news@acme.test', subject: 'News', body_text: 'News', recipients: recipients.map((email) => ({ email })) },
  });
  expect(res.status).toBe(202);
  const broadcastId: string = res.body.id;
  await drain(c.sent, 'fanout', fanOut, { where: (body: FanOutJob) => body.broadcast_id === broadcastId });
  const messages: Record<string, MessageItem> = {};
  for (const recipient of recipients) messages[recipient] = await messageTo(accountId, broadcastId, recipient);
  const ids = new Set(Object.values(messages).map((m) => m.id));
  await drain(c.sent, 'send', sendWorker, { where: (body: { message_id: string }) => ids.has(body.message_id) });
  // Read again: the worker stored the provider's id.
  for (const recipient of recipients) messages[recipient] = await messageTo(accountId, broadcastId, recipient);
  return { broadcastId, accountId, messages };
}

const targetOf = (m: MessageItem): SesTarget => ({ providerMessageId: m.provider_message_id ?? '', recipient: m.recipient, messageId: m.id, accountId: m.account_id });
const later = (seconds: number): string => new Date(c.clock.now().getTime() + seconds * 1000).toISOString();

/** One SQS record of the ses-events queue carrying this notification (its SNS envelope fixed, so a repeat is a duplicate). */
const recordOf = (notification: object) => sqsRecord(snsWrap(notification));
const ingestRecords = (...records: ReturnType<typeof sqsRecord>[]) => ingest(sqsEvent(records));

const stats = async (broadcastId: string, key = bed.readKey) => {
  const res = await call({ method: 'GET', path: `/v1/broadcasts/${broadcastId}`, key });
  expect(res.status).toBe(200);
  return res.body.stats as Record<string, number>;
};
const shardsOf = async (accountId: string, broadcastId: string): Promise<StatShardItem[]> =>
  (await Promise.all(Array.from({ length: STAT_SHARDS }, (_, i) => c.store.get<StatShardItem>(keys.broadcastStatShard(accountId, broadcastId, i))))).flatMap((s) => (s ? [s] : []));
const pendingOf = async (accountId: string, broadcastId: string): Promise<string[]> => (await shardsOf(accountId, broadcastId)).flatMap((s) => [...(s.pending ?? [])]);

/** Makes the store refuse, once, the first command `matches` picks; the call after it goes through. */
function failOnce(matches: (command: { constructor: { name: string }; input: Record<string, any> }) => boolean): { failed: () => boolean } {
  const send = c.store.doc.send.bind(c.store.doc);
  let failed = false;
  vi.spyOn(c.store.doc, 'send').mockImplementation(((command: { constructor: { name: string }; input: Record<string, any> }) => {
    if (!failed && matches(command)) {
      failed = true;
      return Promise.reject(new Error('connection reset'));
    }
    return send(command as never);
  }) as never);
  return { failed: () => failed };
}

const onShard = (command: { input: Record<string, any> }): boolean => String(command.input.Key?.pk ?? '').startsWith('BSTATS#');
const steps = {
  'the count (shard +1 and token)': (cmd: { constructor: { name: string }; input: Record<string, any> }) =>
    cmd.constructor.name === 'UpdateCommand' && onShard(cmd) && String(cmd.input.UpdateExpression).includes('ADD #type :one'),
  'the marker': (cmd: { constructor: { name: string }; input: Record<string, any> }) => cmd.constructor.name === 'PutCommand' && cmd.input.Item?.entity === 'broadcast_stat_marker',
  'the token drop': (cmd: { constructor: { name: string }; input: Record<string, any> }) =>
    cmd.constructor.name === 'UpdateCommand' && onShard(cmd) && String(cmd.input.UpdateExpression).startsWith('DELETE pending'),
};

describe('a bulk send stores its broadcast on each message', () => {
  it('gives the fan-out’s messages the broadcast_id, keeps it off the wire, and refuses it in a send body', async () => {
    const sent = await bulkSend(['ada@example.com']);
    const ada = sent.messages['ada@example.com'] as MessageItem;

    const view = await call({ method: 'GET', path: `/v1/messages/${ada.id}`, key: bed.readKey });
    const single = await call({
      method: 'POST',
      path: '/v1/send',
      key: bed.sendKey,
      body: { channel: 'email', idempotency_key: 'with-broadcast', destination: { email: 'bob@example.com' }, payload: { subject: 'S', body_text: 't' }, broadcast_id: sent.broadcastId },
    });

    expect(ada.broadcast_id).toBe(sent.broadcastId);
    expect(view.status).toBe(200);
    expect(view.body).not.toHaveProperty('broadcast_id');
    expect(single.status).toBe(400);
    expect(single.body.error).toEqual({ code: 'invalid_request', message: expect.stringContaining('broadcast_id'), status: 400 });
  });
});

describe('GET /v1/broadcasts/{id} stats', () => {
  it('counts delivered, bounced, complained and opened from the ses-events handler, and sent from the worker', async () => {
    const recipients = ['ada@example.com', 'bob@example.com', 'cy@example.com', 'dee@example.com', 'eve@example.com'];
    const sent = await bulkSend(recipients);
    const [ada, bob, cy, dee, eve] = recipients.map((r) => targetOf(sent.messages[r] as MessageItem)) as SesTarget[];
    const before = await c.store.get<BroadcastItem>(keys.broadcast(sent.accountId, sent.broadcastId));
    expect(await stats(sent.broadcastId)).toEqual({ total: 5, ...zeroStats, sent: 5 });

    const out = await ingestRecords(
      ...[ada, bob, cy, dee].map((t) => recordOf(deliveryNotification(t as SesTarget, { at: later(2) }))),
      recordOf(bounceNotification(eve as SesTarget, { at: later(3) })),
      recordOf(complaintNotification(dee as SesTarget, { at: later(30) })),
      recordOf(openNotification(ada as SesTarget, { at: later(10) })),
      recordOf(openNotification(bob as SesTarget, { at: later(11) })),
      recordOf(clickNotification(bob as SesTarget, { at: later(12) })),
    );

    expect(out.batchItemFailures).toEqual([]);
    expect(await stats(sent.broadcastId)).toEqual({ total: 5, sent: 5, delivered: 4, bounced: 1, complained: 1, opened: 2, failed: 0 });
    // Counted on shard items of their own; the broadcast item (with its content) is never written per event.
    expect(await c.store.get<BroadcastItem>(keys.broadcast(sent.accountId, sent.broadcastId))).toEqual(before);
    expect(await pendingOf(sent.accountId, sent.broadcastId)).toEqual([]);
  });

  it('counts a duplicate notification, a redelivered record and a second open once per message', async () => {
    const sent = await bulkSend(['ada@example.com', 'bob@example.com']);
    const ada = targetOf(sent.messages['ada@example.com'] as MessageItem);
    const delivery = recordOf(deliveryNotification(ada, { at: later(2) }));
    const open = recordOf(openNotification(ada, { at: later(5) }));

    await ingestRecords(delivery, open);
    // SQS delivers the same records again, SNS publishes the same delivery under a new id, and the reader opens it twice more.
    await ingestRecords(delivery, open, recordOf(deliveryNotification(ada, { at: later(2) })));
    await ingestRecords(recordOf(openNotification(ada, { at: later(60) })), recordOf(openNotification(ada, { at: later(90) })));

    expect(await stats(sent.broadcastId)).toEqual({ total: 2, ...zeroStats, sent: 2, delivered: 1, opened: 1 });
    expect(await pendingOf(sent.accountId, sent.broadcastId)).toEqual([]);
  });

  it('counts once when two deliveries of the same notification are handled at the same time', async () => {
    const sent = await bulkSend(['ada@example.com']);
    const ada = targetOf(sent.messages['ada@example.com'] as MessageItem);
    const delivery = recordOf(deliveryNotification(ada, { at: later(2) }));
    const opens = [recordOf(openNotification(ada, { at: later(5) })), recordOf(openNotification(ada, { at: later(6) })), recordOf(openNotification(ada, { at: later(7) }))];

    const outs = await Promise.all([ingestRecords(delivery), ingestRecords(delivery), ingestRecords(delivery), ...opens.map((r) => ingestRecords(r))]);

    expect(outs.flatMap((o) => o.batchItemFailures)).toEqual([]);
    expect(await stats(sent.broadcastId)).toEqual({ total: 1, ...zeroStats, sent: 1, delivered: 1, opened: 1 });
    expect(await pendingOf(sent.accountId, sent.broadcastId)).toEqual([]);
  });

  it('counts the worker’s events of a test-mode broadcast (simulated outcomes) and a failed send', async () => {
    const testKey = (await createKey(c, bed.account.account_id, { scope: 'send', test_mode: true }, { testMode: false })).key;
    const simulated = await bulkSend(['delivered@example.com', 'bounced@example.com', 'complained@example.com'], { key: testKey });
    c.mailerFailure = new PermanentSendError('MessageRejected: Email address is not verified');
    const refused = await bulkSend(['ada@example.com', 'bob@example.com']);

    expect(await stats(simulated.broadcastId)).toEqual({ total: 3, sent: 3, delivered: 1, bounced: 1, complained: 1, opened: 0, failed: 0 });
    expect(await stats(refused.broadcastId)).toEqual({ total: 2, ...zeroStats, failed: 2 });
  });

  it('spreads a broadcast’s counts over its shards by message', async () => {
    const recipients = Array.from({ length: 40 }, (_, i) => `user${i}@example.com`);
    const sent = await bulkSend(recipients);

    await ingestRecords(...Object.values(sent.messages).map((m) => recordOf(deliveryNotification(targetOf(m), { at: later(2) }))));

    const shards = await shardsOf(sent.accountId, sent.broadcastId);
    expect(new Set(Object.values(sent.messages).map((m) => shardOf(m.id))).size).toBeGreaterThan(1);
    expect(shards.length).toBe(new Set(Object.values(sent.messages).map((m) => shardOf(m.id))).size);
    expect(shards.reduce((n, s) => n + (s.delivered ?? 0), 0)).toBe(40);
    expect(await stats(sent.broadcastId)).toEqual({ total: 40, ...zeroStats, sent: 40, delivered: 40 });
  });
});

describe('a crash between the counting writes', () => {
  it.each(Object.keys(steps))('is healed by the retry when %s fails', async (step) => {
    const sent = await bulkSend(['ada@example.com']);
    const record = recordOf(deliveryNotification(targetOf(sent.messages['ada@example.com'] as MessageItem), { at: later(2) }));
    const fault = failOnce(steps[step as keyof typeof steps]);

    const first = await ingestRecords(record);
    const retried = await ingestRecords(record);

    expect(fault.failed()).toBe(true);
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(retried.batchItemFailures).toEqual([]);
    expect(await stats(sent.broadcastId)).toEqual({ total: 1, ...zeroStats, sent: 1, delivered: 1 });
    expect(await pendingOf(sent.accountId, sent.broadcastId)).toEqual([]);
  });

  it('is healed by a second open whose count meets the first one’s leftover token', async () => {
    const sent = await bulkSend(['ada@example.com']);
    const ada = targetOf(sent.messages['ada@example.com'] as MessageItem);
    failOnce(steps['the token drop']);

    expect((await ingestRecords(recordOf(openNotification(ada, { at: later(5) })))).batchItemFailures).toHaveLength(1);
    expect((await ingestRecords(recordOf(openNotification(ada, { at: later(50) })))).batchItemFailures).toEqual([]);

    expect(await stats(sent.broadcastId)).toEqual({ total: 1, ...zeroStats, sent: 1, opened: 1 });
    expect(await pendingOf(sent.accountId, sent.broadcastId)).toEqual([]);
  });

  it('without a retry: a read takes back a count that died before its marker once the token is stale, and the late retry counts it again', async () => {
    const sent = await bulkSend(['ada@example.com']);
    const record = recordOf(deliveryNotification(targetOf(sent.messages['ada@example.com'] as MessageItem), { at: later(2) }));
    failOnce(steps['the marker']);
    await ingestRecords(record);

    const fresh = await stats(sent.broadcastId);
    c.clock.advance(TOKEN_STALE_MS + 1000);
    const settled = await stats(sent.broadcastId);
    await ingestRecords(record);
    const retried = await stats(sent.broadcastId);

    // A token younger than the bound may still be a count in flight: it stands until then.
    expect(fresh.delivered).toBe(1);
    expect(settled.delivered).toBe(0);
    expect(retried.delivered).toBe(1);
    expect(await pendingOf(sent.accountId, sent.broadcastId)).toEqual([]);
  });

  it('without a retry: a read drops a stale token whose marker holds it, keeping the count', async () => {
    const sent = await bulkSend(['ada@example.com']);
    failOnce(steps['the token drop']);
    await ingestRecords(recordOf(deliveryNotification(targetOf(sent.messages['ada@example.com'] as MessageItem), { at: later(2) })));
    expect(await pendingOf(sent.accountId, sent.broadcastId)).toHaveLength(1);

    c.clock.advance(TOKEN_STALE_MS + 1000);

    expect(await stats(sent.broadcastId)).toEqual({ total: 1, ...zeroStats, sent: 1, delivered: 1 });
    expect(await pendingOf(sent.accountId, sent.broadcastId)).toEqual([]);
  });

  it('takes back the count of a concurrent duplicate that died after another made the marker', async () => {
    const sent = await bulkSend(['ada@example.com']);
    const ada = sent.messages['ada@example.com'] as MessageItem;
    // The duplicate counts, then dies at its undo (the marker was made by the first): its token is left.
    const send = c.store.doc.send.bind(c.store.doc);
    let markers = 0;
    let undoFailed = false;
    vi.spyOn(c.store.doc, 'send').mockImplementation(((command: { constructor: { name: string }; input: Record<string, any> }) => {
      if (command.constructor.name === 'PutCommand' && command.input.Item?.entity === 'broadcast_stat_marker') markers++;
      if (!undoFailed && onShard(command) && String(command.input.UpdateExpression).startsWith('ADD #type :minus')) {
        undoFailed = true;
        return Promise.reject(new Error('connection reset'));
      }
      return send(command as never);
    }) as never);
    const deps = { store: c.store, clock: c.clock };

    await countBroadcastEvent(deps, ada, 'opened');
    // A duplicate that read the marker before the first made it: its marker read (the count's first store read) answers none.
    const getMarker = vi.spyOn(c.store, 'get').mockImplementationOnce(async () => undefined);
    await expect(countBroadcastEvent(deps, ada, 'opened')).rejects.toThrow('connection reset');
    getMarker.mockRestore();
    const left = await pendingOf(sent.accountId, sent.broadcastId);
    await countBroadcastEvent(deps, ada, 'opened');

    expect(markers).toBe(2);
    expect(left).toHaveLength(1);
    expect(await stats(sent.broadcastId)).toEqual({ total: 1, ...zeroStats, sent: 1, opened: 1 });
    expect(await pendingOf(sent.accountId, sent.broadcastId)).toEqual([]);
  });
});

describe('what is not counted', () => {
  it('leaves another account’s broadcast alone, and answers 404 to it', async () => {
    const other = await createAccount(c, { email: 'other@example.com' });
    await giveVerifiedDomain(c, other.account_id, 'other.test');
    const theirs = await bulkSend(['ada@example.com'], { key: other.admin_key, accountId: other.account_id, from: 'news@other.test' });
    const ours = await bulkSend(['ada@example.com']);

    await ingestRecords(
      recordOf(deliveryNotification(targetOf(ours.messages['ada@example.com'] as MessageItem), { at: later(2) })),
      recordOf(openNotification(targetOf(ours.messages['ada@example.com'] as MessageItem), { at: later(4) })),
    );

    expect(await stats(ours.broadcastId)).toEqual({ total: 1, ...zeroStats, sent: 1, delivered: 1, opened: 1 });
    expect(await stats(theirs.broadcastId, other.admin_key)).toEqual({ total: 1, ...zeroStats, sent: 1 });
    expect((await call({ method: 'GET', path: `/v1/broadcasts/${theirs.broadcastId}`, key: bed.readKey })).status).toBe(404);
  });

  it('changes no counter for a message no broadcast sent', async () => {
    const sent = await bulkSend(['ada@example.com']);
    const res = await call({
      method: 'POST',
      path: '/v1/send',
      key: bed.sendKey,
      body: { channel: 'email', idempotency_key: 'single-1', destination: { email: 'ada@example.com' }, payload: { subject: 'S', body_text: 't' }, metadata: { from_email: 'hi@acme.test' } },
    });
    expect(res.status).toBe(201);
    const job = c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === res.body.id);
    await sendWorker(sqsEvent([sqsRecord(job?.body)]));
    const single = await c.store.get<MessageItem>(keys.message(res.body.id));
    const writes = vi.spyOn(c.store.doc, 'send');

    const out = await ingestRecords(
      recordOf(deliveryNotification(targetOf(single as MessageItem), { at: later(2) })),
      recordOf(openNotification(targetOf(single as MessageItem), { at: later(3) })),
    );

    expect(out.batchItemFailures).toEqual([]);
    expect(single?.broadcast_id).toBeUndefined();
    expect((await c.store.get<MessageItem>(keys.message(res.body.id)))?.status).toBe('opened');
    const touched = writes.mock.calls.map(([command]) => (command as { input: { Key?: { pk?: string }; Item?: { pk?: string; entity?: string } } }).input);
    expect(touched.filter((i) => String(i.Key?.pk ?? i.Item?.pk ?? '').startsWith('BSTATS#') || i.Item?.entity === 'broadcast_stat_marker')).toEqual([]);
    expect(await c.store.get(keys.broadcastStatMarker(res.body.id, 'delivered'))).toBeUndefined();
    expect(await stats(sent.broadcastId)).toEqual({ total: 1, ...zeroStats, sent: 1 });
  });
});
