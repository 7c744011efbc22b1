// The sending benchmark's cost model: each step's resources per email (a single send, steady single
// sends, one item of a batch) at list prices, and the size of the items the floor writes.
import { CLAIM_CONCURRENCY } from '../../../shared/sending/messages/send';
import { consumerOf, gbSeconds, itemSize, modelledMs, PRICE, totalUnits } from '../../lib/cost';
import { sum } from '../../lib/measure';
import type { PortCall } from '../../lib/runtime';
import { apiFn, ASSUMED_MS, drainedOf, invocationMs, queuesReached, type Drained, type Single } from './sends';

export interface CostRow {
  step: string;
  resource: string;
  unit: string;
  /** Units per email: a single send, and one item of a 1,000-item batch. */
  single: number;
  batch: number;
  /** A single send under steady traffic: its consumers take full batches. */
  steady: number;
  price: number;
}

/** Items the floor writes: the size of the messages (each its send's idempotency claim) and content items the single sends wrote. */
export function floorItemBytes(singles: Single[]): number {
  const written = singles.flatMap((s) => s.calls).flatMap((c) => (c.op === 'create' ? [c.args[0]] : c.op === 'batchPut' ? (c.args[0] as unknown[]) : []));
  return Math.round(sum(written.map((i) => itemSize(i as Record<string, unknown>))) / Math.max(1, written.length)) || 1024;
}

type Col = 'single' | 'steady' | 'batch';

/** What the consumer of `q` did per email in one column's sends: port calls, invocations, modelled ms, emails mailed. */
function consumerShare(d: Drained, q: string) {
  const invocations = d.invocations.filter((i) => i.queue === q);
  return {
    calls: d.calls.filter((c) => c.by === q),
    invocations: invocations.length / d.emails,
    ms: sum(invocationMs(d, q)) / d.emails,
    mailed: d.calls.filter((c) => c.port === 'mailer').length / d.emails,
  };
}

/**
 * Units per email in three columns: single sends (each consumer message in an invocation of its
 * own), steady single sends (their consumers handed full batches) and a batch's items (the API's
 * batch request, then its jobs handed to the consumers in full batches).
 */
export function costRows(singles: Single[], steady: Drained, batch: { calls: PortCall[]; accepted: number; bodyBytes: number; drained: Drained }): CostRow[] {
  const sends = singles.length;
  const rows: CostRow[] = [];
  const add = (step: string, resource: string, unit: string, price: number, v: Record<Col, number>): void => {
    if (v.single || v.batch || v.steady) rows.push({ step, resource, unit, price, ...v });
  };
  const dynamo = (step: string, calls: Record<Col, PortCall[]>, per: Record<Col, number>): void => {
    const u = { single: totalUnits(calls.single), steady: totalUnits(calls.steady), batch: totalUnits(calls.batch) };
    const each = (k: keyof ReturnType<typeof totalUnits>): Record<Col, number> => ({ single: u.single[k] / per.single, steady: u.steady[k] / per.steady, batch: u.batch[k] / per.batch });
    add(step, 'DynamoDB writes (table)', 'WRU', PRICE.wru, each('wru'));
    add(step, 'DynamoDB writes (GSI)', 'WRU', PRICE.wru, each('gsiWru'));
    add(step, 'DynamoDB reads', 'RRU', PRICE.rru, each('rru'));
    add(step, 'SQS sends', 'requests', PRICE.sqs, each('sqs'));
    // Only content past the inline limit reaches the object store: one PUT at the API, one GET in the worker.
    add(step, 'S3 PUT (message content)', 'requests', PRICE.s3Put, each('s3Put'));
    add(step, 'S3 GET (message content)', 'requests', PRICE.s3Get, each('s3Get'));
  };
  const api = singles.flatMap((s) => s.calls.filter((c) => c.by === 'api'));
  const puts = (calls: PortCall[]): number => calls.filter((c) => c.port === 'objects' && c.op === 'put').length;
  const singleMs = sum(singles.map((s) => modelledMs(s.calls.filter((c) => c.by === 'api')))) / sends;
  const batchMs = ASSUMED_MS.apiPerBatchItem * batch.accepted + (ASSUMED_MS.objectPut * puts(batch.calls)) / CLAIM_CONCURRENCY;
  // The steady column's API is the single send's: each request is one send either way.
  const apiCol = (single: number, inBatch: number): Record<Col, number> => ({ single, steady: single, batch: inBatch });
  add('API', 'HTTP API requests', 'requests', PRICE.httpApi, apiCol(1, Math.ceil(batch.bodyBytes / (512 * 1024)) / batch.accepted));
  add('API', `Lambda invocations (${apiFn})`, 'invocations', PRICE.invocations, apiCol(1, 1 / batch.accepted));
  add('API', `Lambda duration (${apiFn})`, 'GB-s', PRICE.gbSeconds, apiCol(gbSeconds(apiFn, singleMs), gbSeconds(apiFn, batchMs) / batch.accepted));
  dynamo('API', { single: api, steady: api, batch: batch.calls }, { single: sends, steady: sends, batch: batch.accepted });
  const cols: Record<Col, Drained> = { single: drainedOf(singles), steady, batch: batch.drained };
  for (const q of queuesReached(singles)) {
    const fn = consumerOf(q);
    const share = { single: consumerShare(cols.single, q), steady: consumerShare(cols.steady, q), batch: consumerShare(cols.batch, q) };
    const of = (f: (x: ReturnType<typeof consumerShare>) => number): Record<Col, number> => ({ single: f(share.single), steady: f(share.steady), batch: f(share.batch) });
    if (q === 'ses-events') {
      add(q, 'SNS publish of the SES event (modelled: one per email sent)', 'publishes', PRICE.snsPublish, of((x) => x.mailed));
      add(q, 'SQS message SNS delivers (modelled)', 'requests', PRICE.sqs, of((x) => x.mailed));
    }
    add(q, 'SQS ReceiveMessage + DeleteMessageBatch (modelled: one each per invocation)', 'requests', PRICE.sqs, of((x) => 2 * x.invocations));
    add(q, `Lambda invocations (${fn})`, 'invocations', PRICE.invocations, of((x) => x.invocations));
    add(q, `Lambda duration (${fn})`, 'GB-s', PRICE.gbSeconds, of((x) => gbSeconds(fn, x.ms)));
    dynamo(q, { single: share.single.calls, steady: share.steady.calls, batch: share.batch.calls }, { single: cols.single.emails, steady: cols.steady.emails, batch: cols.batch.emails });
  }
  return rows;
}

export const total = (rows: CostRow[], k: 'single' | 'batch' | 'steady', pred: (r: CostRow) => boolean = () => true): number => sum(rows.filter(pred).map((r) => r[k] * r.price));
export const isDynamo = (r: CostRow): boolean => r.resource.startsWith('DynamoDB');
