// What runs in the local runtime besides the API: a queue poller for every queue-consuming function
// of the manifest, a timer for every `every` function, and the store scheduler's tick. `npm start`
// runs them in its functions thread (functions-thread.ts), in-process callers may run them beside
// the API (runtime.ts, `consumers: 'inline'`); the code is the same.
import type { SQSClient } from '@aws-sdk/client-sqs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRootOf } from './bundle.mjs';
import { queues, type QueueName } from '../shared/platform';
import type { FunctionDef } from '../shared/platform';
import { StoreScheduler } from '../shared/adapters/local/store-scheduler';
import type { Container } from '../shared/runtime/container';
import type { Logger } from '../shared/adapters/logger';
import { QueuePoller, type PolledRecord, type QueueHandler } from './queue-poller';
import { startEveryLoop, startSchedulerLoop } from './scheduler-loop';
import { REGION } from './emulator-clients';

/** The project's folder, from this module's source or from a bundle of it under .tmp/ (bundle.mjs). */
export const projectRoot = projectRootOf(import.meta.url);

/**
 * Each function's bundled module by name, when this thread runs a bundle (bin/local.mjs sets it
 * before the bundle loads): a bundle's thread has no TypeScript loader to import the sources.
 */
const BUNDLED = '__postboxFunctionModules';
const bundledModules = (): Record<string, string> | undefined => (globalThis as Record<string, unknown>)[BUNDLED] as Record<string, string> | undefined;

/**
 * Batches of one queue that may be handled at once (QueuePoller's lanes; Admission bounds them all
 * together). The send worker handles a batch's messages one after the other and waits on the store
 * and the SES emulator most of the time, so it gets the most: 12 since a message costs two store
 * writes and a batch's shared reads and counter writes (issue 31 item 4), far under what the store
 * takes (bench/results.md, "Broadcast fan-out").
 */
export const CONSUMER_LANES: Partial<Record<QueueName, number>> = { send: 12, 'ses-events': 4, webhooks: 3, inbound: 4 };

/** What of a function definition the consumers need: plain data, so it crosses to a worker thread. */
export type ConsumerDef = Pick<FunctionDef, 'name' | 'entry' | 'handler' | 'queue' | 'every'>;

export const consumerDefs = (functions: readonly FunctionDef[]): ConsumerDef[] =>
  functions.filter((f) => f.queue || f.every).map(({ name, entry, handler, queue, every }) => ({ name, entry, handler, queue, every }));

export async function loadFunction<T>(fn: Pick<FunctionDef, 'name' | 'entry' | 'handler'>): Promise<T> {
  const mod = (await import(bundledModules()?.[fn.name] ?? pathToFileURL(resolve(projectRoot, fn.entry)).href)) as Record<string, unknown>;
  const handler = mod[fn.handler];
  if (typeof handler !== 'function') throw new Error(`${fn.entry} does not export ${fn.handler}`);
  return handler as T;
}

export interface ConsumerDeps {
  container: Container;
  /** The SQS client the pollers receive and delete with. */
  sqs: SQSClient;
  logger: Logger;
  retryDelaySeconds: number;
  schedulerTickMs: number;
  /** Runs one receive-handle-delete pass when its turn comes (Admission.consumerTurn). */
  turn: <T>(pass: () => Promise<T>) => Promise<T>;
  /**
   * Where a consumer's handler comes from, when it is imported only on its first batch (or its
   * first run): the functions thread's bundle (functions-build.ts). Without it every handler is
   * imported from its source before anything starts.
   */
  lazyLoad?: <T>(fn: ConsumerDef) => Promise<T>;
  /** The queue journal, told what each poller deleted and what it moves to a DLQ. */
  journal: {
    acknowledge(records: readonly PolledRecord[]): void | Promise<void>;
    deadLettered(records: readonly PolledRecord[]): void | Promise<void>;
  };
}

/** A handler imported when it is first called; a failed import fails that call and the next tries again. */
function importedOnFirstCall<A extends unknown[], R>(load: () => Promise<(...args: A) => Promise<R>>): (...args: A) => Promise<R> {
  let loading: Promise<(...args: A) => Promise<R>> | undefined;
  return async (...args) => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return (await loading)(...args);
  };
}

/** Each function's handler: imported now from its source, or on first use through `lazyLoad`. */
async function handlerOf<T extends (...args: never[]) => Promise<unknown>>(fn: ConsumerDef, lazyLoad: ConsumerDeps['lazyLoad']): Promise<T> {
  if (!lazyLoad) return loadFunction<T>(fn);
  return importedOnFirstCall(() => lazyLoad<T>(fn)) as unknown as T;
}

/** Starts them all; resolves with a stop that waits for the passes under way. */
export async function startConsumers(functions: readonly ConsumerDef[], deps: ConsumerDeps): Promise<() => Promise<void>> {
  const { container, logger } = deps;
  const { queueUrls, queueArns, dlqUrls } = container.config;
  const stops: Array<() => Promise<void>> = [];
  for (const fn of functions.filter((f) => f.queue)) {
    const queue = queues.find((q) => q.name === fn.queue);
    if (!queue) throw new Error(`function ${fn.name} consumes unknown queue ${fn.queue}`);
    const poller = new QueuePoller(deps.sqs, {
      queue,
      url: queueUrls[queue.name] as string,
      arn: queueArns[queue.name] as string,
      dlqUrl: dlqUrls?.[queue.name],
      region: REGION,
      handler: await handlerOf<QueueHandler>(fn, deps.lazyLoad),
      retryDelaySeconds: deps.retryDelaySeconds,
      logger,
      // Several batches of a queue at once, as Lambda scales a queue's consumers; Admission bounds
      // them all together. Fan-out pages are one message a batch and rare.
      lanes: CONSUMER_LANES[queue.name] ?? 1,
      turn: deps.turn,
      onDeleted: (records) => deps.journal.acknowledge(records),
      onDeadLettered: (records) => deps.journal.deadLettered(records),
    });
    poller.start();
    stops.push(() => poller.stop());
  }
  for (const fn of functions.filter((f) => f.every)) {
    stops.push(startEveryLoop(fn.name, await handlerOf<(event: unknown) => Promise<unknown>>(fn, deps.lazyLoad), (fn.every?.minutes ?? 1) * 60_000, logger));
  }
  if (container.scheduler instanceof StoreScheduler) {
    stops.push(startSchedulerLoop({ scheduler: container.scheduler, queue: container.queue, clock: container.clock, logger }, deps.schedulerTickMs));
  }
  return async () => {
    await Promise.all(stops.map((stop) => stop().catch(() => undefined)));
  };
}
