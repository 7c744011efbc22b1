import type { z } from 'zod';
import { InvalidRequestError } from '../errors';

/** Parses with a zod schema; the 400 message names the first offending field. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: 'body' | 'query' = 'body'): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = [where, ...(issue?.path ?? []).map(String)].join('.');
  const detail = value === undefined && where === 'body' ? 'a JSON body is required' : (issue?.message ?? 'invalid value');
  throw new InvalidRequestError(`${field}: ${detail}`, { cause: result.error });
}
