// `kill -9` of the local runtime, mid-batch and right after a batch is accepted: after a restart
// every accepted message reaches a final status, none is mailed twice, and no message that was
// never accepted appears. What happened is read back from the store and the SES emulator.
import { afterAll, describe, expect, it } from 'vitest';
import { api, useKillableRuntime, type RuntimeProcess } from '../support/local-process';
import { countAccountMessages, countMessagesWhere, scanEntity as scan, scanTimelineEvents, storeOf } from '../support/runtime-store';
import { waitFor } from '../support/wait';

const ITEMS = 400;
const FINAL = new Set(['delivered', 'bounced', 'complained', 'failed', 'suppressed', 'canceled']);

const runtime = useKillableRuntime('crash');

/** The account's messages and, per message id, the types on its timeline. */
async function readBack(r: RuntimeProcess): Promise<{ messages: Array<Record<string, any>>; events: Map<string, string[]> }> {
  const db = storeOf(r);
  const messages = (await scan(db, 'message')).filter((m) => m.account_id === runtime.bootstrap.account_id);
  const events = new Map<string, string[]>();
  for (const e of await scanTimelineEvents(db)) events.set(e.message_id, [...(events.get(e.message_id) ?? []), e.type]);
  db.destroy();
  return { messages, events };
}

/** Mail the SES emulator holds, counted by our message id (the X-Postbox-Message-Id header). */
async function mailedCounts(r: RuntimeProcess): Promise<Map<string, number>> {
  const store = (await (await fetch(`${r.sesUrl}/store`)).json()) as { emails: Array<{ headers?: Array<{ name: string; value: string }> }> };
  const counts = new Map<string, number>();
  for (const email of store.emails) {
    const id = email.headers?.find((h) => h.name.toLowerCase() === 'x-postbox-message-id')?.value ?? '(none)';
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

const batch = (tag: string) =>
  Array.from({ length: ITEMS }, (_, i) => ({
    channel: 'email',
    idempotency_key: `${tag}-${i}`,
    destination: { email: 'ada@example.com' },
    payload: { subject: `${tag} ${i}`, body_text: 'Hi' },
  }));

/** Waits until every one of `ids` is final, then checks nothing is doubled or invented. */
async function expectAllFinalOnce(r: RuntimeProcess, ids: readonly string[], tag: string): Promise<void> {
  const wanted = new Set(ids);
  // Polled as a count (cheap for the runtime's store); the items are read once it holds.
  const db = storeOf(r);
  const finals = [...FINAL];
  const finalValues = Object.fromEntries(finals.map((s, i) => [`:f${i}`, s]));
  let final = 0;
  await waitFor(
    async () => {
      final = await countMessagesWhere(db, runtime.bootstrap.account_id, {
        expression: `begins_with(idempotency_key, :tag) AND #s IN (${Object.keys(finalValues).join(', ')})`,
        values: { ':tag': `${tag}-`, ...finalValues },
        names: { '#s': 'status' },
      });
      return final >= wanted.size;
    },
    { what: () => `${wanted.size} messages of ${tag} to reach a final status (${final} have)`, timeoutMs: 90_000, intervalMs: 500 },
  );
  db.destroy();
  const seen = await readBack(r);
  const mine = seen.messages.filter((m) => String(m.idempotency_key).startsWith(`${tag}-`));
  // None invented: the stored messages are exactly the accepted ones.
  expect(new Set(mine.map((m) => m.id))).toEqual(wanted);
  expect(mine.filter((m) => m.status !== 'delivered')).toEqual([]);
  const mailed = await mailedCounts(r);
  for (const id of wanted) {
    const types = seen.events.get(id) ?? [];
    expect({ id, sent: types.filter((t) => t === 'sent').length, delivered: types.filter((t) => t === 'delivered').length, mailed: mailed.get(id) ?? 0 }).toEqual({
      id,
      sent: 1,
      delivered: 1,
      mailed: 1,
    });
  }
}

/** The account's live sends this month as GET /v1/usage counts them (at acceptance, given back when unbillable). */
const sendCount = async (r: RuntimeProcess): Promise<number> => (await api(r.url, 'GET', '/v1/usage', runtime.bootstrap.admin_key)).body.total_send_count;

/** What the restarted runtime's start-up sweep says it resolved (it logs at warn). */
const sweptAtStart = (r: RuntimeProcess): string => /acceptance sweep resolved[^\n]*/.exec(r.output())?.[0] ?? 'acceptance sweep: nothing to resolve';

const report: string[] = [];
afterAll(() => {
  // The closing note quotes these figures.
  process.stdout.write(`crash: ${report.join('; ')}\n`);
});

describe('kill -9 of the local runtime', () => {
  // Two kill points inside one batch, both after its jobs were handed on and while its messages
  // are being stored (each message's put is its idempotency claim): at the first stored, and
  // halfway. The jobs of the messages not yet stored wait for the retry to store them.
  const killPoints = [
    { name: 'at its first stored message', tag: 'midstore', entity: 'message', atLeast: 1 },
    { name: 'halfway through storing its messages', tag: 'halfstored', entity: 'message', atLeast: ITEMS / 2 },
  ];
  for (const point of killPoints) {
    it(`mid-batch, ${point.name}: the same batch retried after a restart answers ids that all exist, each mailed once`, { timeout: 240_000 }, async () => {
      const first = runtime.current;
      const body = batch(point.tag);
      const db = storeOf(first);
      // The account's messages counted on their index: a Scan of the whole table is slow enough
      // that the batch could be done before it saw half of it.
      const before = await countAccountMessages(db, runtime.bootstrap.account_id);
      const countedBefore = await sendCount(first);
      const answered = fetch(`${first.url}/v1/send/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${runtime.bootstrap.admin_key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(
        (res) => res.status,
        () => 'no answer',
      );
      const written = await waitFor(
        async () => {
          const n = (await countAccountMessages(db, runtime.bootstrap.account_id)) - before;
          return n >= point.atLeast && n;
        },
        { what: `the batch to write ${point.atLeast} ${point.entity} items`, timeoutMs: 30_000, intervalMs: 5 },
      );
      first.child.kill('SIGKILL');
      db.destroy();
      expect(await answered).toBe('no answer');

      const second = await runtime.restart();
      const retry = await api(second.url, 'POST', '/v1/send/batch', runtime.bootstrap.admin_key, body);

      expect(retry.status).toBe(200);
      expect(retry.body.filter((r: { success: boolean }) => !r.success)).toEqual([]);
      const ids = retry.body.map((r: { response: { id: string } }) => r.response.id);
      expect(new Set(ids).size).toBe(ITEMS);
      await expectAllFinalOnce(second, ids, point.tag);
      // Usage counts each message once. The killed request reserved the whole batch before its puts
      // and the retry reserved it again; each reservation a message did not keep is given back once:
      // the retry's at once for the messages the killed request stored, the killed request's by its
      // jobs as they find the retry's messages (they may still be coming back from waiting for them).
      let counted = 0;
      await waitFor(async () => (counted = (await sendCount(second)) - countedBefore) === ITEMS, {
        what: () => `usage to count the ${ITEMS} messages once (${counted} counted)`,
        timeoutMs: 120_000,
        intervalMs: 500,
      });
      expect(counted).toBe(ITEMS);
      report.push(`killed ${point.name} (${written} ${point.entity} items of ${ITEMS} seen); ${sweptAtStart(second)}; the retry answered ${ITEMS} ids, all delivered, each mailed once; usage counted ${counted}`);
    });
  }

  it('right after a batch is accepted: every accepted message is delivered after a restart, each mailed once', { timeout: 240_000 }, async () => {
    const first = runtime.current;
    const countedBefore = await sendCount(first);
    const accepted = await api(first.url, 'POST', '/v1/send/batch', runtime.bootstrap.admin_key, batch('after'));
    first.child.kill('SIGKILL');

    expect(accepted.status).toBe(200);
    const ids = accepted.body.map((r: { success: boolean; response: { id: string } }) => r.success && r.response.id);
    expect(ids.filter((id: unknown) => !id)).toEqual([]);
    const second = await runtime.restart();
    await expectAllFinalOnce(second, ids, 'after');
    // Counted once each at acceptance: the worker of the restarted runtime adds none.
    expect((await sendCount(second)) - countedBefore).toBe(ITEMS);
    report.push(`after acceptance: ${ids.length} accepted, killed at once; ${sweptAtStart(second)}; all ${ids.length} delivered after restart, each mailed once`);
  });
});
