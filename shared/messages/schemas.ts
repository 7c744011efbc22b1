import * as z from 'zod';
import { channels } from '../accounts/service';

const object = z.record(z.string(), z.unknown());

/** SendRequest as the spec writes it. Channel rules beyond shape are business checks (422). */
export const sendRequest = z
  .object({
    channel: z.enum(channels),
    idempotency_key: z.string().min(1).max(256),
    message_type: z.enum(['transactional', 'marketing']).optional(),
    destination: object,
    payload: object.optional(),
    template_id: z.string().min(1).optional(),
    template_vars: object.optional(),
    metadata: object.optional(),
    validate_recipient: z.boolean().optional(),
    scheduled_at: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

export type SendRequest = z.infer<typeof sendRequest>;

export const MAX_BATCH = 1000;

export interface SendResponse {
  id: string;
  status: 'queued' | 'scheduled';
  channel: string;
  idempotency_key: string;
  created_at: string;
}

export const validateBody = z.object({ email: z.string().max(320) }).strict();
