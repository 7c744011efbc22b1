// The staff view of the dead-letter queues (issue 32): what sits in each DLQ and why, and putting
// messages back on their queue once the fault is fixed. Through the DeadLetterQueues port (SQS in
// AWS, the local emulator behind the journal locally); the reasons come from the notes consume()
// writes on a message's last failed receive.
import type { Store } from '../../db/store';
import { NotFoundError } from '../../errors';
import { queues, type QueueName } from '../../platform';
import type { DeadLetterQueues } from '../../ports/dead-letters';
import { readDeadLetterNote } from './notes';

const PREVIEW_CHARS = 500;

export interface DeadLetterItem {
  id: string;
  queue: QueueName;
  body_preview: string;
  body_truncated: boolean;
  sent_at: string | null;
  first_failed_at: string | null;
  last_failed_at: string | null;
  receive_count: number | null;
  reason: string | null;
}

export interface DeadLetterQueueView {
  queue: QueueName;
  depth: number;
  items: DeadLetterItem[];
}

export interface DeadLetterDeps {
  store: Store;
  deadLetters: DeadLetterQueues;
}

/** Every queue's DLQ: its approximate depth and up to 10 of its messages with their reason. */
export async function listDeadLetters(deps: DeadLetterDeps): Promise<DeadLetterQueueView[]> {
  const out: DeadLetterQueueView[] = [];
  for (const { name } of queues) {
    const { depth, messages } = await deps.deadLetters.peek(name);
    const items: DeadLetterItem[] = [];
    for (const m of messages) {
      const note = await readDeadLetterNote(deps.store, name, m.body);
      items.push({
        id: m.id,
        queue: name,
        body_preview: m.body.slice(0, PREVIEW_CHARS),
        body_truncated: m.body.length > PREVIEW_CHARS,
        sent_at: m.sentAt === undefined ? null : new Date(m.sentAt).toISOString(),
        first_failed_at: note?.first_failed_at ?? null,
        last_failed_at: note?.last_failed_at ?? null,
        receive_count: note?.receive_count ?? null,
        reason: note?.reason ?? null,
      });
    }
    out.push({ queue: name, depth: Math.max(depth, items.length), items });
  }
  return out;
}

export function queueNamedIn(name: string): QueueName {
  const found = queues.find((q) => q.name === name);
  if (!found) throw new NotFoundError('queue');
  return found.name;
}

/** Puts the chosen messages (all when `ids` is omitted) back on their queue; answers their ids. */
export async function redriveDeadLetters(deps: DeadLetterDeps, queue: QueueName, ids?: readonly string[]): Promise<{ queue: QueueName; redriven: string[] }> {
  const moved = await deps.deadLetters.redrive(queue, ids);
  return { queue, redriven: moved.map((m) => m.id) };
}
