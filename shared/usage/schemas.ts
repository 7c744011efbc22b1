// Wire shapes of GET /v1/usage: its query and the Usage answer.
import * as z from 'zod';
import { channels } from '../accounts/schemas';

export const usageQuery = z.object({
  period: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM')
    .optional()
    .meta({ description: 'The calendar month (UTC), YYYY-MM; default the current one' }),
});

export const channelUsageView = z
  .object({
    channel: z.enum(channels),
    send_count: z.number().int(),
    cost_micros: z.number().int(),
  })
  .strict();
export type ChannelUsage = z.infer<typeof channelUsageView>;

export const usageView = z
  .object({
    period: z.string().meta({ description: 'YYYY-MM' }),
    total_send_count: z.number().int().meta({ description: 'Live sends the provider accepted in the period, every channel; test-mode and suppressed sends never count' }),
    total_cost_micros: z.number().int().meta({ description: 'Internal spend-cap estimate in micro-dollars; not an invoice' }),
    channels: z.array(channelUsageView).meta({ description: 'Every channel, zero where nothing was sent' }),
  })
  .strict();
export type Usage = z.infer<typeof usageView>;
