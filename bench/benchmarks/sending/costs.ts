// The sending benchmark's cost model: each step's resources per email (a single send, steady single
// sends, one item of a batch) at list prices, and the size of the items the floor writes.
import { CLAIM_CONCURRENCY } from '../../../shared/sending/messages/send';
import { queueNamed, type QueueName } from '../../../shared/platform';
import { consumerOf, gbSeconds, itemSize, modelledMs, PRICE, totalUnits } from '../../lib/cost';
import { sum } from '../../lib/measure';
import type { PortCall } from '../../lib/runtime';
import { apiFn, ASSUMED_MS, invocationMs, queuesReached, type Single } from './sends';

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

export function costRows(singles: Single[], batch: { calls: PortCall[]; accepted: number; bodyBytes: number }): CostRow[] {
  const sends = singles.length;
  const rows: CostRow[] = [];
  const add = (step: string, resource: string, unit: string, price: number, single: number, inBatch = single, steady = single): void => {
    if (single || inBatch) rows.push({ step, resource, unit, single, batch: inBatch, steady, price });
  };
  const dynamo = (step: string, single: PortCall[], inBatch: PortCall[], n: number): void => {
    const [a, b] = [totalUnits(single), totalUnits(inBatch)];
    add(step, 'DynamoDB writes (table)', 'WRU', PRICE.wru, a.wru / sends, b.wru / n);
    add(step, 'DynamoDB writes (GSI)', 'WRU', PRICE.wru, a.gsiWru / sends, b.gsiWru / n);
    add(step, 'DynamoDB reads', 'RRU', PRICE.rru, a.rru / sends, b.rru / n);
    add(step, 'SQS sends', 'requests', PRICE.sqs, a.sqs / sends, b.sqs / n);
    // Only content past the inline limit reaches the object store: one PUT at the API, one GET in the worker.
    add(step, 'S3 PUT (message content)', 'requests', PRICE.s3Put, a.s3Put / sends, b.s3Put / n);
    add(step, 'S3 GET (message content)', 'requests', PRICE.s3Get, a.s3Get / sends, b.s3Get / n);
  };
  const api = singles.flatMap((s) => s.calls.filter((c) => c.by === 'api'));
  const puts = (calls: PortCall[]): number => calls.filter((c) => c.port === 'objects' && c.op === 'put').length;
  const singleMs = sum(singles.map((s) => modelledMs(s.calls.filter((c) => c.by === 'api')))) / sends;
  const batchMs = ASSUMED_MS.apiPerBatchItem * batch.accepted + (ASSUMED_MS.objectPut * puts(batch.calls)) / CLAIM_CONCURRENCY;
  add('API', 'HTTP API requests', 'requests', PRICE.httpApi, 1, Math.ceil(batch.bodyBytes / (512 * 1024)) / batch.accepted);
  add('API', `Lambda invocations (${apiFn})`, 'invocations', PRICE.invocations, 1, 1 / batch.accepted);
  add('API', `Lambda duration (${apiFn})`, 'GB-s', PRICE.gbSeconds, gbSeconds(apiFn, singleMs), gbSeconds(apiFn, batchMs) / batch.accepted);
  dynamo('API', api, batch.calls, batch.accepted);
  for (const q of queuesReached(singles)) {
    const fn = consumerOf(q);
    const messages = sum(singles.flatMap((s) => s.invocations.filter((i) => i.queue === q).map((i) => i.bodies.length))) / sends;
    const batchSize = queueNamed(q as QueueName).batchSize;
    const calls = singles.flatMap((s) => s.calls.filter((c) => c.by === q));
    if (q === 'ses-events') {
      const notifications = sum(singles.flatMap((s) => s.calls.filter((c) => c.port === 'mailer').map(() => 1))) / sends;
      add(q, 'SNS publish of the SES event (modelled: one per email sent)', 'publishes', PRICE.snsPublish, notifications);
      add(q, 'SQS message SNS delivers (modelled)', 'requests', PRICE.sqs, notifications);
    }
    add(q, 'SQS ReceiveMessage + DeleteMessageBatch (modelled from batches)', 'requests', PRICE.sqs, 2 * messages, (2 * messages) / batchSize, (2 * messages) / batchSize);
    add(q, `Lambda invocations (${fn})`, 'invocations', PRICE.invocations, messages, messages / batchSize, messages / batchSize);
    // Per message as a single send's invocations took it; a full batch runs its messages one after another.
    const perSendMs = sum(singles.flatMap((s) => invocationMs(s, q))) / sends;
    add(q, `Lambda duration (${fn})`, 'GB-s', PRICE.gbSeconds, gbSeconds(fn, perSendMs), gbSeconds(fn, perSendMs));
    dynamo(q, calls, calls, sends);
  }
  // Under steady traffic a consumer's receive, delete and invocation are shared as in a batch.
  for (const r of rows) if (r.step !== 'API' && (r.resource.startsWith('SQS ReceiveMessage') || r.resource.startsWith('Lambda invocations'))) r.steady = r.batch;
  return rows;
}

export const total = (rows: CostRow[], k: 'single' | 'batch' | 'steady', pred: (r: CostRow) => boolean = () => true): number => sum(rows.filter(pred).map((r) => r[k] * r.price));
export const isDynamo = (r: CostRow): boolean => r.resource.startsWith('DynamoDB');
