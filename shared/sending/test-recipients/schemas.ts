import * as z from 'zod';
import { isValidAddress, normalizeAddress } from '../../formats/address';

export const createTestRecipientBody = z
  .object({
    email: z
      .string()
      .max(320)
      .transform(normalizeAddress)
      .refine(isValidAddress, { message: 'not a valid email address' }),
  })
  .strict();

export type CreateTestRecipientBody = z.infer<typeof createTestRecipientBody>;

export const testRecipientStatus = z.enum(['pending', 'verified']);
export type TestRecipientStatus = z.infer<typeof testRecipientStatus>;

/** Wire form: never the link token or its digest. */
export const testRecipientView = z
  .object({
    id: z.string().meta({ description: 'trc_…' }),
    email: z.string().meta({ description: 'The address, trimmed and lower-cased' }),
    status: testRecipientStatus.meta({ description: 'pending until the one-time link mailed to the address is opened' }),
    created_at: z.string(),
    verified_at: z.string().nullable().meta({ description: 'null while pending' }),
  })
  .strict();
export type TestRecipientView = z.infer<typeof testRecipientView>;

/** What the one-time link answers (as JSON; a browser gets a page). */
export const verifiedTestRecipientView = z
  .object({
    id: z.string(),
    email: z.string(),
    status: z.literal('verified'),
  })
  .strict();
export type VerifiedTestRecipientView = z.infer<typeof verifiedTestRecipientView>;

/** The one-time link's query. Checked by the service: a missing or malformed token is 400 invalid_token. */
export const verifyLinkQuery = z
  .object({ token: z.string().meta({ description: 'The token from the mailed link (40 letters and digits); it works once, for 24 hours' }) })
  .strict();
