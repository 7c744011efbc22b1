import { type QueueName } from '../platform';

export interface Queue {
  send(queue: QueueName, body: unknown, options?: { delaySeconds?: number }): Promise<void>;
  /** Many messages in as few requests as the transport allows. */
  sendBatch(queue: QueueName, bodies: readonly unknown[]): Promise<void>;
}
