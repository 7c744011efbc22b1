/** Runs `work` over `items` with at most `limit` in flight; results in input order. */
export async function inParallel<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  });
  await Promise.all(runners);
  return out;
}

/**
 * Memoizes a read for the records of one consumer batch (shared/runtime/consume.ts Delivery.perBatch):
 * the first load of a key is what later records of the batch get.
 */
export type PerBatch = <T>(key: string, load: () => Promise<T>) => Promise<T>;
