// Counts every AWS SDK command the local runtime makes, by wrapping its SDK clients with two
// middlewares: one at the start of each command (name, input, output, time) and one under the
// retry layer (HTTP attempts). It can also hold a queue poller's ReceiveMessage calls ("gates"),
// so the steps of one send (API, worker, events ingest) can be run and counted one at a time.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { keys } from '../shared/db/keys';
import type { Container } from '../shared/runtime/container';

export type Service = 'DynamoDB' | 'SQS' | 'SES';

export interface CommandRecord {
  service: Service;
  /** Command name without the `Command` suffix, e.g. PutItem, SendMessageBatch. */
  command: string;
  /** SQS only: the queue's name, from its URL. */
  queue?: string;
  input: Record<string, unknown>;
  output?: Record<string, unknown>;
  /** Error name when the command failed (after the SDK's own retries). */
  error?: string;
  startMs: number;
  endMs: number;
  /** HTTP attempts below the SDK's retry layer (1 unless retried). */
  attempts: number;
}

/** Commands that are not part of any send: the local scheduler's ticks and idle pollers' empty receives. */
export function backgroundKind(r: CommandRecord): 'scheduler' | 'idle-receive' | undefined {
  if (r.service === 'DynamoDB' && JSON.stringify(r.input).includes(keys.schedulesPartition)) return 'scheduler';
  if (r.command === 'ReceiveMessage' && messagesOf(r) === 0) return 'idle-receive';
  return undefined;
}

export const messagesOf = (r: CommandRecord): number => ((r.output?.Messages as unknown[] | undefined) ?? []).length;

const queueNameOf = (input: Record<string, unknown>): string | undefined =>
  typeof input.QueueUrl === 'string' ? input.QueueUrl.split('/').pop() : undefined;

interface Collector {
  records: CommandRecord[];
}

interface Gate {
  closed: boolean;
  waiting: Array<() => void>;
}

type Sendable = { middlewareStack: SQSClient['middlewareStack'] };

export class AwsTap {
  private readonly tapped = new WeakSet<object>();
  private readonly collectors = new Set<Collector>();
  private readonly gates = new Map<string, Gate>();
  /** ReceiveMessage calls past their gate and not finished, by queue name. */
  private readonly receiving = new Map<string, number>();
  /** Received batches whose DeleteMessageBatch has not come yet, by queue name: a poller still handling them. */
  private readonly handling = new Map<string, number>();
  /** Messages sent to minus messages deleted from each queue, through the tapped clients. */
  private readonly outstanding = new Map<string, number>();
  private readonly listeners = new Set<(r: CommandRecord) => void>();
  private restoreSqsSend: (() => void) | undefined;

  /** Wraps one SDK client (idempotent). */
  tap(client: Sendable, service: Service): void {
    if (this.tapped.has(client)) return;
    this.tapped.add(client);
    const byContext = new WeakMap<object, CommandRecord>();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = (args.input ?? {}) as Record<string, unknown>;
        const command = (context.commandName ?? 'unknown').replace(/Command$/, '');
        const queue = service === 'SQS' ? queueNameOf(input) : undefined;
        if (command === 'ReceiveMessage' && queue) await this.passGate(queue);
        const record: CommandRecord = { service, command, queue, input, startMs: performance.now(), endMs: Number.NaN, attempts: 0 };
        byContext.set(context, record);
        const into = [...this.collectors];
        if (command === 'ReceiveMessage' && queue) this.receiving.set(queue, (this.receiving.get(queue) ?? 0) + 1);
        try {
          const result = await next(args);
          record.output = (result as unknown as { output?: Record<string, unknown> }).output;
          return result;
        } catch (error) {
          const e = error as { name?: string; code?: string };
          record.error = e?.name ?? e?.code ?? 'error';
          throw error;
        } finally {
          record.endMs = performance.now();
          if (command === 'ReceiveMessage' && queue) {
            this.receiving.set(queue, (this.receiving.get(queue) ?? 1) - 1);
            if (messagesOf(record) > 0) this.handling.set(queue, (this.handling.get(queue) ?? 0) + 1);
          }
          if (command === 'DeleteMessageBatch' && queue) this.handling.set(queue, Math.max(0, (this.handling.get(queue) ?? 0) - 1));
          if (queue && !record.error) this.outstanding.set(queue, (this.outstanding.get(queue) ?? 0) + queueDelta(record));
          for (const c of into) c.records.push(record);
          for (const l of this.listeners) l(record);
        }
      },
      { step: 'initialize', priority: 'high', name: 'benchAwsTap' },
    );
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const record = byContext.get(context);
        if (record) record.attempts++;
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low', name: 'benchAwsTapAttempts' },
    );
  }

  /** Leaves a client uncounted (the benchmark's own), even when the SQS hook meets it. */
  exclude(client: object): void {
    this.tapped.add(client);
  }

  /**
   * Wraps the clients reachable from the container: the store's document client, the queue
   * adapter's SQS client and the mailer's SES client (private fields, reached by a cast), and
   * every other SQS client on its first command. The local queue pollers use an SQS client of
   * their own that neither the container nor LocalRuntime exposes; hooking SQSClient.prototype.send
   * is how this benchmark reaches it (an accessor on LocalRuntime would make the hook unneeded).
   */
  attach(container: Container): void {
    this.tap(container.store.doc as DynamoDBDocumentClient as Sendable, 'DynamoDB');
    this.tap(reach<Sendable>(container.queue, ['client'], 'container.queue.client (SqsQueue)'), 'SQS');
    this.tap(reach<SESv2Client>(container.mailer, ['inner', 'client'], 'container.mailer.inner.client (SimulatedSesFeedback → SesMailer)') as Sendable, 'SES');
    if (!this.restoreSqsSend) {
      const original = SQSClient.prototype.send;
      const tap = (client: SQSClient): void => this.tap(client, 'SQS');
      SQSClient.prototype.send = function patchedSend(this: SQSClient, ...args: unknown[]) {
        tap(this);
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof original;
      this.restoreSqsSend = () => {
        SQSClient.prototype.send = original;
      };
    }
  }

  detach(): void {
    this.restoreSqsSend?.();
    this.restoreSqsSend = undefined;
    for (const queue of this.gates.keys()) this.open(queue);
  }

  /** Records every command that starts until `stop()` is called. */
  collect(): { records: CommandRecord[]; stop: () => CommandRecord[] } {
    const collector: Collector = { records: [] };
    this.collectors.add(collector);
    return {
      records: collector.records,
      stop: () => {
        this.collectors.delete(collector);
        return collector.records;
      },
    };
  }

  /** Resolves with the first finished command that `match` accepts, or rejects after `timeoutMs`. */
  waitFor(match: (r: CommandRecord) => boolean, timeoutMs: number, what: string): Promise<CommandRecord> {
    return new Promise((resolve, reject) => {
      const listener = (r: CommandRecord): void => {
        if (!match(r)) return;
        cleanup();
        resolve(r);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const cleanup = (): void => {
        clearTimeout(timer);
        this.listeners.delete(listener);
      };
      this.listeners.add(listener);
    });
  }

  /**
   * Holds this queue's ReceiveMessage calls from now on, and waits until the receives in flight
   * are done and the poller deleted every batch it took (a batch whose messages all failed is
   * never deleted: that shows as a timeout).
   */
  async close(queue: string, timeoutMs = 30_000): Promise<void> {
    const gate = this.gates.get(queue) ?? { closed: false, waiting: [] };
    gate.closed = true;
    this.gates.set(queue, gate);
    const deadline = performance.now() + timeoutMs;
    while ((this.receiving.get(queue) ?? 0) > 0 || (this.handling.get(queue) ?? 0) > 0) {
      if (performance.now() > deadline) throw new Error(`the ${queue} poller did not finish its batch within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Messages sent to this queue and not yet deleted from it, since the tap was attached. */
  pending(queue: string): number {
    return this.outstanding.get(queue) ?? 0;
  }

  /** Lets a held queue's poller through until every pending message of the queue is deleted, then holds it again. */
  async drain(queue: string, timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    this.open(queue);
    try {
      while (this.pending(queue) > 0) {
        if (performance.now() > deadline) throw new Error(`${this.pending(queue)} messages still on ${queue} after ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      await this.close(queue);
    }
  }

  /** Lets this queue's held and future ReceiveMessage calls through. */
  open(queue: string): void {
    const gate = this.gates.get(queue);
    if (!gate) return;
    gate.closed = false;
    for (const release of gate.waiting.splice(0)) release();
  }

  private async passGate(queue: string): Promise<void> {
    const gate = this.gates.get(queue);
    if (!gate?.closed) return;
    await new Promise<void>((resolve) => gate.waiting.push(resolve));
  }
}

/** How a finished SQS command changed the number of messages on its queue. */
function queueDelta(r: CommandRecord): number {
  const entries = ((r.input.Entries as unknown[] | undefined) ?? []).length;
  const failed = ((r.output?.Failed as unknown[] | undefined) ?? []).length;
  switch (r.command) {
    case 'SendMessage':
      return 1;
    case 'SendMessageBatch':
      return entries - failed;
    case 'DeleteMessage':
      return -1;
    case 'DeleteMessageBatch':
      return -(entries - failed);
    default:
      return 0;
  }
}

/** A private field of an adapter, checked, so a refactor fails here with a clear message. */
function reach<T>(from: unknown, path: readonly string[], what: string): T {
  let value: unknown = from;
  for (const key of path) value = (value as Record<string, unknown> | undefined)?.[key];
  if (!value || typeof (value as { send?: unknown }).send !== 'function' || !(value as { middlewareStack?: unknown }).middlewareStack) {
    throw new Error(`bench: cannot reach ${what}; the adapter changed shape, update bench/aws-tap.ts`);
  }
  return value as T;
}
