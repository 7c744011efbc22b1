// The local runtime as `npm start` runs it (its own process), as a small cloud (issue 31): the core
// path under an open-loop load (local-load/core.ts: 160 reads/s, then 160 single sends/s from 20
// accounts, every accepted send followed to `delivered`, three 1000-item batches in a row and
// their webhooks), each figure beside the store's own (GetItem, sequential PutItems) measured in
// the same run; then, on a fresh runtime, lone reads while a 10,000-recipient broadcast, a
// 10,000-row import and 1,000 inbound mails run together (local-load/combined.ts). Peak RSS of
// the whole runtime process in both, the machine's load noted, and each target of issue 31 stated
// with whether this run met it.
import { cpus, loadavg } from 'node:os';
import type { Benchmark } from '../run';
import { fmt, fmtInt, percentile } from '../lib/measure';
import { noteTarget } from '../lib/targets';
import { agent, count, okMs, type Answer } from './local-load/client';
import { combinedRun, COMBINED, type CombinedRun } from './local-load/combined';
import { CORE, coreRun, type CoreRun } from './local-load/core';

const load = (): string => loadavg().map((l) => l.toFixed(1)).join(' / ');

function loadRow(label: string, answers: readonly Answer[], ok: number, ms: number): string {
  const fine = okMs(answers, ok);
  const other = count(answers, (a) => a.status === 'error' || (typeof a.status === 'number' && ![ok, 503, 429].includes(a.status)));
  return `| ${label} | ${fmtInt(answers.length)} | ${fmtInt(fine.length)} (${fmt((fine.length * 1000) / ms, 0)}/s) | ${fmt(percentile(fine, 50), 1)} | ${fmt(percentile(fine, 99), 1)} | ${count(answers, (a) => a.status === 503)} | ${count(answers, (a) => a.status === 429)} | ${count(answers, (a) => a.status === 'timeout')} | ${other} |`;
}

/** The batches' webhooks: each arrival against the request of the batch its message came from. */
function hookFigures(r: CoreRun): { arrived: number; inTime: number; twice: number; lastS: number } {
  const first = r.batches[0]?.startedAt ?? 0;
  const startOf = (batch: number): number => r.batches[batch]?.startedAt ?? first;
  const afterMs = r.hooks.map((h) => h.arrivals[0]! - startOf(h.batch));
  return {
    arrived: r.hooks.length,
    inTime: afterMs.filter((ms) => ms <= CORE.webhookWaitMs).length,
    twice: r.hooks.reduce((n, h) => n + h.arrivals.length - 1, 0),
    lastS: afterMs.length ? Math.max(...afterMs) / 1000 : Number.NaN,
  };
}

function coreSection(r: CoreRun): { lines: string[]; targets: string[] } {
  const reads = okMs(r.reads);
  const storeP50 = percentile(r.storeMs, 50);
  const ratio = percentile(reads, 50) / storeP50;
  const readP99 = percentile(reads, 99);
  const timeouts = count(r.sends, (a) => a.status === 'timeout');
  const acceptedShare = r.accepted / r.sends.length;
  const batchRatios = r.batches.map((b) => b.ms / r.putsMs);
  const batchesOk = r.batches.every((b, i) => b.accepted === CORE.batchItems && batchRatios[i]! <= 1);
  const expectedHooks = r.batches.reduce((n, b) => n + b.accepted, 0);
  const h = hookFigures(r);
  const lines = [
    '| Load | Offered | Answered OK | p50 ms | p99 ms | 503 shed | 429 | Timeouts | Other |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    loadRow(`GET /v1/keys at ${CORE.ratePerSecond}/s`, r.reads, 200, CORE.readMs),
    loadRow(`POST /v1/send at ${CORE.ratePerSecond}/s`, r.sends, 201, CORE.sendMs),
    '',
    `- Beside the store: its GetItem alone p50 ${fmt(storeP50, 2)} ms, p99 ${fmt(percentile(r.storeMs, 99), 2)} ms (${fmtInt(r.storeMs.length)} calls); **reads p50 ${fmt(percentile(reads, 50), 1)} ms = ${fmt(ratio, 1)}× GetItem**, p99 ${fmt(readP99, 0)} ms.`,
    `- send → delivered over all ${fmtInt(r.accepted)} accepted sends: ${fmtInt(r.deliveredMs.length)} delivered, p50 ${fmt(percentile(r.deliveredMs, 50) / 1000, 2)} s, p99 ${fmt(percentile(r.deliveredMs, 99) / 1000, 2)} s${r.notDelivered.length ? `; ${r.notDelivered.length} not delivered within ${CORE.deliveredWaitMs / 1000} s (${r.notDelivered.slice(0, 3).join(', ')}…)` : ''}; all read back delivered ${fmt(r.drainedS, 1)} s after the first send.`,
    `- Beside the store: ${fmtInt(CORE.batchItems)} sequential PutItems of ${CORE.putItemBytes}-byte items ${fmt(r.putsMs / 1000, 2)} s (p50 ${fmt(percentile(r.putLatenciesMs, 50), 2)} ms each); ${r.batches.length} ${fmtInt(CORE.batchItems)}-item POST /v1/send/batch in a row (test mode): ${r.batches.map((b, i) => `${b.status}, ${fmtInt(b.accepted)} accepted, ${fmt(b.ms / 1000, 2)} s = **${fmt(batchRatios[i]!, 2)}×**`).join('; ')}.`,
    `- Webhooks of the batches' ${fmtInt(expectedHooks)} simulated deliveries (one subscription to \`delivered\`, a loopback receiver answering 200 at once, each arrival timed from its batch's request): ${fmtInt(h.arrived)} event ids arrived, ${fmtInt(h.inTime)} within ${CORE.webhookWaitMs / 1000} s, the last ${fmt(h.lastS, 1)} s after its batch; ${h.twice} arrived more than once.`,
    `- Peak RSS of the runtime: ${fmt(r.peakMiB, 0)} MiB (${fmt(r.readPeakMiB, 0)} MiB by the end of the reads, ${fmt(r.sendPeakMiB, 0)} MiB once the sends were delivered, the rest in the batches and their webhooks).`,
  ];
  const targets = [
    noteTarget({ item: 2, what: `Authenticated reads under the ${CORE.ratePerSecond}/s load: p50 ≤ 4× a store GetItem, p99 ≤ 250 ms`, figure: `${fmt(ratio, 1)}× (p50 ${fmt(percentile(reads, 50), 1)} ms, GetItem ${fmt(storeP50, 2)} ms) and ${fmt(readP99, 0)} ms`, met: ratio <= 4 && readP99 <= 250 }),
    noteTarget({ item: 1, what: `${CORE.ratePerSecond} sends/s from ${CORE.accounts} accounts: ≥ 90 % accepted, none time out, all delivered`, figure: `${fmt(acceptedShare * 100, 0)} % accepted, ${timeouts} timeouts, ${fmtInt(r.deliveredMs.length)} of ${fmtInt(r.accepted)} delivered`, met: acceptedShare >= 0.9 && timeouts === 0 && r.deliveredMs.length === r.accepted }),
    noteTarget({ item: 1, what: `Three ${fmtInt(CORE.batchItems)}-item batches in a row all accepted, each ≤ 1.0× ${fmtInt(CORE.batchItems)} sequential PutItems`, figure: batchRatios.map((x) => `${fmt(x, 2)}×`).join(', '), met: batchesOk }),
    noteTarget({ item: 1, what: `${fmtInt(CORE.batchItems)} webhooks within 60 s, none twice`, figure: `${fmtInt(h.inTime)} of ${fmtInt(expectedHooks)} within 60 s of their batch, ${h.twice} twice`, met: h.inTime >= expectedHooks && expectedHooks >= CORE.batchItems && h.twice === 0 }),
    noteTarget({ item: 3, what: 'Peak RSS ≤ 300 MiB on the core-path load', figure: `${fmt(r.peakMiB, 0)} MiB`, met: r.peakMiB <= 300 }),
  ];
  return { lines, targets };
}

function combinedSection(c: CombinedRun, storeP50: number): { lines: string[]; targets: string[] } {
  const row = (label: string, a: readonly Answer[]): string => {
    const ok = okMs(a);
    const not = a.filter((x) => x.status !== 200);
    const which = [...new Set(not.map((x) => String(x.status)))].map((s) => `${not.filter((x) => String(x.status) === s).length}× ${s}`).join(', ');
    return `| ${label} | ${a.length} | ${fmt(percentile(ok, 50), 1)} | ${fmt(percentile(ok, 99), 1)} | ${fmt(ok.length ? Math.max(...ok) : Number.NaN, 0)} | ${not.length}${which ? ` (${which})` : ''} |`;
  };
  const worst = Math.max(percentile(okMs(c.keys), 99), percentile(okMs(c.broadcast), 99));
  const refused = [...c.keys, ...c.broadcast].filter((a) => a.status !== 200).length;
  const allDone = [c.importS, c.broadcastS, c.inboundStoredS].every((s) => !Number.isNaN(s)) && c.inboundAccepted === COMBINED.inboundMails;
  const lines = [
    '| Lone read (one in flight) | Reads | p50 ms | p99 ms | max ms | not 200 |',
    '|---|---:|---:|---:|---:|---:|',
    `| GET /v1/keys, quiet runtime | ${c.quiet.length} | ${fmt(percentile(c.quiet, 50), 1)} | ${fmt(percentile(c.quiet, 99), 1)} | ${fmt(Math.max(...c.quiet), 0)} | 0 |`,
    row('GET /v1/keys, during the three', c.keys),
    row('GET /v1/broadcasts/{id}, during the three', c.broadcast),
    '',
    `- Beside the store (its GetItem p50 ${fmt(storeP50, 2)} ms, core-path run): lone GET /v1/keys p50 during the three ${fmt(percentile(okMs(c.keys), 50) / storeP50, 1)}× GetItem.`,
    `- From the start of the three: the ${fmtInt(COMBINED.importRows)}-row import completed after ${fmt(c.importS, 1)} s; the ${fmtInt(COMBINED.recipients)}-recipient broadcast (test mode, inline recipients) all delivered after ${fmt(c.broadcastS, 1)} s; ${fmtInt(c.inboundAccepted)} of ${fmtInt(COMBINED.inboundMails)} inbound mails heard 250 by ${fmt(c.inboundAcceptedS, 1)} s (${COMBINED.smtpConnections} SMTP connections) and all were listed by GET /v1/inbound after ${fmt(c.inboundStoredS, 1)} s${allDone ? '' : ` (not all done within ${COMBINED.maxMs / 1000} s)`}.`,
    `- Peak RSS of the runtime through the three: ${fmt(c.peakMiB, 0)} MiB (${fmt(c.idlePeakMiB, 0)} MiB started and idle before them).`,
  ];
  const targets = [
    noteTarget({ item: 2, what: 'A lone read answers p99 ≤ 100 ms and is never refused while a broadcast, an import and an inbound burst run together', figure: `p99 ${fmt(worst, 0)} ms, ${refused} not answered 200${allDone ? '' : ' (the three did not all finish)'}`, met: worst <= 100 && refused === 0 && allDone }),
    noteTarget({ item: 3, what: 'Peak RSS ≤ 400 MiB through the combined run', figure: `${fmt(c.peakMiB, 0)} MiB`, met: c.peakMiB <= 400 }),
  ];
  return { lines, targets };
}

const METHOD = [
  `Method: \`bin/local.mjs\` started as its own process (as \`npm start\` runs it, MALLOC_ARENA_MAX=2 included; fresh DATA_DIR, LOG_LEVEL error, WEBHOOK_ALLOW_PRIVATE=true for the loopback receiver). Core path: ${CORE.accounts} accounts made with \`POST /v1/admin/accounts\`; load is open-loop from this benchmark's process: requests leave at ${CORE.ratePerSecond}/s whatever the answers take, round-robin over the accounts (${CORE.ratePerSecond / CORE.accounts}/s each, under the limit of 10), keep-alive, 10 s client timeout. `,
  `First ${CORE.readMs / 1000} s of authenticated \`GET /v1/keys\` (every key used once before), then ${CORE.sendMs / 1000} s of single live \`POST /v1/send\` to each account's own address (sandbox); every accepted send is then read back (\`GET /v1/messages/{id}\`, paced under each account's limit) until it shows \`delivered\` (send → delivered: that event's \`created_at\` minus the message's). `,
  `The store's figures are measured in the same run straight against the runtime's embedded dynalite from a worker thread here: consistent GetItems of ACCOUNT items one at a time just before the reads, and ${fmtInt(CORE.batchItems)} PutItems one after the other before the batches. The batches come from a fresh account subscribed to \`delivered\` at a loopback receiver here, which counts arrivals per \`service-event-id\`. `,
  `Peak RSS is VmRSS of the runtime process (its threads included) plus its children, sampled every 200 ms. Combined run: a fresh runtime (DNS_SERVERS a closed loopback port, so inbound verdicts fail at once, offline), an inbound-enabled domain of an account of its own; the ${fmtInt(COMBINED.importRows)}-row CSV import (live key), the ${fmtInt(COMBINED.recipients)}-recipient \`POST /v1/send/bulk\` (test key) and ${fmtInt(COMBINED.inboundMails)} mails of ~2 KB over ${COMBINED.smtpConnections} SMTP connections are started together; progress is read by a third client (not measured).`,
].join('');

export const localLoad: Benchmark = {
  name: 'Local runtime under load',
  async run(context) {
    const before = load();
    try {
      const core = await coreRun(context.projectRoot, context.log);
      const c = coreSection(core);
      const combined = await combinedRun(context.projectRoot, context.log);
      const m = combinedSection(combined, percentile(core.storeMs, 50));
      return [
        '## Local runtime under load',
        '',
        METHOD,
        '',
        `Machine: load average (1 / 5 / 15 min) ${before} at the start of this benchmark, ${load()} at its end, on ${cpus().length} cores (other work on the machine skews the absolute figures; the ratios to the store's, measured in the same run, less so).`,
        '',
        '### Core path',
        '',
        ...c.lines,
        '',
        '### Lone reads while a broadcast, an import and an inbound burst run together',
        '',
        ...m.lines,
        '',
        'Targets (issue 31):',
        '',
        c.targets[0]!,
        ...m.targets.slice(0, 1),
        ...c.targets.slice(1),
        ...m.targets.slice(1),
        '',
        'Read it as: a 503 is the runtime refusing at once a request that found 32 others in flight (Retry-After: 1), a timeout is a request that waited 10 s; what is answered OK should be answered fast.',
      ].join('\n');
    } finally {
      agent.destroy();
    }
  },
};
