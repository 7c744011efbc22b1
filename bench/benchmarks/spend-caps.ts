// Spend caps: what the cap check adds to POST /v1/send. Three kinds of send, interleaved in rounds
// so background load falls on all alike: live with no cap set (the check reads the caps and
// reserves the cost), live under an account and a key cap that are never reached (the same calls,
// with the write's condition), and a test-mode send, which takes the same path with no check at
// all (test mode reserves nothing: shared/billing/spend-caps/reserve.ts returns before any store call).
import { createKey } from '../../shared/accounts/api-keys/service';
import { putSpendCap } from '../../shared/billing/spend-caps/service';
import type { Benchmark } from '../run';
import { roundTrips } from '../lib/cost';
import { fmt, fmtInt, latencyCells, median, percentile, sum } from '../lib/measure';
import { apiStoreCalls, http, newSender, startBenchRuntime, type BenchRuntime, type PortCall } from '../lib/runtime';

const S = { accountsPerKind: 12, warmupRounds: 30, rounds: 300, counted: 5 } as const;
const HUGE = 1e15;

type Kind = 'none' | 'capped' | 'unchecked';
const KINDS: readonly Kind[] = ['none', 'capped', 'unchecked'];
const LABEL: Record<Kind, string> = {
  none: 'live, no cap set (caps read, cost reserved)',
  capped: 'live, account and key caps set, not reached',
  unchecked: 'test mode: the same path without the check',
};

interface Sender {
  key: string;
  from: string;
}

async function senders(b: BenchRuntime, kind: Kind): Promise<Sender[]> {
  const out: Sender[] = [];
  for (let i = 0; i < S.accountsPerKind; i++) {
    const s = await newSender(b.c, `bench caps ${kind} ${i}`);
    const key = await createKey(b.c, s.accountId, { scope: 'send', test_mode: kind === 'unchecked' }, { testMode: false });
    if (kind === 'capped') {
      await putSpendCap(b.c, s.accountId, { hard_limit_micros: HUGE, soft_limit_micros: HUGE });
      await putSpendCap(b.c, s.accountId, { key_id: key.id, hard_limit_micros: HUGE, soft_limit_micros: HUGE });
    }
    out.push({ key: key.key, from: s.from });
  }
  return out;
}

const body = (from: string, tag: string) => ({
  channel: 'email',
  idempotency_key: tag,
  destination: { email: `${tag}@example.com` },
  payload: { subject: 'Spend cap bench', body_text: 'Hello' },
  metadata: { from_email: from },
});

const storeOps = (calls: readonly PortCall[]): string[] => apiStoreCalls(calls).map((c) => c.op);

export const spendCaps: Benchmark = {
  name: 'Spend caps: the check on POST /v1/send',
  async run({ log }) {
    const b = await startBenchRuntime();
    try {
      const { rt } = b;
      const byKind = Object.fromEntries(await Promise.all(KINDS.map(async (k) => [k, await senders(b, k)] as const))) as Record<Kind, Sender[]>;
      const send = (kind: Kind, n: number) => {
        const s = byKind[kind][n % S.accountsPerKind]!;
        return http(rt, 'POST', '/v1/send', s.key, body(s.from, `${kind}-${n}`));
      };

      // Store calls of one send of each kind, counted at the store port, one request at a time.
      b.count();
      const counted: Record<Kind, { ops: string[]; trips: number }[]> = { none: [], capped: [], unchecked: [] };
      for (let i = 0; i < S.counted; i++) {
        for (const kind of KINDS) {
          b.take();
          await send(kind, 1_000_000 + i);
          const calls = apiStoreCalls(b.take());
          counted[kind].push({ ops: storeOps(calls), trips: roundTrips(calls).length });
        }
      }
      b.uncount();

      log(`  ${S.warmupRounds} warm-up and ${S.rounds} measured rounds of one send of each kind, sequential, order rotated`);
      const ms: Record<Kind, number[]> = { none: [], capped: [], unchecked: [] };
      const statuses: Record<Kind, Record<number, number>> = { none: {}, capped: {}, unchecked: {} };
      for (let round = 0; round < S.warmupRounds + S.rounds; round++) {
        for (let j = 0; j < KINDS.length; j++) {
          const kind = KINDS[(round + j) % KINDS.length]!;
          const res = await send(kind, round);
          if (round < S.warmupRounds) continue;
          ms[kind].push(res.ms);
          statuses[kind][res.status] = (statuses[kind][res.status] ?? 0) + 1;
        }
      }

      const base = ms.unchecked;
      const ratio = (kind: Kind, p: number) => percentile(ms[kind], p) / percentile(base, p);
      const mean = (values: readonly number[]) => sum(values) / values.length;
      const row = (kind: Kind) => {
        const c = counted[kind];
        const calls = mean(c.map((x) => x.ops.length));
        const trips = mean(c.map((x) => x.trips));
        const statusCell = Object.entries(statuses[kind]).map(([s, n]) => `${s}×${n}`).join(', ');
        return `| ${LABEL[kind]} | ${fmtInt(ms[kind].length)} | ${latencyCells(ms[kind], 2)} | ${fmt(ratio(kind, 50), 3)} | ${fmt(ratio(kind, 90), 3)} | ${fmt(calls, 1)} | ${fmt(trips, 1)} | ${statusCell} |`;
      };
      const added = (kind: Kind) => median(ms[kind]) - median(base);
      return [
        '## Spend caps: the check on POST /v1/send',
        '',
        `Method: the HTTP functions on a local runtime in this process (fresh DATA_DIR, LOG_LEVEL warn; the queue consumers are not running, so only the request is measured). ` +
          `${S.accountsPerKind} accounts per kind, each with a verified domain and a send key of its own; requests go round-robin over them, so no account nears its 10 requests/s. ` +
          `One request at a time over HTTP, ${S.rounds} rounds (after ${S.warmupRounds} of warm-up) of one send of each kind, the order rotated every round. ` +
          'The baseline is a test-mode send: it runs the same acceptance path (validation, claim, message, queue, claim done) and skips the spend check entirely, since test mode reserves nothing; ' +
          'a live send also hands the message to the send queue exactly as a test one does, so the difference is the check: one BatchGet of the two caps (made beside the idempotency claim, so it overlaps that write) and one conditional UpdateItem of the month\'s usage item after it.',
        '',
        '| Send | Measured | p50 ms | p90 ms | p99 ms | max ms | p50 ÷ baseline | p90 ÷ baseline | Store calls per send | Round trips | Statuses |',
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
        ...KINDS.map(row),
        '',
        `**Added by the check (median): ${fmt(added('none'), 2)} ms with no cap set (×${fmt(ratio('none', 50), 3)}), ${fmt(added('capped'), 2)} ms with caps set and not reached (×${fmt(ratio('capped', 50), 3)}).** ` +
          `Store calls of a send, counted at the port: no cap ${counted.none[0]?.ops.join(', ')}; capped ${counted.capped[0]?.ops.join(', ')}; test mode ${counted.unchecked[0]?.ops.join(', ')}.`,
        '',
        'Read it as: the check is two more store calls on every live send, with or without a cap (the cost must be reserved either way, so a cap set later knows what was spent), of which the reservation is a round trip of its own and the caps read overlaps the claim where the store serves requests in parallel (DynamoDB does; dynalite here runs one request at a time, so the overlap shows less); a cap set changes only the write\'s condition, so "capped" and "no cap" should match. ' +
          'In AWS each round trip is a few ms of DynamoDB latency; here it is dynalite on the same thread. Ratios near 1 with a spread across runs are noise; a high load average calls for another run.',
      ].join('\n');
    } finally {
      await b.close();
    }
  },
};
