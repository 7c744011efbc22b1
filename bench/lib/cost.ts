// What port calls cost in AWS: requests, DynamoDB on-demand request units (from item sizes, by
// DynamoDB's documented rules) and dollars at list prices. Memory sizes are the manifest's.
import { functions } from '../../functions/manifest';
import { table } from '../../shared/db/keys';
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
  /** S3 Standard: PUT $0.005 and GET $0.0004 per 1,000 requests (message content over 16 KiB). */
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

/** DynamoDB's size of one attribute value, in bytes. */
function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace('.', '').replace(/^0+/, '').length / 2) + 1;
  if (Array.isArray(value)) return 3 + value.reduce<number>((n, v) => n + 1 + valueSize(v), 0);
  if (typeof value === 'object') return 3 + itemSize(value as Plain) + Object.keys(value).length;
  return utf8(String(value));
}

export const itemSize = (item: Plain | undefined): number =>
  Object.entries(item ?? {}).reduce((n, [k, v]) => (v === undefined ? n : n + utf8(k) + valueSize(v)), 0);

const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));
const readUnits = (bytes: number, consistent: boolean): number => Math.max(1, Math.ceil(bytes / 4096)) / (consistent ? 1 : 2);

/** Write units of an item on the table plus one write per index entry it has (the projected part). */
function writeCost(item: Plain | undefined, failed: boolean): { wru: number; gsiWru: number } {
  let gsiWru = 0;
  for (const index of Object.values(table.indexes)) {
    if (failed || !item) break;
    if (item[index.partitionKey] === undefined || item[index.sortKey] === undefined) continue;
    const kept = [table.partitionKey, table.sortKey, index.partitionKey, index.sortKey, ...index.projection];
    gsiWru += writeUnits(itemSize(Object.fromEntries(Object.entries(item).filter(([k]) => kept.includes(k)))));
  }
  return { wru: writeUnits(itemSize(item)), gsiWru };
}

export interface Units {
  /** AWS requests the call made (a batch port call may make several). */
  requests: number;
  wru: number;
  gsiWru: number;
  rru: number;
  sqs: number;
  ses: number;
  /** Object store requests: content over 16 KiB is written once and read back once. */
  s3Put: number;
  s3Get: number;
}

export const noUnits = (): Units => ({ requests: 0, wru: 0, gsiWru: 0, rru: 0, sqs: 0, ses: 0, s3Put: 0, s3Get: 0 });

/**
 * One port call in AWS terms. On the side of charging more: a write is charged for the item after
 * it, a failed conditional write for the item it tried, a key a read did not find for one unit.
 * Unprocessed batch items retried by the store are not seen here (dynalite returns none).
 */
export function unitsOf(call: PortCall): Units {
  const u = noUnits();
  const [first, second] = call.args as [any, any];
  const failed = call.failed !== undefined;
  const add = (w: { wru: number; gsiWru: number }): void => void ((u.wru += w.wru), (u.gsiWru += w.gsiWru));
  const payloadRequests = (bodies: unknown[]): number => Math.max(1, Math.ceil(utf8(bodies.map((b) => JSON.stringify(b)).join('')) / 65_536));
  switch (`${call.port}.${call.op}`) {
    case 'store.get':
      return { ...u, requests: 1, rru: readUnits(itemSize(call.result as Plain), second !== false) };
    case 'store.put':
    case 'store.create':
      add(writeCost(first, failed));
      return { ...u, requests: 1 };
    case 'store.update':
      add(writeCost((call.result as Plain | undefined) ?? first, failed));
      return { ...u, requests: 1 };
    case 'store.delete':
      return { ...u, requests: 1, wru: 1 };
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
    case 'store.batchPut':
      for (const item of first as Plain[]) add(writeCost(item, false));
      return { ...u, requests: Math.ceil(first.length / 25) };
    case 'queue.send':
      return { ...u, requests: 1, sqs: payloadRequests([second]) };
    case 'queue.sendBatch': {
      const chunks = Array.from({ length: Math.ceil(second.length / 10) }, (_, i) => (second as unknown[]).slice(i * 10, i * 10 + 10));
      return { ...u, requests: chunks.length, sqs: chunks.reduce((n, c) => n + payloadRequests(c), 0) };
    }
    case 'mailer.send':
      return { ...u, requests: 1, ses: 1 };
    case 'objects.put':
      return { ...u, requests: 1, s3Put: 1 };
    case 'objects.get':
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

/** Short name of an item from its key: `ACCT/KEY`, `MSG`, `IDEM`, … */
function kind(key: { pk?: unknown; sk?: unknown } | undefined): string {
  const pk = String(key?.pk ?? '?').split('#')[0] as string;
  // Only a constant sort-key prefix names a kind; an id (`dlv_…`) does not.
  const sk = String(key?.sk ?? '').split('#')[0] as string;
  return !sk || sk === pk || sk !== sk.toUpperCase() ? pk : `${pk}/${sk}`;
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
        return `store.query ${first.index ? `${first.index} ` : ''}${pk}${sk ? `/${sk}` : ''}`;
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
