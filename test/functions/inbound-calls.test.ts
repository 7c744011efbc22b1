// What the inbound worker asks of the store per received mail (issue 31, items 4 and 5): the
// account's webhook subscriptions read once (not again by the fan-out, not per record of a batch),
// and the Mail app's writes of one message made together. Counted on the embedded store's commands.
import { describe, expect, it } from 'vitest';
import { handler as receiveRaw } from '../../functions/inbound/receive-email';
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
