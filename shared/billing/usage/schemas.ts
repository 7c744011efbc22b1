// Wire shapes of GET /v1/usage: its query and the Usage answer.
import * as z from 'zod';
import { channels } from '../../accounts/schemas';
import { reputationView } from '../reputation/schemas';

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
    send_count: z.number().int().meta({ description: 'Transactional (non-broadcast) live sends accepted in the period and not given back (queued and scheduled ones included)' }),
    broadcast_send_count: z.number().int().meta({ description: 'Broadcast and bulk live sends accepted in the period and not given back (extension)' }),
    cost_micros: z.number().int().meta({ description: 'Cost of the live sends accepted in the period (queued, scheduled or sent), every kind; the spend caps count it' }),
  })
  .strict();
export type ChannelUsage = z.infer<typeof channelUsageView>;

export const usageView = z
  .object({
    period: z.string().meta({ description: 'YYYY-MM' }),
    total_send_count: z.number().int().meta({ description: 'Transactional (non-broadcast) live sends accepted in the period, every channel, queued and scheduled ones included; a send suppressed, failed before the provider took it or canceled is given back; test-mode sends never count' }),
    broadcast_send_count: z.number().int().meta({ description: 'Broadcast and bulk live sends accepted in the period and not given back, every channel (extension)' }),
    total_cost_micros: z.number().int().meta({ description: 'Internal spend-cap estimate in micro-dollars, broadcasts included: what a hard spend cap compares with; not an invoice' }),
    channels: z.array(channelUsageView).meta({ description: 'Every channel, zero where nothing was sent' }),
    reputation: reputationView,
  })
  .strict();
export type Usage = z.infer<typeof usageView>;
