// `kill -9` of the local runtime while a 1000-item live batch drains, once some of its messages are
// `sent`: after a restart on the same DATA_DIR every message gets its provider outcome (`delivered`,
// from the SES emulator's Delivery notification) and its status is its newest timeline event
// (issue 28, "Crashes lose nothing"). Read back from the store, as crash.test.ts does.
//
// Size: the reported fault was a 1000-item batch, and the fault it guards against needs load: a
// consumer batch slower than the retry delay (1 s here), so other lanes receive its messages again
// while it is handled (local/queue-poller.ts). A smaller batch drains too fast to
// make that happen reliably.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { sortTimeline, type TimelineEventItem } from '../../shared/sending/messages/model';
import { api, useKillableRuntime } from '../support/local-process';
import { countMessagesWhere, scanEntity as scan, scanTimelineEvents, storeOf } from '../support/runtime-store';
import { waitFor } from '../support/wait';

const ITEMS = 1000;
/** Killed once this many of the batch's messages have a `sent` event: mid-drain, outcomes in flight. */
const KILL_AFTER_SENT = 100;

const runtime = useKillableRuntime('crash-outcomes');

/** The batch's messages and, per message id, its timeline oldest first (the API's own order). */
async function readBack(db: DynamoDBDocumentClient): Promise<{ messages: Array<Record<string, any>>; timelines: Map<string, string[]> }> {
  const messages = (await scan(db, 'message')).filter((m) => m.account_id === runtime.bootstrap.account_id);
  const byMessage = new Map<string, TimelineEventItem[]>();
  for (const e of await scanTimelineEvents(db)) byMessage.set(e.message_id, [...(byMessage.get(e.message_id) ?? []), e as TimelineEventItem]);
  const timelines = new Map([...byMessage].map(([id, events]) => [id, sortTimeline(events).map((e) => e.type as string)]));
  return { messages, timelines };
}

const batch = Array.from({ length: ITEMS }, (_, i) => ({
  channel: 'email',
  idempotency_key: `outcomes-${i}`,
  destination: { email: 'ada@example.com' },
  payload: { subject: `outcomes ${i}`, body_text: 'Hi' },
}));

describe('kill -9 of the local runtime while a batch drains', () => {
  it(`every message of a ${ITEMS}-item batch gets its provider outcome after a restart, and its status is its newest event`, { timeout: 420_000 }, async () => {
    // Prepare: the batch accepted, then killed once KILL_AFTER_SENT of its messages are sent.
    const first = runtime.current;
    const { account_id: accountId, admin_key: live } = runtime.bootstrap;
    const accepted = await api(first.url, 'POST', '/v1/send/batch', live, batch);
    expect(accepted.status).toBe(200);
    const ids: string[] = accepted.body.map((r: { success: boolean; response: { id: string } }) => r.success && r.response.id);
    expect(ids.filter((id) => !id)).toEqual([]);
    const firstDb = storeOf(first);
    // Counted, not read: polling the items themselves would take the store's time from the drain.
    const sentBeforeKill = await waitFor(
      async () => {
        const sent = await countMessagesWhere(firstDb, accountId, { expression: 'attribute_exists(evt_sent) OR #s IN (:sent, :delivered)', values: { ':sent': 'sent', ':delivered': 'delivered' }, names: { '#s': 'status' } });
        return sent >= KILL_AFTER_SENT && sent;
      },
      { what: `${KILL_AFTER_SENT} messages of the batch to be sent`, timeoutMs: 120_000, intervalMs: 50 },
    );
    first.child.kill('SIGKILL');
    firstDb.destroy();

    // Act
    const db = storeOf(await runtime.restart());

    // Assess
    let delivered = 0;
    const allDelivered = () => countMessagesWhere(db, accountId, { expression: '#s = :delivered', values: { ':delivered': 'delivered' }, names: { '#s': 'status' } });
    await waitFor(async () => (delivered = await allDelivered()) >= ITEMS, { what: () => `all ${ITEMS} messages to be delivered (${delivered} are)`, timeoutMs: 180_000, intervalMs: 1000 });
    const seen = await readBack(db);
    db.destroy();
    expect(new Set(seen.messages.map((m) => m.id))).toEqual(new Set(ids));
    for (const m of seen.messages) {
      const timeline = seen.timelines.get(m.id) ?? [];
      // Its status is its newest event, and its one provider outcome is recorded once.
      expect({ id: m.id, status: m.status, newest: timeline.at(-1), delivered: timeline.filter((t) => t === 'delivered').length }).toEqual({
        id: m.id,
        status: 'delivered',
        newest: 'delivered',
        delivered: 1,
      });
    }
    process.stdout.write(`crash-outcomes: ${ITEMS} accepted, killed after ${sentBeforeKill} sent; all delivered after restart, each status its newest event\n`);
  });
});
