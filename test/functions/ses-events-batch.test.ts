// The ses-events consumer's batch: its records share each account's webhook subscription lookup
// (one per account and invocation), and every event still reaches the webhooks it should.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readTimeline } from '../../shared/sending/messages/timeline';
import { createSubscription } from '../../shared/webhooks/subscriptions';
import { type TestContainer } from '../support/container';
import { useContainer } from '../support/testbed';
import { deliveryNotification, seedSentMessage, snsWrap, type SentMessage } from '../support/ses-events';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { ingestSesEvent as handler } from '../support/consumers';

let c: TestContainer;
const box = useContainer();
// A minute on before each test (useContainer's 2 s and 58 more): each test's SES events are its own.
beforeEach(() => {
  c = box.c;
  c.clock.advance(58_000);
  c.sent.length = 0;
});
afterEach(() => vi.restoreAllMocks());

const later = (seconds: number): string => new Date(c.clock.now().getTime() + seconds * 1000).toISOString();

/** The store queries of webhook subscriptions made while `run` runs. */
async function subscriptionLookups(run: () => Promise<unknown>): Promise<number> {
  const query = vi.spyOn(c.store, 'query');
  try {
    await run();
    return query.mock.calls.filter(([q]) => JSON.stringify(q).includes('WEBHOOK#')).length;
  } finally {
    query.mockRestore();
  }
}

const seed = async (accountId: string, n: number): Promise<SentMessage[]> => Promise.all(Array.from({ length: n }, () => seedSentMessage(c, { accountId })));

describe('a batch of delivery events of two accounts', () => {
  it('looks each account\'s webhook subscriptions up once, and hands every event its subscriptions want to the webhooks', async () => {
    // Prepare: ten messages of an account with a `delivered` webhook, two of one without any.
    const [withHook, without] = [`acct_${c.ids.next('msg').slice(4)}`, `acct_${c.ids.next('msg').slice(4)}`];
    await createSubscription(c, withHook, { endpoint_url: 'https://93.184.216.34/hook', event_types: ['delivered'] });
    const sent = [...(await seed(withHook, 10)), ...(await seed(without, 2))];
    const records = sent.map((s) => sqsRecord(snsWrap(deliveryNotification(s.target, { at: later(3) }))));

    // Act
    let out: Awaited<ReturnType<typeof handler>> | undefined;
    const lookups = await subscriptionLookups(async () => (out = await handler(sqsEvent(records))));

    // Assess
    expect(out?.batchItemFailures).toEqual([]);
    expect(lookups).toBe(2);
    for (const s of sent) expect((await readTimeline(c.store, s.message.id)).message?.status).toBe('delivered');
    const handedOn = c.sent.filter((s) => s.queue === 'webhooks').map((s) => (s.body as { envelope: { message_id: string } }).envelope.message_id);
    expect(handedOn.sort()).toEqual(sent.slice(0, 10).map((s) => s.message.id).sort());
  });

  it('looks them up again in the next invocation, where a redelivered event is handed on again', async () => {
    const accountId = `acct_${c.ids.next('msg').slice(4)}`;
    await createSubscription(c, accountId, { endpoint_url: 'https://93.184.216.34/hook', event_types: ['delivered'] });
    const sent = await seed(accountId, 3);
    const event = sqsEvent(sent.map((s) => sqsRecord(snsWrap(deliveryNotification(s.target, { at: later(3) })))));

    expect(await subscriptionLookups(() => handler(event))).toBe(1);
    expect(await subscriptionLookups(() => handler(event))).toBe(1);

    // The duplicates are settled as before: handed on again (the webhook's deliveries collapse them).
    expect(c.sent.filter((s) => s.queue === 'webhooks')).toHaveLength(6);
  });
});
