// The tracking override a send, batch item or broadcast may carry (shared/sending/tracking/choice.ts).
import * as z from 'zod';

export const trackingRequest = z
  .object({
    opens: z.boolean().optional().meta({ description: 'Add an open pixel to the HTML part' }),
    clicks: z.boolean().optional().meta({ description: 'Track the http(s) links of the HTML part' }),
  })
  .strict();

/** A tracking link's path: the token our link carries (the message and a signature). */
export const trackParams = z.object({ token: z.string().meta({ description: 'The token of a tracked message’s link (49 characters: the message and a signature)' }) }).strict();

/** A click link's query: the link it redirects to, which its token signs. */
export const clickQuery = z.object({ url: z.string().optional().meta({ description: 'The link as mailed before tracking; the token signs it, so no other link is followed (404)' }) }).strict();
