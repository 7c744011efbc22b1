// The sending benchmark's sends: its sizes, the two bodies it prices, the items it posts, and what
// one single send left (its port calls and consumer invocations), by step.
import { functions } from '../../../functions/manifest';
import { MODEL_MS, modelledMs } from '../../lib/cost';
import type { Invocation, PortCall } from '../../lib/runtime';

export const S = { singleSends: 3, steadySends: 20, batchItems: 1000, batches: 3, floorWarmupMs: 150, floorMs: { single: 1_000, batchPut: 800, batchGet: 500, queue: 500 } } as const;

/**
 * Lambda durations are modelled, not measured (dynalite and the emulators say nothing about a
 * region's latencies): a single send's and each consumer invocation's from the round trips its
 * calls made (bench/lib/cost.ts, modelledMs). A batch is assumed: 5 ms of validation, claims and
 * writes per item (its claims overlap CLAIM_CONCURRENCY at a time, which the round-trip model
 * cannot see), plus 40 ms per object store PUT, CLAIM_CONCURRENCY of them at once.
 */
export const ASSUMED_MS = { apiPerBatchItem: 5, objectPut: MODEL_MS.latency.objectsPut ?? 40 };

/** Modelled ms of each invocation of `queue` the sends made, from the calls inside its window (invocations run one at a time). */
export const invocationMs = (s: Pick<Single, 'calls' | 'invocations'>, queue: string): number[] =>
  s.invocations
    .filter((i) => i.queue === queue)
    .map((i) => modelledMs(s.calls.filter((c) => c.by === queue && c.startMs >= i.startMs && c.startMs <= i.startMs + i.ms), i.bodies.length));

/**
 * The consumers' work for `emails` emails accepted first and then handed to the consumers in
 * full batches (the steady column's single sends, a batch's items): their calls and invocations.
 */
export interface Drained {
  emails: number;
  calls: PortCall[];
  invocations: Invocation[];
}

/** A set of single sends as one Drained (each consumer message taken on its own). */
export const drainedOf = (singles: Single[]): Drained => ({ emails: singles.length, calls: singles.flatMap((s) => s.calls), invocations: singles.flatMap((s) => s.invocations) });

/** Messages of `queue` per invocation, on average. */
export const messagesPerInvocation = (d: Drained, queue: string): number => {
  const mine = d.invocations.filter((i) => i.queue === queue);
  return mine.length ? mine.reduce((n, i) => n + i.bodies.length, 0) / mine.length : 0;
};

/**
 * The two bodies priced: a short text email, and a 20 KB HTML one (a typical marketing template).
 * A batch of 20 KB items holds 400 of them: 1,000 would pass API Gateway's 10 MB body limit.
 */
export const SCENARIOS = [
  { name: 'small', title: 'a short text body', batchItems: 1000 },
  { name: 'html20k', title: 'a 20 KB HTML body', batchItems: 400 },
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/**
 * A 20 KB HTML body, different per message: table-based markup with inline styles around text of
 * words drawn from a 400-word vocabulary by a seeded generator, so it compresses about as well as a
 * real marketing email (gzip about 5:1), not as well as a repeated paragraph would.
 */
const html20k = (i: number): string => {
  let seed = 2_654_435_761 * (i + 1);
  const next = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  const vocabulary = Array.from({ length: 400 }, (_, k) => k.toString(36).padStart(3, 'q') + 'aeiou'.charAt(k % 5) + 'lnrst'.charAt((k * 7) % 5));
  const words = (n: number): string => Array.from({ length: n }, () => vocabulary[Math.floor(next() * vocabulary.length)]).join(' ');
  const parts = [`<!doctype html><html><body style="margin:0;padding:0;background:#f4f4f7"><table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center"><h1 style="font-family:Arial,sans-serif;color:#333">Benchmark message ${i}</h1>`];
  for (let row = 0; parts.join('').length < 20_480; row++) {
    parts.push(`<tr><td style="padding:12px 24px;font-family:Arial,sans-serif;font-size:15px;line-height:22px;color:#51545e"><p>${words(14)}</p><a href="https://example.com/p/${row}?u=${i}&amp;c=${Math.floor(next() * 1e6)}" style="color:#3869d4">${words(3)}</a></td></tr>`);
  }
  const tail = '</td></tr></table></body></html>';
  return parts.join('').slice(0, 20_480 - tail.length) + tail;
};

export const apiFn = functions.find((f) => f.http?.some((r) => r.path === '/v1/send'))?.name ?? 'send';

export const emailItem = (from: string, tag: string, i: number, scenario: Scenario = SCENARIOS[0]): Record<string, unknown> => ({
  channel: 'email',
  idempotency_key: `${tag}-${i}`,
  destination: { email: `user${i}@example.com` },
  payload:
    scenario.name === 'html20k'
      ? { subject: `Benchmark message ${i}`, body_html: html20k(i) }
      : { subject: `Benchmark message ${i}`, body_text: `Hello user ${i}, this is message ${i} of a benchmark batch.` },
  metadata: { from_email: from },
});

export interface Single {
  apiMs: number;
  calls: PortCall[];
  invocations: Invocation[];
  status: string;
}

export const queuesReached = (singles: Single[]): string[] => [...new Set(singles.flatMap((s) => s.invocations.map((i) => i.queue)))];

export const stepsOf = (singles: Single[]): string[] => ['api', ...queuesReached(singles)];
