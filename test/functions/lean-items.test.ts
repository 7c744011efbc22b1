// A message's content is written once and status changes never pay for it: the status item that
// the worker and the events update stays within one write unit (1 KB) whatever was sent, and the
// content (on that item while it fits, else a gzipped content item, else the object store) is
// never written again. Writes are seen at the store port, as the bench counts them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { table } from '../../shared/db/schema';
import type { Store } from '../../shared/db/store';
import { STATUS_ITEM_BYTES } from '../../shared/sending/messages/content';
import { storedItemBytes } from '../../shared/db/item-size';
import { type MessageItem } from '../../shared/sending/messages/model';
import { recordEvent } from '../../shared/sending/messages/timeline';
import { call } from '../support/api';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker } from '../support/consumers';

interface Write {
  op: string;
  pk: string;
  sk: string;
  /** DynamoDB bytes of the item as written (an update: the item after it). */
  bytes: number;
}

let writes: Write[] = [];
let raw: Store;

const bed = useTestbed();
beforeEach(() => {
  raw = bed.c.store;
  writes = [];
  const record = (op: string, item: Record<string, unknown>) => writes.push({ op, pk: String(item.pk), sk: String(item.sk), bytes: storedItemBytes(item) });
  bed.c.store = new Proxy(raw, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (prop === 'put' || prop === 'create') record(String(prop), args[0] as Record<string, unknown>);
        if (prop === 'batchPut') for (const item of args[0] as Array<Record<string, unknown>>) record('batchPut', item);
        if (prop === 'update') record('update', result as Record<string, unknown>);
        return result;
      };
    },
  });
});
afterEach(() => {
  bed.c.store = raw;
});

let n = 0;
/** A 20 KB HTML body of table rows, as a newsletter would have: it gzips well below 8 KiB. */
const newsletter = Array.from({ length: 400 }, (_, i) => `<tr><td style="padding:12px;font-family:Arial">Item ${i}: read more at https://acme.test/p/${i * 7919}</td></tr>`).join('').slice(0, 20_480);

async function accept(payload: Record<string, unknown>, metadata: Record<string, unknown> = {}): Promise<{ id: string; job: unknown }> {
  const res = await call({
    method: 'POST',
    path: '/v1/send',
    key: bed.account.admin_key,
    body: { channel: 'email', idempotency_key: `lean-${++n}`, destination: { email: 'ada@example.com' }, payload, metadata: { from_email: 'Acme <hi@acme.test>', ...metadata } },
  });
  expect(res.status).toBe(201);
  const job = bed.c.sent.find((s) => (s.body as { message_id: string }).message_id === res.body.id)?.body;
  return { id: res.body.id, job };
}

const ofMessage = (id: string) => writes.filter((w) => w.pk === keys.messagePartition(id));

type Payload = { subject: string; body_text?: string; body_html?: string };

describe.each<[string, Payload, Record<string, unknown>, 'inline' | 'item']>([
  ['a short text body (kept on the status item)', { subject: 'Hi', body_text: 'Hello Ada' }, {}, 'inline'],
  ['3 KB of metadata (a content item)', { subject: 'Hi', body_text: 'Hello Ada' }, { note: 'n'.repeat(3_000) }, 'item'],
  ['a 20 KB HTML body (a gzipped content item)', { subject: 'Newsletter', body_html: newsletter }, {}, 'item'],
])('a send with %s', (_title, payload, metadata, where) => {
  it('writes the content once, and every status change writes the small status item only', async () => {
    const { id, job } = await accept(payload, metadata);

    const status = await raw.get<MessageItem>(keys.message(id));
    expect(status!.content_item ? 'item' : 'inline').toBe(where);
    // Named by the request body's digest too (a reused key never overwrites it): shared/sending/messages/content.ts.
    const content = status!.content_item ? await raw.get(keys.messageContent(id, status!.content_item === true ? undefined : status!.content_item)) : undefined;
    expect(content === undefined ? 'inline' : 'item').toBe(where);

    expect((await sendWorker(sqsEvent([sqsRecord(job)]))).batchItemFailures).toEqual([]);
    await recordEvent(bed.c, { id, account_id: bed.account.account_id, test_mode: false }, { type: 'delivered', source: 'ses', providerEventId: `ses-delivery-${id}`, payload: {}, occurredAt: new Date(bed.c.clock.now().getTime() + 1000).toISOString() });

    // The worker mailed the whole content it was given.
    expect(bed.c.mailed.at(-1)).toMatchObject({ messageId: id, subject: payload.subject, ...(payload.body_html ? { html: payload.body_html } : { text: payload.body_text }) });
    const mine = ofMessage(id);
    // The content item, when there is one, was written once (at acceptance) and never again.
    expect(mine.filter((w) => w.sk.startsWith('CONTENT'))).toHaveLength(where === 'item' ? 1 : 0);
    // The status item: written at acceptance (its conditional put is the send's idempotency claim),
    // then updated by the lease, the handoff and the delivery, each within one unit.
    const onStatus = mine.filter((w) => w.sk === 'MSG');
    expect(onStatus.map((w) => w.op)).toEqual(['create', 'update', 'update', 'update']);
    for (const w of onStatus) expect(w.bytes).toBeLessThanOrEqual(STATUS_ITEM_BYTES);
    expect(await raw.get<MessageItem>(keys.message(id))).toMatchObject({ status: 'delivered', provider_message_id: `ses-1-${id}` });
  });

  it('answers GET /v1/messages/{id} and the list as before: no content, the timeline only', async () => {
    const { id, job } = await accept(payload, metadata);
    await sendWorker(sqsEvent([sqsRecord(job)]));

    const one = await call({ method: 'GET', path: `/v1/messages/${id}`, key: bed.account.admin_key });
    const list = await call({ method: 'GET', path: '/v1/messages', key: bed.account.admin_key });

    expect(one.status).toBe(200);
    expect(Object.keys(one.body).sort()).toEqual(['channel', 'created_at', 'events', 'id', 'idempotency_key', 'message_type', 'provider_message_id', 'scheduled_at', 'status', 'template_id', 'template_version', 'test_mode', 'updated_at']);
    expect(one.body).toMatchObject({ id, status: 'sent', events: [expect.objectContaining({ type: 'sent' })] });
    expect(one.body.events).toHaveLength(1);
    expect(list.body.messages.find((m: { id: string }) => m.id === id)).toEqual({ id, channel: 'email', status: 'sent', message_type: 'transactional', created_at: expect.any(String) });
  });
});

describe("the account's message list index", () => {
  it('holds only what never changes after acceptance, so status changes write the table item alone', async () => {
    const { id, job } = await accept({ subject: 'Hi', body_text: 'Hello Ada' });
    const before = await raw.query<Record<string, unknown>>({ ...(await byMessageEntry(id)) });
    expect((await sendWorker(sqsEvent([sqsRecord(job)]))).batchItemFailures).toEqual([]);
    await recordEvent(bed.c, { id, account_id: bed.account.account_id, test_mode: false }, { type: 'delivered', source: 'ses', providerEventId: `ses-delivery-${id}`, payload: {}, occurredAt: new Date(bed.c.clock.now().getTime() + 1000).toISOString() });

    const after = await raw.query<Record<string, unknown>>({ ...(await byMessageEntry(id)) });
    expect(before.items).toHaveLength(1);
    // The entry is the same after the lease, the handoff and the delivery: none of them touched it.
    expect(after.items).toEqual(before.items);
    expect(Object.keys(after.items[0]!).sort()).toEqual(['channel', 'created_at', 'gsi3pk', 'gsi3sk', 'pk', 'sk']);
    // The list still shows the status, read from the table.
    const list = await call({ method: 'GET', path: '/v1/messages', key: bed.account.admin_key, query: { status: 'delivered' } });
    expect(list.body.messages.map((m: { id: string; status: string }) => [m.id, m.status])).toEqual([[id, 'delivered']]);
  });
});

async function byMessageEntry(id: string) {
  const index = table.indexes.byMessage;
  const message = await raw.get<MessageItem>(keys.message(id));
  return {
    index: index.name,
    keyCondition: '#pk = :pk AND #sk = :sk',
    names: { '#pk': index.partitionKey, '#sk': index.sortKey },
    values: { ':pk': keys.messageListPartition(bed.account.account_id), ':sk': keys.messageListEntry(bed.account.account_id, id, Date.parse(message!.created_at)).gsi3sk },
  };
}
