// The send queue's payload: ids only; the worker reads the message, so a job never carries content.
import * as z from 'zod';

export const sendJob = z.object({
  message_id: z.string().min(1),
  account_id: z.string().min(1),
});

export type SendJob = z.infer<typeof sendJob>;
