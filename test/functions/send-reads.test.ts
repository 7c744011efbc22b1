// The reads POST /v1/send makes before it stores a message (docs/api-decisions.md, "the acceptance
// reads"): the suppressions and spend caps eventually consistent, the domains consistent, the caps
// read made with the domains read rather than after the suppressions; and the send worker's own
// suppression read consistent, so a suppression a stale acceptance read missed is still honoured.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../shared/db/store';
import { suppress } from '../../shared/sending/suppressions/service';
import { readTimeline } from '../../shared/sending/messages/timeline';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker } from '../support/consumers';

/** One store read as the proxy saw it: which, of what sort key (prefix), with what consistency, in which step. */
interface Seen {
  op: string;
  /** The sort key (or key condition's prefix) of the first key asked for. */
  what: string;
  consistent: boolean;
  step: 'api' | 'worker';
}

const bed = useTestbed();
let raw: Store;
let seen: Seen[];
let events: string[];
let step: Seen['step'];
/** When set, an eventually consistent batchGet of suppressions answers nothing: a read a moment stale. */
let staleSuppressions: boolean;

const sortKeyOf = (key: unknown): string => String((key as { sk?: unknown }).sk ?? '');

beforeEach(() => {
  raw = bed.c.store;
  [seen, events, step, staleSuppressions] = [[], [], 'api', false];
  bed.c.store = new Proxy(raw, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const [first, second] = args as [Record<string, any>, any];
        let what = '';
        let consistent = true;
        if (prop === 'batchGet') [what, consistent] = [sortKeyOf(first[0]), second?.consistent ?? true];
        if (prop === 'get') [what, consistent] = [sortKeyOf(first), second ?? true];
        if (prop === 'query') [what, consistent] = [String(first.values?.[':prefix'] ?? ''), first.consistent ?? true];
        const call: Seen = { op: String(prop), what, consistent, step };
        seen.push(call);
        events.push(`${call.op} ${call.what}: start`);
        if (prop === 'batchGet' && staleSuppressions && !consistent && what.startsWith('SUPP')) return [];
        const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        events.push(`${call.op} ${call.what}: end`);
        return result;
      };
    },
  });
});
afterEach(() => {
  bed.c.store = raw;
});

let n = 0;
async function send(to: string): Promise<{ status: number; id: string; job: unknown }> {
  const res = await bed.request({
    method: 'POST',
    path: '/v1/send',
    key: bed.account.admin_key,
    body: { channel: 'email', idempotency_key: `reads-${++n}`, destination: { email: to }, payload: { subject: 'Hi', body_text: 'Hello' }, metadata: { from_email: 'hi@acme.test' } },
  });
  const job = bed.c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === res.body.id)?.body;
  return { status: res.status, id: res.body.id, job };
}

const apiReads = (prefix: string) => seen.filter((s) => s.step === 'api' && s.what.startsWith(prefix));

describe('the acceptance reads of POST /v1/send', () => {
  it('reads the suppressions and spend caps eventually consistent and the domains consistently', async () => {
    const res = await send('ada@example.com');

    expect(res.status).toBe(201);
    expect(apiReads('SUPP').map((s) => [s.op, s.consistent])).toEqual([['batchGet', false]]);
    expect(apiReads('SPENDCAP').map((s) => [s.op, s.consistent])).toEqual([['batchGet', false]]);
    expect(apiReads('DOMAIN').map((s) => [s.op, s.consistent])).toEqual([['query', true]]);
  });

  it('starts the spend caps read before the domains read has answered', async () => {
    await send('ada@example.com');

    const domainsEnd = events.findIndex((e) => e.startsWith('query DOMAIN') && e.endsWith(': end'));
    const capsStart = events.findIndex((e) => e.startsWith('batchGet SPENDCAP') && e.endsWith(': start'));
    expect(domainsEnd).toBeGreaterThan(-1);
    expect(capsStart).toBeGreaterThan(-1);
    expect(capsStart).toBeLessThan(domainsEnd);
  });

  it('still refuses a recipient suppressed well before the send', async () => {
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'gone@example.com', reason: 'manual' });

    const res = await bed.request({
      method: 'POST',
      path: '/v1/send',
      key: bed.account.admin_key,
      body: { channel: 'email', idempotency_key: `reads-${++n}`, destination: { email: 'gone@example.com' }, payload: { subject: 'Hi', body_text: 'Hello' }, metadata: { from_email: 'hi@acme.test' } },
    });

    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({ code: 'recipient_suppressed', message: expect.any(String), status: 409 });
  });
});

describe('a suppression the acceptance read missed', () => {
  it('is honoured by the send worker, whose suppression read is consistent: nothing is mailed', async () => {
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'late@example.com', reason: 'manual' });
    staleSuppressions = true;
    const accepted = await send('late@example.com');
    expect(accepted.status).toBe(201);

    step = 'worker';
    expect((await sendWorker(sqsEvent([sqsRecord(accepted.job)]))).batchItemFailures).toEqual([]);

    expect(seen.filter((s) => s.step === 'worker' && s.what.startsWith('SUPP')).map((s) => s.consistent)).toEqual([true]);
    expect(bed.c.mailed).toEqual([]);
    expect((await readTimeline(bed.c.store, accepted.id)).message?.status).toBe('suppressed');
  });
});
