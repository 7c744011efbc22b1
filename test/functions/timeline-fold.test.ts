// The `sent` and `delivered` events kept on the message item, each written with its status move
// (shared/sending/messages/timeline.ts storeFolded): what a live send leaves in the store, and event items
// written before events were kept there, read once and recognised when their signal comes again.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keyQueries, keys } from '../../shared/db/keys';
import { storedItemBytes } from '../../shared/db/item-size';
import { STATUS_ITEM_BYTES } from '../../shared/sending/messages/content';
import type { MessageItem, TimelineEventItem } from '../../shared/sending/messages/model';
import { MessageRepository } from '../../shared/sending/messages/repository';
import { readTimeline, workerEventId } from '../../shared/sending/messages/timeline';
import { deliveryNotification, snsWrap } from '../support/ses-events';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker as send, ingestSesEvent as ingest } from '../support/consumers';

const bytes = (item: object): number => storedItemBytes(item as Record<string, unknown>);

const bed = useTestbed();
afterEach(() => vi.restoreAllMocks());
let counted: string[];
beforeEach(() => {
  counted = [];
  const count = bed.c.metrics.count.bind(bed.c.metrics);
  vi.spyOn(bed.c.metrics, 'count').mockImplementation((name, ...rest) => {
    counted.push(name);
    return count(name, ...rest);
  });
});

let n = 0;
/** A short live send, taken by the send worker: the message is `sent`. */
async function sentMessage(): Promise<MessageItem> {
  const res = await bed.request({
    method: 'POST',
    path: '/v1/send',
    key: bed.account.admin_key,
    body: { channel: 'email', idempotency_key: `fold-${++n}`, destination: { email: 'ada@example.com' }, payload: { subject: 'Your code', body_text: 'Your code is 123456.' }, metadata: { from_email: 'hi@acme.test' } },
  });
  expect(res.status).toBe(201);
  const job = bed.c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === res.body.id)?.body;
  expect((await send(sqsEvent([sqsRecord(job)]))).batchItemFailures).toEqual([]);
  return (await bed.c.store.get<MessageItem>(keys.message(res.body.id)))!;
}

const later = (seconds: number): string => new Date(bed.c.clock.now().getTime() + seconds * 1000).toISOString();

/** SES's Delivery for the message, as the ses-events queue brings it. */
async function deliver(m: MessageItem, snsMessageId?: string): Promise<unknown> {
  const target = { providerMessageId: m.provider_message_id!, recipient: m.recipient, messageId: m.id, accountId: m.account_id };
  const out = await ingest(sqsEvent([sqsRecord(snsWrap(deliveryNotification(target, { at: later(2) }), { snsMessageId }))]));
  expect(out.batchItemFailures).toEqual([]);
  return out;
}

const partition = async (id: string) => (await bed.c.store.query<MessageItem | TimelineEventItem>({ ...keyQueries.messageTimeline(id) })).items;

const getMessage = (id: string) => bed.request({ method: 'GET', path: `/v1/messages/${id}`, key: bed.account.admin_key });

describe('a live send', () => {
  it('keeps its sent and delivered events on the message item, which stays within one write unit, and shows them as events', async () => {
    const m = await sentMessage();
    await deliver(m);

    const items = await partition(m.id);
    expect(items.map((i) => i.entity)).toEqual(['message']);
    const stored = items[0] as MessageItem;
    expect(stored.status).toBe('delivered');
    // SES's notification is the delivered event's payload: with it the item passes one unit, and its
    // one write costs what the event item and the status move cost as two.
    expect(Math.ceil(bytes(stored) / 1024)).toBeLessThanOrEqual(Math.ceil(bytes({ ...stored.evt_delivered, type: 'delivered', message_id: m.id, account_id: m.account_id, pk: '', sk: '' }) / 1024) + 1);
    const res = await getMessage(m.id);
    expect(res.status).toBe(200);
    expect(res.body.events.map((e: { type: string }) => e.type)).toEqual(['sent', 'delivered']);
    expect(res.body.events[0]).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'sent',
      message_id: m.id,
      account_id: m.account_id,
      source: 'worker',
      provider_event_id: workerEventId(m.id, 'sent'),
      payload: { provider_message_id: m.provider_message_id },
      occurred_at: expect.any(String),
      created_at: expect.any(String),
    });
    expect(counted.filter((c) => c === 'MessagesSent' || c === 'MessagesDelivered')).toEqual(['MessagesSent', 'MessagesDelivered']);
  });

  it('keeps the sent event alone within one write unit, SES ids and all', async () => {
    const m = await sentMessage();

    expect(m.evt_sent).toBeDefined();
    expect(bytes(m)).toBeLessThanOrEqual(STATUS_ITEM_BYTES);
  });

  it('gives a second Delivery of another SNS id an event item of its own: both are on the timeline', async () => {
    const m = await sentMessage();
    await deliver(m, 'sns-first');
    await deliver(m, 'sns-second');

    const { events } = await readTimeline(bed.c.store, m.id);
    expect(events.filter((e) => e.type === 'delivered').map((e) => e.provider_event_id).sort()).toEqual(['sns-first', 'sns-second']);
    expect((await partition(m.id)).filter((i) => i.entity === 'message_event').map((i) => (i as TimelineEventItem).provider_event_id)).toEqual(['sns-second']);
  });
});

describe('event items written before events were kept on the message', () => {
  /** What the timeline held before: `delivered` on an item of its own, the status moved by a write of its own. */
  async function deliveredTheOldWay(m: MessageItem, snsMessageId: string): Promise<TimelineEventItem> {
    const at = later(1);
    const event = { id: `evt_old${n}`, type: 'delivered' as const, message_id: m.id, account_id: m.account_id, source: 'sns' as const, provider_event_id: snsMessageId, payload: { old: true }, occurred_at: at, created_at: at };
    const messages = new MessageRepository(bed.c.store);
    expect(await messages.addEvent(event)).toBe(true);
    expect(await messages.moveStatus(m.id, { status: 'delivered', at, now: at })).toBe(true);
    return (await messages.getEvent(m.id, snsMessageId))!;
  }

  it('are read once, and their signal coming again is a duplicate that stores nothing more', async () => {
    const m = await sentMessage();
    const old = await deliveredTheOldWay(m, `sns-old-${n}`);
    counted.length = 0;

    await deliver(m, old.provider_event_id);

    const res = await getMessage(m.id);
    expect(res.body.events.map((e: { id: string; type: string }) => [e.type, e.id])).toEqual([
      ['sent', m.evt_sent!.i],
      ['delivered', old.id],
    ]);
    expect(res.body.events[1].payload).toEqual({ old: true });
    expect(((await partition(m.id)).find((i) => i.entity === 'message') as MessageItem).evt_delivered).toBeUndefined();
    expect(counted).not.toContain('MessagesDelivered');
  });

  it('are shown once when the message item holds the same signal too', async () => {
    const m = await sentMessage();
    const sent = (await readTimeline(bed.c.store, m.id)).events[0]!;
    await new MessageRepository(bed.c.store).addEvent({ ...sent, id: 'evt_olditem' });

    const res = await getMessage(m.id);

    expect(res.body.events.map((e: { id: string }) => e.id)).toEqual(['evt_olditem']);
  });
});
