// Queue consumers run as `npm start` runs them (the local runtime's lanes, a short pause after an
// empty receive), for benchmarks that time consumers running side by side rather than one drain
// pass at a time (BenchRuntime.drain). Each invocation's port calls are booked to a tag of its own,
// `queue#n`, so the calls of one invocation can be told from another's.
import type { SQSEvent } from 'aws-lambda';
import { functions } from '../../functions/manifest';
import { queueNamed, type QueueName } from '../../shared/platform';
import { CONSUMER_LANES, loadFunction } from '../../local/runtime';
import { QueuePoller, type QueueHandler } from '../../local/queue-poller';
import { actingAs, type BenchRuntime, type Invocation } from './runtime';

export interface TaggedInvocation extends Invocation {
  /** What its port calls are booked to (`PortCall.by`): `fanout#3`. */
  tag: string;
}

export interface LanedConsumers {
  /** One poller per queue, in the order asked for; none started. */
  pollers: QueuePoller[];
  /** Every invocation so far, in the order they began (a caller may empty it: tags are never reused). */
  invocations: TaggedInvocation[];
  start(): void;
  stop(): Promise<void>;
}

/** The consumers of `queues` (every consumed queue when omitted), made but not started. */
export async function lanedConsumers(b: BenchRuntime, queues?: readonly QueueName[]): Promise<LanedConsumers> {
  const invocations: TaggedInvocation[] = [];
  const pollers: QueuePoller[] = [];
  let n = 0;
  const names = queues ?? functions.flatMap((f) => (f.queue ? [f.queue] : []));
  for (const name of names) {
    const fn = functions.find((f) => f.queue === name);
    if (!fn) throw new Error(`bench: no consumer of the ${name} queue in the manifest`);
    const queue = queueNamed(name);
    const handler = await loadFunction<QueueHandler>(fn);
    const invoke: QueueHandler = async (event: SQSEvent) => {
      const inv: TaggedInvocation = { tag: `${name}#${n++}`, queue: name, bodies: event.Records.map((r) => r.body), startMs: performance.now(), ms: 0 };
      invocations.push(inv);
      try {
        return await actingAs(inv.tag, () => handler(event));
      } finally {
        inv.ms = performance.now() - inv.startMs;
      }
    };
    const { queueUrls, queueArns, region } = b.c.config;
    pollers.push(
      new QueuePoller(b.rt.sqsClient, { queue, url: queueUrls[name]!, arn: queueArns[name]!, region, handler: invoke, retryDelaySeconds: 30, logger: b.c.logger, lanes: CONSUMER_LANES[name] ?? 1, idleMs: 20 }),
    );
  }
  return {
    pollers,
    invocations,
    start: () => pollers.forEach((p) => p.start()),
    stop: async () => void (await Promise.all(pollers.map((p) => p.stop()))),
  };
}
