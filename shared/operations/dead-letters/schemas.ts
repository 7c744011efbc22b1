// Wire shapes of the staff dead-letter routes (GET /v1/admin/dead-letters, POST …/{queue}/redrive).
import * as z from 'zod';
import { queues } from '../../platform';

const queueNames = queues.map((q) => q.name) as [string, ...string[]];

/** At most this many ids in one redrive (SQS ids are 36-character UUIDs). */
export const MAX_REDRIVE_IDS = 100;

export const redriveBody = z
  .object({
    ids: z
      .array(z.string().min(1).max(128))
      .min(1)
      .max(MAX_REDRIVE_IDS)
      .optional()
      .meta({ description: 'The DLQ message ids to put back (from GET /v1/admin/dead-letters); omitted: every message of the DLQ (up to 1,000 a call)' }),
  })
  .strict();
export type RedriveBody = z.infer<typeof redriveBody>;

export const deadLetterItemView = z
  .object({
    id: z.string().meta({ description: 'The SQS message id' }),
    queue: z.enum(queueNames),
    body_preview: z.string().meta({ description: 'The first 500 characters of the body exactly as sent' }),
    body_truncated: z.boolean(),
    sent_at: z.string().nullable().meta({ description: 'When it was first sent to its queue' }),
    first_failed_at: z.string().nullable().meta({ description: 'Its first failed receive; null when no reason was noted (e.g. the consumer timed out or crashed)' }),
    last_failed_at: z.string().nullable(),
    receive_count: z.number().int().nullable(),
    reason: z.string().nullable().meta({ description: 'Why its last receive failed: the error, or why it is poison (not JSON, breaks the contract)' }),
  })
  .strict();

export const deadLetterQueueView = z
  .object({
    queue: z.enum(queueNames),
    depth: z.number().int().meta({ description: "SQS's approximate number of messages in the DLQ" }),
    items: z.array(deadLetterItemView).meta({ description: 'Up to 10 of them: SQS has no peek, so this is one receive made visible again at once' }),
  })
  .strict();

export const deadLettersView = z.object({ queues: z.array(deadLetterQueueView) }).strict();

export const redriveView = z
  .object({
    queue: z.enum(queueNames),
    redriven: z.array(z.string()).meta({ description: 'The ids put back on the queue; an id no longer in the DLQ is left out' }),
  })
  .strict();
