// What port calls cost in AWS: requests, DynamoDB on-demand request units (from item sizes, by
// DynamoDB's documented rules) and dollars at list prices. Memory sizes are the manifest's.
import { functions } from '../../functions/manifest';
import { storedItemBytes } from '../../shared/db/item-size';
import { table } from '../../shared/db/schema';
import type { PortCall } from './runtime';

/** AWS us-east-1 list prices, pay per request, 2025, free tiers ignored; dollars per million units. */
export const PRICE = {
  wru: 0.625,
  rru: 0.125,
  /** SQS standard: per request, each 64 KB of payload one request. */
  sqs: 0.4,
  invocations: 0.2,
  /** Lambda arm64, per million GB-seconds (first tier: $0.0000133334 per GB-s). */
  gbSeconds: 13.3334,
  /** API Gateway HTTP API, per request of up to 512 KB. */
  httpApi: 1.0,
  snsPublish: 0.5,
  /** SES outbound: $0.10 per 1,000 emails. */
  ses: 100,
  /** S3 Standard: PUT $0.005 and GET $0.0004 per 1,000 requests (message content past the inline limit). */
  s3Put: 5,
  s3Get: 0.4,
} as const;

export const priceNote =
  `AWS us-east-1 list prices, 2025, free tiers ignored (bench/lib/cost.ts): DynamoDB on-demand $${PRICE.wru} per million WRU and $${PRICE.rru} per million RRU, SQS $${PRICE.sqs} per million requests (64 KB chunks), ` +
  `Lambda arm64 $${PRICE.invocations} per million invocations + $0.0000133334 per GB-s, API Gateway HTTP API $${PRICE.httpApi} per million requests, SNS publish $${PRICE.snsPublish} per million (delivery to SQS free), SES $${PRICE.ses} per million emails, S3 $${PRICE.s3Put} per million PUT and $${PRICE.s3Get} per million GET.`;

export function memoryMbOf(fn: string): number {
  const def = functions.find((f) => f.name === fn);
  if (!def) throw new Error(`bench: no function ${fn} in the manifest`);
  return def.memoryMb;
}

export const gbSeconds = (fn: string, ms: number): number => (memoryMbOf(fn) / 1024) * (ms / 1000);
export const consumerOf = (queue: string): string => functions.find((f) => f.queue === queue)?.name ?? queue;

type Plain = Record<string, unknown>;
const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/** An item's size as DynamoDB counts it (shared/db/item-size.ts); none is 0. */
export const itemSize = (item: Plain | undefined): number => storedItemBytes(item ?? {});

const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));
const readUnits = (bytes: number, consistent: boolean): number => Math.max(1, Math.ceil(bytes / 4096)) / (consistent ? 1 : 2);

/** An item's entry in one index: its keys and projected attributes; undefined when it has none. */
function indexEntry(item: Plain | null | undefined, index: { partitionKey: string; sortKey: string; projection: readonly string[] }): Plain | undefined {
  if (!item || item[index.partitionKey] === undefined || item[index.sortKey] === undefined) return undefined;
  const kept = [table.partitionKey, table.sortKey, index.partitionKey, index.sortKey, ...index.projection];
  return Object.fromEntries(Object.entries(item).filter(([k, v]) => kept.includes(k) && v !== undefined));
}

const sameJson = (a: Plain, b: Plain): boolean => JSON.stringify(Object.entries(a).sort(([x], [y]) => x.localeCompare(y))) === JSON.stringify(Object.entries(b).sort(([x], [y]) => x.localeCompare(y)));

/**
 * A table write by DynamoDB's rules (developer guide, "Read/write capacity mode", and "Global
 * secondary indexes: provisioned throughput considerations"): the table write costs a unit per
 * started KB of the LARGER of the item before and after it (so an UpdateItem that sets one small
 * attribute on a 5 KB item pays 5 units). Each index: nothing when neither version has an entry, or
 * when the entry (keys and projected attributes) is unchanged; one write of the entry when it is
 * added, removed or its projected attributes change; two (a delete and a put) when its keys change.
 * A failed conditional write costs the units of the item it met (at least one), no index writes.
 * `before` unknown (counting without `{ before: true }`): charged as if the write replaced nothing.
 */
function writeCost(before: Plain | null | undefined, after: Plain | undefined, failed: boolean): { wru: number; gsiWru: number } {
  if (failed) return { wru: writeUnits(itemSize(before ?? after)), gsiWru: 0 };
  let gsiWru = 0;
  for (const index of Object.values(table.indexes)) {
    const [was, is] = [indexEntry(before, index), indexEntry(after, index)];
    if (!was && !is) continue;
    if (was && is && was[index.partitionKey] === is[index.partitionKey] && was[index.sortKey] === is[index.sortKey]) {
      if (!sameJson(was, is)) gsiWru += writeUnits(Math.max(itemSize(was), itemSize(is)));
      continue;
    }
    if (was) gsiWru += writeUnits(itemSize(was));
    if (is) gsiWru += writeUnits(itemSize(is));
  }
  return { wru: writeUnits(Math.max(itemSize(before ?? undefined), itemSize(after))), gsiWru };
}

export interface Units {
  /** AWS requests the call made (a batch port call may make several). */
  requests: number;
  wru: number;
  gsiWru: number;
  rru: number;
  sqs: number;
  ses: number;
  /** Object store requests: content past the inline limit is written once and read back once. */
  s3Put: number;
  s3Get: number;
}

export const noUnits = (): Units => ({ requests: 0, wru: 0, gsiWru: 0, rru: 0, sqs: 0, ses: 0, s3Put: 0, s3Get: 0 });

/**
 * One port call in AWS terms: a write by the larger of the item before and after it and by what it
 * changed in each index (writeCost), a key a read did not find as one unit. The item before is
 * known when counting captured it (`count({ before: true })`); otherwise a write is charged for the
 * item after it (an overwrite's larger old item and a removed index entry are then missed).
 * Unprocessed batch items retried by the store are not seen here (dynalite returns none).
 */
export function unitsOf(call: PortCall): Units {
  const u = noUnits();
  const [first, second] = call.args as [any, any];
  const failed = call.failed !== undefined;
  const before = call.before as Plain | null | undefined;
  const add = (w: { wru: number; gsiWru: number }): void => void ((u.wru += w.wru), (u.gsiWru += w.gsiWru));
  const payloadRequests = (bodies: unknown[]): number => Math.max(1, Math.ceil(utf8(bodies.map((b) => JSON.stringify(b)).join('')) / 65_536));
  switch (`${call.port}.${call.op}`) {
    case 'store.get':
      return { ...u, requests: 1, rru: readUnits(itemSize(call.result as Plain), second !== false) };
    case 'store.put':
    case 'store.create':
      add(writeCost(before, first, failed));
      return { ...u, requests: 1 };
    case 'store.update':
      // A failed update without a captured item: charged one unit (what it met is unknown).
      add(writeCost(before, (call.result as Plain | undefined) ?? (failed ? undefined : first), failed));
      return { ...u, requests: 1 };
    case 'store.delete':
      // Charged by the item deleted (at least one unit), and its index entries go with it.
      add(writeCost(before, undefined, failed));
      return { ...u, requests: 1 };
    case 'store.query': {
      const items = ((call.result as { items?: Plain[] } | undefined)?.items ?? []) as Plain[];
      return { ...u, requests: 1, rru: readUnits(items.reduce((n, i) => n + itemSize(i), 0), !first.index && first.consistent !== false) };
    }
    case 'store.batchGet': {
      const found = (call.result as Plain[] | undefined) ?? [];
      const consistent = second?.consistent !== false;
      const rru = found.reduce((n, i) => n + readUnits(itemSize(i), consistent), 0) + (first.length - found.length) * readUnits(0, consistent);
      return { ...u, requests: Math.ceil(first.length / 100), rru };
    }
    case 'store.batchPut': {
      const replaced = Array.isArray(call.before) ? (call.before as Array<Plain | null>) : [];
      (first as Plain[]).forEach((item, i) => add(writeCost(replaced[i], item, false)));
      return { ...u, requests: Math.ceil(first.length / 25) };
    }
    case 'queue.send':
      return { ...u, requests: 1, sqs: payloadRequests([second]) };
    case 'queue.sendBatch': {
      const chunks = Array.from({ length: Math.ceil(second.length / 10) }, (_, i) => (second as unknown[]).slice(i * 10, i * 10 + 10));
      return { ...u, requests: chunks.length, sqs: chunks.reduce((n, c) => n + payloadRequests(c), 0) };
    }
    case 'mailer.send':
      return { ...u, requests: 1, ses: 1 };
    case 'objects.put':
    case 'objects.putFile':
      return { ...u, requests: 1, s3Put: 1 };
    case 'objects.get':
    case 'objects.getStream':
      return { ...u, requests: 1, s3Get: 1 };
    default:
      return { ...u, requests: 1 };
  }
}

export const totalUnits = (calls: readonly PortCall[]): Units =>
  calls.map(unitsOf).reduce(
    (a, b) => ({ requests: a.requests + b.requests, wru: a.wru + b.wru, gsiWru: a.gsiWru + b.gsiWru, rru: a.rru + b.rru, sqs: a.sqs + b.sqs, ses: a.ses + b.ses, s3Put: a.s3Put + b.s3Put, s3Get: a.s3Get + b.s3Get }),
    noUnits(),
  );

/** A constant key prefix (`KEY`, `MAILREF`) names a kind; an id (`dlv_…`) or a time (`2026-…Z`) does not. */
const isKindName = (part: string): boolean => /^[A-Z][A-Z0-9_]*$/.test(part);

/** Short name of an item from its key: `ACCT/KEY`, `MSG`, `IDEM`, … */
function kind(key: { pk?: unknown; sk?: unknown } | undefined): string {
  const pk = String(key?.pk ?? '?').split('#')[0] as string;
  const sk = String(key?.sk ?? '').split('#')[0] as string;
  return !sk || sk === pk || !isKindName(sk) ? pk : `${pk}/${sk}`;
}

/** A port call as a reader can place it: `get ACCT/KEY`, `create IDEM (failed)`, `sendBatch send`. */
export function labelOf(call: PortCall): string {
  const [first] = call.args as [any];
  const failed = call.failed ? ` → ${call.failed.replace(/Error$/, '')}` : '';
  switch (call.port) {
    case 'queue':
      return `queue.${call.op} ${first}${(call.args[2] as { delaySeconds?: number } | undefined)?.delaySeconds ? ' (delayed)' : ''}${failed}`;
    case 'mailer':
      return `mailer.${call.op}${failed}`;
    case 'objects':
      return `objects.${call.op} ${String(first).split('/')[0]}${failed}`;
    default:
      if (call.op === 'query') {
        const [pk, sk] = Object.values(first.values ?? {}).map((v) => String(v).split('#')[0]);
        return `store.query ${first.index ? `${first.index} ` : ''}${pk}${sk && isKindName(sk) ? `/${sk}` : ''}`;
      }
      if (call.op.startsWith('batch')) return `store.${call.op} ${[...new Set((first as Plain[]).map(kind))].join('+')}`;
      return `store.${call.op} ${kind(first)}${failed}`;
  }
}

/** Calls counted by label, in first-seen order. */
export function countByLabel(calls: readonly PortCall[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(labelOf(call), (counts.get(labelOf(call)) ?? 0) + 1);
  return counts;
}

/** `label ×n, …` with n per `per` (a request, an email, a delivery). */
export const callList = (calls: readonly PortCall[], per = 1): string =>
  [...countByLabel(calls)].map(([label, n]) => `${label} ×${Number((n / per).toPrecision(3))}`).join(', ') || '—';

/**
 * What a Lambda invocation's duration is modelled from, since dynalite and the emulators say
 * nothing about a region's latencies: a round trip's typical latency inside one region by the
 * kind of call (DynamoDB single-digit ms; SQS and SES API calls tens of ms; S3 PUT and GET), and
 * the handler's own CPU. A round trip is a set of calls that overlap in time (`roundTrips`); it
 * lasts as long as the slowest call in it, and a batch call lasts a round trip per
 * `PARALLEL_REQUESTS` of the requests it makes.
 */
export const MODEL_MS = {
  latency: { store: 6, queue: 12, mailer: 45, objectsPut: 40, objectsGet: 20 } as Record<string, number>,
  /** Event parsing, validation, marshalling and logging of one invocation or one message. */
  cpuPerInvocation: 8,
  cpuPerMessage: 3,
} as const;
const PARALLEL_REQUESTS = 8;

function latencyOf(call: PortCall): number {
  const { latency } = MODEL_MS;
  const base = call.port === 'objects' ? (call.op === 'put' ? latency.objectsPut : latency.objectsGet) : (latency[call.port] ?? latency.store);
  return (base ?? 6) * Math.max(1, Math.ceil(unitsOf(call).requests / PARALLEL_REQUESTS));
}

/**
 * The round trips of one invocation's calls, in order: calls that overlap in time share one. A
 * call starts a new round trip when it starts after every call so far has ended.
 */
export function roundTrips(calls: readonly PortCall[]): PortCall[][] {
  const trips: PortCall[][] = [];
  let end = Number.NEGATIVE_INFINITY;
  for (const call of [...calls].sort((a, b) => a.startMs - b.startMs)) {
    if (call.startMs >= end) trips.push([]);
    trips[trips.length - 1]!.push(call);
    end = Math.max(end, call.startMs + call.ms);
  }
  return trips;
}

/** Modelled duration in AWS of one invocation that made these calls for `messages` messages. */
export const modelledMs = (calls: readonly PortCall[], messages = 1): number =>
  MODEL_MS.cpuPerInvocation + MODEL_MS.cpuPerMessage * messages + roundTrips(calls).reduce((ms, trip) => ms + Math.max(...trip.map(latencyOf)), 0);
