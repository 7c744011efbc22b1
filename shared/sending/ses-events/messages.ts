// The ses-events queue's payload: an SNS envelope whose Message is an SES notification.
import * as z from 'zod';
import { readSnsMessage, snsEnvelope } from './ses-notification';

/**
 * A notification that cannot be read (no SNS envelope, no SES notification inside it, a tracked
 * type without what the timeline needs) breaks the contract: it is poison and ends in the DLQ,
 * where it can be looked at. A readable one of a type we do not track passes, as `ignore`.
 */
export const sesEventMessage = snsEnvelope.transform((sns, ctx) => {
  const parsed = readSnsMessage(sns);
  if (parsed.kind !== 'invalid') return parsed;
  ctx.addIssue({ code: 'custom', message: parsed.reason, input: sns });
  return z.NEVER;
});

export type SesEventMessage = z.output<typeof sesEventMessage>;
