// Wire shapes of the spend-cap routes: PUT's body, DELETE's query, and the Spend cap answer.
import * as z from 'zod';

/** Micro-dollars; at most 10^15 ($1 billion), so sums stay exact in a double. */
export const MAX_LIMIT_MICROS = 1e15;

const limit = (what: string) =>
  z
    .number()
    .int()
    .min(0, 'must not be negative')
    .max(MAX_LIMIT_MICROS)
    .nullable()
    .optional()
    .meta({ description: `${what} in micro-dollars per calendar month (UTC); null clears it, omitted leaves it as it is (null on a new cap)` });

const keyId = z.string().min(1).max(64);

export const putSpendCapBody = z
  .object({
    hard_limit_micros: limit('Sends that would take the period\'s cost past it are refused with 402 spend_cap_exceeded'),
    soft_limit_micros: limit('The first send that takes the period\'s cost to it or past it sends one alert (email and usage.soft_cap_reached)'),
    key_id: keyId.optional().meta({ description: 'A live key of the account: caps what that key spends. Omitted: the account cap' }),
  })
  .strict();
export type PutSpendCapBody = z.infer<typeof putSpendCapBody>;

export const deleteSpendCapQuery = z.object({
  key_id: keyId.optional().meta({ description: 'The key whose cap goes; omitted: the account cap' }),
});

export const spendCapView = z
  .object({
    id: z.string().meta({ description: 'spc_…; stays the same across PUTs of the same cap' }),
    account_id: z.string(),
    key_id: z.string().nullable().meta({ description: 'null for the account cap' }),
    soft_limit_micros: z.number().int().nullable(),
    hard_limit_micros: z.number().int().nullable(),
  })
  .strict();
export type SpendCapView = z.infer<typeof spendCapView>;

export const spendCapListView = z.object({ spend_caps: z.array(spendCapView).meta({ description: 'The account cap (if set) first, then key caps' }) }).strict();
