// Wire shapes of the sending reputation: the account's (GET /v1/usage → reputation) and the
// staff's board (GET /v1/admin/reputation).
import * as z from 'zod';

const state = z.enum(['ok', 'warned', 'paused']).meta({ description: 'ok; warned (a mail and an account.reputation_warning event went); paused (live sends answer 403 sending_paused until staff lift it). Moves up by itself, down only by a staff lift' });
const rate = (what: string) => z.number().meta({ description: `${what} over live email sends in the window, 0 to 1 (0 with no sends)` });

export const reputationView = z
  .object({
    state,
    sends: z.number().int().meta({ description: 'Live email sends the provider accepted in the window' }),
    bounces: z.number().int().meta({ description: 'Hard (permanent) bounces recorded in the window' }),
    complaints: z.number().int().meta({ description: 'Complaints recorded in the window' }),
    bounce_rate: rate('Hard bounces'),
    complaint_rate: rate('Complaints'),
    from_hour: z.string().meta({ description: 'First UTC hour of the window (YYYY-MM-DDTHH): 7 days back, or the hour after a staff lift' }),
    to_hour: z.string().meta({ description: 'Last UTC hour of the window, the current one' }),
    window_hours: z.number().int(),
    min_sends: z.number().int().meta({ description: 'Fewer sends in the window than this are never judged' }),
    warn_bounce_rate: z.number(),
    warn_complaint_rate: z.number(),
    pause_bounce_rate: z.number(),
    pause_complaint_rate: z.number(),
  })
  .strict()
  .meta({ description: 'The account\'s sending reputation over a rolling window, as SES computes it (extension, docs/api-decisions.md)' });

export const reputationBoardEntry = z
  .object({
    account_id: z.string(),
    state,
    sends: z.number().int(),
    bounces: z.number().int(),
    complaints: z.number().int(),
    bounce_rate: z.number(),
    complaint_rate: z.number(),
    judged_at: z.string().meta({ description: 'When the window was last judged (at a hard bounce or complaint, or a lift)' }),
  })
  .strict();

export const reputationLifted = z
  .object({ account_id: z.string(), state: z.literal('ok'), window_from_hour: z.string().meta({ description: 'The window restarts at this UTC hour' }) })
  .strict();
