// What the contacts area's repositories share: batch reads and writes in groups, and the one-value
// sets their ADD and DELETE expressions take.
import { inParallel } from '../../concurrency';

/** Batch reads or writes of one call in flight at once. */
const PARALLEL_BATCHES = 4;

/** A DynamoDB string set of one value (ADD/DELETE on a set attribute). */
export const one = (value: string): Set<string> => new Set([value]);

function groupsOf<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** `work` over `items` in groups of `size`, PARALLEL_BATCHES groups in flight at once; results in input order. */
export function inBatches<T, R>(items: readonly T[], size: number, work: (group: T[]) => Promise<R>): Promise<R[]> {
  return inParallel(groupsOf(items, size), PARALLEL_BATCHES, work);
}
