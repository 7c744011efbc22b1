// The wire side of every paginated list, as zod: what a list route takes and answers.
import * as zod from 'zod';

/** `limit` and `cursor`, as every list takes them (shared/pagination). */
export const pageQuery = zod
  .object({
    limit: zod.string().optional().meta({ description: 'Items per page, 1 to 100 (default 50; larger values are capped, others ignored)' }),
    cursor: zod.string().optional().meta({ description: 'The next_cursor of the page before; bound to the account, the list and its filters' }),
  })
  .strict();

/** A list page: `{<name>: [...], next_cursor}`. */
export const listOf = <T extends zod.ZodType>(name: string, item: T) =>
  zod.object({ [name]: zod.array(item), next_cursor: zod.string().nullable().meta({ description: 'Pass as cursor for the next page; null on the last page' }) }).strict();
