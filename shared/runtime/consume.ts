// The one shape of a queue consumer. `consume(queue, contract, handle)` builds the Lambda handler:
// a middy handler whose middlewares are the steps every consumer shares (the container, each
// record parsed against the message's zod contract, partial batch failures). The use case sees a
// typed job and never an SQS record.
//
// - A record whose body is not JSON or breaks the contract is poison: it is logged once as an error
//   and reported as failed, so SQS retries it and, after the queue's maxReceiveCount, moves it to
//   the DLQ where it can be read and redriven. Nothing is dropped silently.
// - A record whose use case throws is reported as failed and retried the same way.
// - On a record's last receive before the DLQ (poison or failed), a dead-letter note records why
//   (shared/operations/dead-letters/notes.ts), so the staff listing of the DLQs shows the reason.
// - `finalAttempt` tells the use case this is the last receive before the DLQ, so it can record a
//   final state (a message `failed`) instead of leaving it pending.
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context, SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type * as z from 'zod';
import { queueNamed, type QueueName } from '../platform';
import { writeDeadLetterNote } from '../operations/dead-letters/notes';
import { getContainer, type Container } from './container';
import { describeError } from '../adapters/logger';
import { batchMemo } from '../concurrency';

export interface Delivery<T = unknown> {
  container: Container;
  /** Every job of the invocation (the batch) that keeps the contract, in order, this one among them. */
  jobs: readonly T[];
  /** The SQS message id of the record. */
  recordId: string;
  receiveCount: number;
  /** This is the last receive before the record would move to the DLQ. */
  finalAttempt: boolean;
  /**
   * Memoizes a read for the records of one invocation (a batch): the first record's `load` is
   * what later records of the batch get for the same key, e.g. an account's status read once for
   * ten send jobs. A rejected load is not kept, so the next record reads again.
   */
  perBatch<T>(key: string, load: () => Promise<T>): Promise<T>;
  /**
   * Runs `finish` once after every record of the invocation is handled, whatever their outcomes
   * (the first finish given for a key is the one run): e.g. the batch's counter adds, written once.
   * A finish that throws is logged; the records' outcomes stand.
   */
  afterBatch(key: string, finish: () => Promise<void>): void;
}

export interface ConsumeOptions {
  /**
   * `serial` (the default) handles records one after the other, so two jobs of one message stay in
   * order; `parallel` handles them together when they are independent.
   */
  order?: 'serial' | 'parallel';
}

type Outcome = { recordId: string; ok: boolean };

/** One invocation's finishing steps (Delivery.afterBatch), run once its records are handled. */
function batchEnd(): { afterBatch: Delivery['afterBatch']; run(c: Container, queue: QueueName): Promise<void> } {
  const finishes = new Map<string, () => Promise<void>>();
  return {
    afterBatch: (key, finish) => void (finishes.has(key) || finishes.set(key, finish)),
    run: async (c, queue) => {
      for (const [key, finish] of finishes) {
        try {
          await finish();
        } catch (error) {
          c.logger.error(`a ${queue} batch's finishing step failed`, { step: key, error: describeError(error) });
        }
      }
    },
  };
}

/** What the middlewares hand the handler on the Lambda context. */
type ConsumerContext = Context & { container: Container };

/**
 * Builds the container once per cold start, before anything else runs (consumers and timed
 * functions), and starts the invocation's log keys: the function's name and the queue, if any.
 */
export const withContainer = <E, R>(keys: Record<string, unknown> = {}): MiddlewareObj<E, R, Error, Context & { container: Container }> => ({
  name: 'container',
  before: async (request) => {
    request.context.container = await getContainer();
    request.context.container.logger.invocation?.(keys, request.context);
  },
});

/** Turns per-record outcomes into the partial batch response SQS reads. */
const partialBatchFailures = (): MiddlewareObj<SQSEvent, Outcome[] | SQSBatchResponse, Error, ConsumerContext> => ({
  name: 'partial-batch-failures',
  after: (request) => {
    const outcomes = (request.response ?? []) as Outcome[];
    request.response = { batchItemFailures: outcomes.filter((o) => !o.ok).map((o): SQSBatchItemFailure => ({ itemIdentifier: o.recordId })) };
  },
});

function parseRecord<T>(record: SQSRecord, contract: z.ZodType<T>): { ok: true; job: T } | { ok: false; reason: unknown } {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch (error) {
    return { ok: false, reason: error };
  }
  const parsed = contract.safeParse(body);
  return parsed.success ? { ok: true, job: parsed.data } : { ok: false, reason: parsed.error };
}

/**
 * An error as one line of text for a dead-letter note: `Name: message`, or what was thrown. A
 * contract's ZodError, whose message is its issues as JSON, reads `path: message; …`.
 */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const issues = (error as { issues?: unknown }).issues;
  if (error.name === 'ZodError' && Array.isArray(issues)) {
    const said = issues.map((i: { path?: unknown[]; message?: string }) => `${(i.path ?? []).join('.') || '(body)'}: ${i.message ?? ''}`);
    return `ZodError: ${said.join('; ')}`;
  }
  return error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
}

export function consume<T>(
  queue: QueueName,
  contract: z.ZodType<T>,
  handle: (job: T, delivery: Delivery<T>) => Promise<void>,
  options: ConsumeOptions = {},
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  const { maxReceiveCount } = queueNamed(queue);
  type Shared = Pick<Delivery<T>, 'perBatch' | 'afterBatch' | 'jobs'>;
  type Parsed = ReturnType<typeof parseRecord<T>>;
  const one = async (c: Container, record: SQSRecord, parsed: Parsed, { perBatch, afterBatch, jobs }: Shared): Promise<Outcome> => {
    const recordId = record.messageId;
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 1) || 1;
    const finalAttempt = receiveCount >= maxReceiveCount;
    if (!parsed.ok) {
      c.logger.error(`poison message on the ${queue} queue; it goes to the DLQ after its last receive`, { recordId, reason: describeError(parsed.reason), body: record.body.slice(0, 2000) });
      if (finalAttempt) await noteDeadLetter(c, record, `poison message: ${messageOf(parsed.reason)}`, receiveCount);
      return { recordId, ok: false };
    }
    try {
      await handle(parsed.job, { container: c, jobs, recordId, receiveCount, finalAttempt, perBatch, afterBatch });
      return { recordId, ok: true };
    } catch (error) {
      c.logger.warn(`${queue} job failed; SQS will deliver it again`, { recordId, receiveCount, error: describeError(error) });
      if (finalAttempt) await noteDeadLetter(c, record, messageOf(error), receiveCount);
      return { recordId, ok: false };
    }
  };
  /** Records why the record goes to the DLQ; a note that cannot be written is logged, never fatal. */
  const noteDeadLetter = async (c: Container, record: SQSRecord, reason: string, receiveCount: number): Promise<void> => {
    const now = c.clock.now();
    const first = Number(record.attributes?.ApproximateFirstReceiveTimestamp);
    const firstFailedAt = Number.isFinite(first) && first > 0 ? new Date(first) : now;
    try {
      await writeDeadLetterNote(c.store, { queue, body: record.body, reason, firstFailedAt: firstFailedAt.toISOString(), lastFailedAt: now.toISOString(), receiveCount });
    } catch (error) {
      c.logger.error(`could not note why a ${queue} message goes to the DLQ`, { recordId: record.messageId, error: describeError(error) });
    }
  };
  const handler = middy<SQSEvent, Outcome[] | SQSBatchResponse, Error, ConsumerContext>()
    .use(withContainer({ queue }))
    .use(partialBatchFailures())
    .handler(async (event, context) => {
      const c = context.container;
      const end = batchEnd();
      const parsed = event.Records.map((r) => parseRecord(r, contract));
      const jobs = parsed.flatMap((p) => (p.ok ? [p.job] : []));
      const shared: Shared = { perBatch: batchMemo(), afterBatch: end.afterBatch, jobs };
      let outcomes: Outcome[] = [];
      if (options.order === 'parallel') outcomes = await Promise.all(event.Records.map((r, i) => one(c, r, parsed[i]!, shared)));
      else for (const [i, record] of event.Records.entries()) outcomes.push(await one(c, record, parsed[i]!, shared));
      await end.run(c, queue);
      return outcomes;
    });
  // Lambda's context when Lambda calls it; the local pollers call it with the event alone.
  return async (event, context?: Context) => (await handler(event, { ...context } as ConsumerContext)) as SQSBatchResponse;
}
