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

/** A new memo (one consumer batch's, or one job's): a rejected load is not kept, so the next caller reads again. */
export function batchMemo(): PerBatch {
  const memo = new Map<string, Promise<unknown>>();
  return <T>(key: string, load: () => Promise<T>): Promise<T> => {
    const known = memo.get(key);
    if (known) return known as Promise<T>;
    const loaded = load();
    memo.set(key, loaded);
    loaded.catch(() => memo.delete(key));
    return loaded;
  };
}
