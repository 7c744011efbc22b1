import * as z from 'zod';
import { channels } from '../../accounts/schemas';

/** The link's path. Checked by the service: anything but a token we issued is 400 invalid_token. */
export const unsubscribeParams = z
  .object({ token: z.string().meta({ description: 'The token of the link in a marketing message (53 characters: the message and a signature over it)' }) })
  .strict();

/** What the link answers as JSON (a browser gets a page). */
export const unsubscribeView = z
  .object({
    channel: z.enum(channels).meta({ description: 'The channel the recipient leaves' }),
    recipient: z.string().meta({ description: 'The address the message went to' }),
    unsubscribed: z.boolean().meta({ description: 'Whether the recipient is unsubscribed on the channel now (a GET only reads it)' }),
  })
  .strict();
export type UnsubscribeView = z.infer<typeof unsubscribeView>;

/** How the POST came: an RFC 8058 one-click body (a mail client), or anything else (our page's button, a plain POST). */
export type UnsubscribeVia = 'one_click' | 'link';
