import * as z from 'zod';

export const channels = ['email', 'sms', 'push', 'voice', 'webhook'] as const;
export type Channel = (typeof channels)[number];

export const createAccountBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    email: z.email().max(254).optional(),
  })
  .strict();

export type CreateAccountBody = z.infer<typeof createAccountBody>;

export const channelBody = z.object({ enabled: z.boolean() }).strict();
