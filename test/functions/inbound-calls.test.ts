// What the inbound worker asks of the store per received mail (issue 31, items 4 and 5): the
// account's webhook subscriptions read once (not again by the fan-out, not per record of a batch),
// and the Mail app's writes of one message made together. Counted on the embedded store's commands.
import { describe, expect, it, vi } from 'vitest';
import { handler as receiveRaw } from '../../functions/inbound/receive-email';
import { keys } from '../../shared/db/keys';
import type { MailMessageEntry } from '../../shared/inbound-mail/mailbox/model';
import { recordMailMessage } from '../../shared/inbound-mail/mailbox/record';
import { MailThreadRepository, type MailThreadEntryItem } from '../../shared/inbound-mail/mailbox/threads-repository';
import { threadIdOf } from '../../shared/inbound-mail/receipt/thread';
import { receiptJob } from '../support/receipt';
import { giveVerifiedDomain } from '../support/domains';
import { underNeeds } from '../support/grants';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { storeCommandsDuring, type StoreCommand } from '../support/store-commands';
import { useTestbed } from '../support/testbed';
import { deliverWebhook } from '../support/consumers';

const receive = underNeeds('functions/inbound/receive-email.ts', receiveRaw);
const bed = useTestbed();

let seq = 0;

/** Stores `raw` where SES's S3 action would and answers its notification, wrapped as SNS sends it. */
async function arrived(raw: string, recipients: string[]): Promise<unknown> {
  const sesMessageId = `ses-calls-${++seq}`;
  const objectKey = `inbound/${sesMessageId}`;
  await bed.c.objects.put(objectKey, Buffer.from(raw), 'message/rfc822');
  return receiptJob({ objectKey, recipients, sesMessageId, at: bed.c.clock.now().toISOString() });
}

const mail = (i: number, to: string): string => `From: sender${i}@sender.test\r\nTo: ${to}\r\nSubject: Calls ${i}\r\nMessage-ID: <calls-${i}@sender.test>\r\n\r\nbody ${i}\r\n`;

async function subscribed(): Promise<string> {
  const res = await bed.request({ method: 'POST', path: '/v1/webhooks', key: bed.account.admin_key, body: { endpoint_url: 'https://93.184.216.34/hook', event_types: ['email.received'] } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const subscriptionQueries = (commands: StoreCommand[]): StoreCommand[] =>
  commands.filter((c) => c.name === 'QueryCommand' && c.input.ExpressionAttributeValues?.[':prefix'] === 'WEBHOOK#');

describe('the webhook subscriptions of a received mail', () => {
  it('are read once: the event job names them, so the fan-out reads them no second time and makes the delivery', async () => {
    await giveVerifiedDomain(bed.c, bed.account.account_id, 'calls.test', { inbound_enabled: true } as never);
    const subscription = await subscribed();
    bed.c.sent.length = 0;
    const job = await arrived(mail(1, 'me@calls.test'), ['me@calls.test']);

    const commands = await storeCommandsDuring(bed.c.store, async () => {
      expect(await receive(sqsEvent([sqsRecord(job)]))).toEqual({ batchItemFailures: [] });
      await drain(bed.c.sent, 'webhooks', deliverWebhook, { where: (body) => body.kind === 'event', keep: true });
    });

    expect(subscriptionQueries(commands)).toHaveLength(1);
    const event = bed.c.sent.find((s) => s.queue === 'webhooks' && (s.body as { kind: string }).kind === 'event')?.body as { subscription_ids?: string[] };
    expect(event.subscription_ids).toEqual([subscription]);
    const attempts = bed.c.sent.filter((s) => s.queue === 'webhooks' && (s.body as { kind: string }).kind === 'attempt');
    expect(attempts.map((s) => (s.body as { subscription_id: string }).subscription_id)).toEqual([subscription]);
  });

  it('are read once for a batch of mails of one account', async () => {
    await giveVerifiedDomain(bed.c, bed.account.account_id, 'batch.test', { inbound_enabled: true } as never);
    await subscribed();
    const jobs = [await arrived(mail(2, 'a@batch.test'), ['a@batch.test']), await arrived(mail(3, 'b@batch.test'), ['b@batch.test'])];

    const commands = await storeCommandsDuring(bed.c.store, async () => {
      expect(await receive(sqsEvent(jobs.map((j) => sqsRecord(j))))).toEqual({ batchItemFailures: [] });
    });

    expect(subscriptionQueries(commands)).toHaveLength(1);
    expect(bed.c.sent.filter((s) => s.queue === 'webhooks' && (s.body as { kind: string }).kind === 'event')).toHaveLength(2);
  });
});

/** An inbound message of the account (a reply when `replyTo` names the first one's Message-ID). */
function entryOf(n: number, replyTo?: string): MailMessageEntry {
  const accountId = bed.account.account_id;
  return {
    account_id: accountId,
    source: 'inbound',
    id: bed.c.ids.next('inb'),
    thread_id: threadIdOf({ accountId, rfcMessageId: replyTo ?? `<file-${n}@sender.test>`, inReplyTo: null, references: [], subject: `Filing ${n}`, participants: ['ada@sender.test'] }),
    occurred_at: new Date(Date.parse('2025-03-01T00:00:00.000Z') + n * 60_000).toISOString(),
    from: 'ada@sender.test',
    to: ['team@in.test'],
    cc: [],
    subject: `Filing ${n}`,
    text: `quarterly tangerine report ${n}`,
    address: 'team@in.test',
  };
}

const names = (commands: StoreCommand[]): string[] => commands.map((c) => c.name);
const entriesOf = (entry: MailMessageEntry): Promise<MailThreadEntryItem[]> => new MailThreadRepository(bed.c.store).entries(entry.account_id, entry.thread_id);

describe('filing a message in the Mail app', () => {
  it('reads its ref and thread together and writes its plain items in one batch with the pointers, then the thread, then the ref applied', async () => {
    const entry = entryOf(1);

    const commands = await storeCommandsDuring(bed.c.store, () => recordMailMessage(bed.c, entry));

    expect(names(commands)).toEqual(['BatchGetCommand', 'BatchWriteCommand', 'PutCommand', 'PutCommand']);
    const batch = (commands[1]?.input.RequestItems as Record<string, Array<{ PutRequest: { Item: { entity: string } } }>>)[bed.c.store.tableName] ?? [];
    expect(new Set(batch.map((r) => r.PutRequest.Item.entity))).toEqual(new Set(['mail_doc', 'mail_posting', 'mail_thread_entry', 'mail_message_ref', 'mail_view_entry']));
    expect(commands[2]?.input.Item).toMatchObject({ entity: 'mail_thread', message_count: 1 });
    expect(commands[2]?.input.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(commands[3]?.input.Item).toMatchObject({ entity: 'mail_message_ref', applied: true });
    // Run again: the applied ref ends it after the one read.
    expect(names(await storeCommandsDuring(bed.c.store, () => recordMailMessage(bed.c, entry)))).toEqual(['BatchGetCommand']);
  });

  it('joins a reply to the thread it read, under the version it read', async () => {
    const first = entryOf(2);
    await recordMailMessage(bed.c, first);
    const reply = { ...entryOf(3, '<file-2@sender.test>'), thread_id: first.thread_id };

    const commands = await storeCommandsDuring(bed.c.store, () => recordMailMessage(bed.c, reply));

    expect(names(commands).filter((n) => n === 'GetCommand')).toEqual([]);
    expect(commands.find((c) => c.input.Item?.entity === 'mail_thread')?.input).toMatchObject({ ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': 1 }, Item: { message_count: 2 } });
    expect((await entriesOf(first)).map((e) => e.id)).toEqual([first.id, reply.id]);
  });

  it('files a message once when the run that wrote its items died at the thread write', async () => {
    const entry = entryOf(4);
    const send = bed.c.store.doc.send.bind(bed.c.store.doc);
    const spy = vi.spyOn(bed.c.store.doc, 'send').mockImplementation(((command: { input: { Item?: { entity?: string } } }) => {
      if (command.input.Item?.entity === 'mail_thread') return Promise.reject(new Error('killed'));
      return send(command as never);
    }) as never);
    try {
      await expect(recordMailMessage(bed.c, entry)).rejects.toThrow('killed');
    } finally {
      spy.mockRestore();
    }
    expect(await bed.c.store.get(keys.mailMessageRef(entry.account_id, 'inbound', entry.id))).toMatchObject({ applied: false });

    await recordMailMessage(bed.c, entry);
    await recordMailMessage(bed.c, entry);

    expect((await new MailThreadRepository(bed.c.store).get(entry.account_id, entry.thread_id))?.message_count).toBe(1);
    expect((await entriesOf(entry)).map((e) => e.id)).toEqual([entry.id]);
    expect(await bed.c.store.get(keys.mailDoc(entry.account_id, 'inbound', entry.id))).toMatchObject({ thread_id: entry.thread_id });
    expect(await bed.c.store.get(keys.mailMessageRef(entry.account_id, 'inbound', entry.id))).toMatchObject({ applied: true });
  });
});

describe("a received mail's reads of its account", () => {
  it('are made side by side once the domain name is known: the domain item, the inbox, the routes, the webhook subscriptions', async () => {
    await giveVerifiedDomain(bed.c, bed.account.account_id, 'side.test', { inbound_enabled: true } as never);
    await subscribed();
    const job = await arrived(mail(5, 'me@side.test'), ['me@side.test']);
    const events: string[] = [];
    const spy = storeOrderInto(events);
    try {
      expect(await receive(sqsEvent([sqsRecord(job)]))).toEqual({ batchItemFailures: [] });
    } finally {
      spy.mockRestore();
    }

    const together = ['domain', 'inbox', 'routes', 'subscriptions'];
    const starts = together.map((r) => events.indexOf(`start ${r}`));
    const firstEnd = Math.min(...together.map((r) => events.indexOf(`end ${r}`)));
    expect(starts.every((i) => i >= 0)).toBe(true);
    expect(Math.max(...starts)).toBeLessThan(firstEnd);
    // Each read once.
    expect(together.map((r) => events.filter((e) => e === `start ${r}`).length)).toEqual([1, 1, 1, 1]);
  });

  it('start while the raw message is read, and the event goes out beside the Mail app filing it', async () => {
    await giveVerifiedDomain(bed.c, bed.account.account_id, 'early.test', { inbound_enabled: true } as never);
    await subscribed();
    const job = await arrived(mail(6, 'me@early.test'), ['me@early.test']);
    const events: string[] = [];
    const getStream = bed.c.objects.getStream.bind(bed.c.objects);
    const queueSend = bed.c.queue.send.bind(bed.c.queue);
    const spies = [
      storeOrderInto(events),
      vi.spyOn(bed.c.objects, 'getStream').mockImplementation(async (key) => {
        const got = await getStream(key);
        got?.body.once('end', () => events.push('raw read'));
        return got;
      }),
      vi.spyOn(bed.c.queue, 'send').mockImplementation(((...args: Parameters<typeof queueSend>) => {
        events.push(`start queue ${args[0]}`);
        return queueSend(...args).finally(() => events.push(`end queue ${args[0]}`));
      }) as never),
    ];
    try {
      expect(await receive(sqsEvent([sqsRecord(job)]))).toEqual({ batchItemFailures: [] });
    } finally {
      for (const spy of spies) spy.mockRestore();
    }

    // The domain name's holder is asked before the raw message is read to its end.
    expect(events.indexOf('start GetCommand')).toBeGreaterThanOrEqual(0);
    expect(events.indexOf('start GetCommand')).toBeLessThan(events.indexOf('raw read'));
    // The email.received job is sent while the Mail app's first read (its ref and thread) is under way.
    const filing = events.indexOf('start BatchGetCommand');
    expect(filing).toBeGreaterThan(events.indexOf('raw read'));
    expect(events.indexOf('start queue webhooks')).toBeLessThan(events.indexOf('end BatchGetCommand'));
    expect(filing).toBeLessThan(events.indexOf('end queue webhooks'));
  });
});

/** Notes `start <what>` and `end <what>` in `events` for each store command as it goes (readOf names it); restore the spy after. */
function storeOrderInto(events: string[]) {
  const send = bed.c.store.doc.send.bind(bed.c.store.doc);
  return vi.spyOn(bed.c.store.doc, 'send').mockImplementation(((command: { constructor: { name: string }; input: Record<string, any> }) => {
    const what = readOf(command);
    events.push(`start ${what}`);
    return send(command as never).finally(() => events.push(`end ${what}`));
  }) as never);
}

/** Which of the account's reads a store command is, by its key. */
function readOf(command: { constructor: { name: string }; input: Record<string, any> }): string {
  const sk = String(command.input.Key?.sk ?? '');
  const prefix = String(command.input.ExpressionAttributeValues?.[':prefix'] ?? '');
  if (command.constructor.name === 'GetCommand' && sk.startsWith('DOMAIN#')) return 'domain';
  if (command.constructor.name === 'GetCommand' && sk.startsWith('MAILBOX#')) return 'inbox';
  if (prefix === 'INBROUTE#') return 'routes';
  if (prefix === 'WEBHOOK#') return 'subscriptions';
  return command.constructor.name;
}
