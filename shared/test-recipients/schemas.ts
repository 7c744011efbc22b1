import * as z from 'zod';
import { isValidAddress, normalizeAddress } from '../email/address';

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

export type TestRecipientStatus = 'pending' | 'verified';

/** Wire form: never the link token or its digest. */
export interface TestRecipientView {
  id: string;
  email: string;
  status: TestRecipientStatus;
  created_at: string;
  verified_at: string | null;
}

/** What the one-time link answers. */
export interface VerifiedTestRecipientView {
  id: string;
  email: string;
  status: 'verified';
}
