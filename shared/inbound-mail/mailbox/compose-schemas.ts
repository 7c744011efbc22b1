// Wire shapes of the Mail app's sending routes: compose, reply and forward. Each answers the send
// pipeline's SendResponse (shared/sending/messages/schemas.ts), with an idempotency_key prefixed `mail_`.
import * as z from 'zod';

/** What a client may give as its own key; `mail_` is put in front, within SendRequest's 256. */
export const MAX_CLIENT_KEY = 251;
export const MAIL_KEY_PREFIX = 'mail_';

const nonBlank = (v: string | undefined): boolean => v !== undefined && v.trim() !== '';
const address = (description: string) => z.string().trim().min(1).max(254).meta({ description });
const bodies = {
  body_text: z.string().optional().meta({ description: 'The text part; body_text or body_html (or both) is required' }),
  body_html: z.string().optional().meta({ description: 'The HTML part' }),
};
const idempotencyKey = z
  .string()
  .min(1)
  .max(MAX_CLIENT_KEY)
  .optional()
  .meta({
    description:
      'Your key for a safe retry: the send is keyed `mail_<key>`, and a retry with the same key and body answers the first result without sending again. ' +
      'Omitted: a fresh `mail_<ulid>` (a retry then sends again).',
  });
const NEEDS_BODY = { message: 'body_text or body_html is required (not blank)', path: ['body_text'] };
const hasBody = (b: { body_text?: string; body_html?: string }): boolean => nonBlank(b.body_text) || nonBlank(b.body_html);

export const composeBody = z
  .object({
    to: address('The recipient: one address'),
    from: z
      .string()
      .max(320)
      .optional()
      .meta({ description: '`address` or `Name <address>` on a verified domain of the account; omitted: the oldest inbox on a verified domain, else mail@ the oldest verified domain' }),
    subject: z.string().trim().min(1).max(998),
    ...bodies,
    idempotency_key: idempotencyKey,
  })
  .strict()
  .refine(hasBody, NEEDS_BODY);

export const replyBody = z
  .object({
    ...bodies,
    to: address('The recipient; omitted: the sender of the thread’s first received message').optional(),
    cc: z
      .array(z.string())
      .max(0, 'is not supported yet: a message has one recipient in the send pipeline; reply to each address separately')
      .optional()
      .meta({ description: 'Reserved: must be empty or absent until the send pipeline carries Cc' }),
    idempotency_key: idempotencyKey,
  })
  .strict()
  .refine(hasBody, NEEDS_BODY);

export const forwardBody = z
  .object({
    to: address('The recipient: one address'),
    subject: z.string().trim().min(1).max(998).optional().meta({ description: 'Omitted: `Fwd: ` and the newest received message’s subject' }),
    ...bodies,
    idempotency_key: idempotencyKey,
  })
  .strict()
  .refine(hasBody, NEEDS_BODY);

export type ComposeBody = z.infer<typeof composeBody>;
export type ReplyBody = z.infer<typeof replyBody>;
export type ForwardBody = z.infer<typeof forwardBody>;
