// Counter adds (ADD of numbers to one item, with SET of the item's identity), written now or kept
// for the end of a consumer's batch. A batch's adds to one item become one write of their sums:
// the send worker's reputation sends, once per batch and item rather than once per message
// (functions/send/send-message.ts; a broadcast's stats are written with each send, usage at acceptance). ADD is commutative, so summing loses nothing;
// what a tally never does is retry a write (an ADD retried after a lost answer may count twice).
import type { ItemKey } from './keys';
import type { Store } from './store';

/** Numbers added to one item's attributes, and attributes it is given (its entity and identity). */
export interface CounterAdd {
  key: ItemKey;
  add: Record<string, number>;
  set?: Record<string, unknown>;
}

export interface Tally {
  /** Writes the add now, or keeps it for the batch's flush. */
  add(counter: CounterAdd): Promise<void>;
}

/** The one write of a counter add. */
export async function writeCounterAdd(store: Store, counter: CounterAdd): Promise<void> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const part = (prefix: string, entries: Array<[string, unknown]>, clause: (n: string, v: string) => string) =>
    entries.map(([attr, value], i) => {
      names[`#${prefix}${i}`] = attr;
      values[`:${prefix}${i}`] = value;
      return clause(`#${prefix}${i}`, `:${prefix}${i}`);
    });
  const sets = part('s', Object.entries(counter.set ?? {}), (n, v) => `${n} = ${v}`);
  const adds = part('a', Object.entries(counter.add), (n, v) => `${n} ${v}`);
  if (adds.length === 0) return;
  await store.update(counter.key, { expression: `${sets.length > 0 ? `SET ${sets.join(', ')} ` : ''}ADD ${adds.join(', ')}`, names, values });
}

/** Every add written at once (outside a batch). */
export const storeTally = (store: Store): Tally => ({ add: (counter) => writeCounterAdd(store, counter) });

const itemOf = (counter: CounterAdd): string => `${counter.key.pk}\u0000${counter.key.sk}`;

/**
 * A batch's adds, summed per item until `flush` writes each sum once. An attribute set
 * by several adds keeps the last one's value (the batch's latest: a bucket's expiry).
 */
export class BatchTally implements Tally {
  private readonly sums = new Map<string, CounterAdd>();

  add(counter: CounterAdd): Promise<void> {
    const item = itemOf(counter);
    const sum = this.sums.get(item);
    if (!sum) {
      this.sums.set(item, { key: counter.key, add: { ...counter.add }, set: { ...counter.set } });
      return Promise.resolve();
    }
    for (const [attr, n] of Object.entries(counter.add)) sum.add[attr] = (sum.add[attr] ?? 0) + n;
    Object.assign(sum.set!, counter.set);
    return Promise.resolve();
  }

  /**
   * Writes every sum, one write per item, side by side; each sum is written at most once (taken
   * off before its write). Resolves with the sums whose write failed (their counts are lost).
   */
  async flush(store: Store): Promise<Array<{ counter: CounterAdd; error: unknown }>> {
    const due = [...this.sums.values()];
    this.sums.clear();
    const failed: Array<{ counter: CounterAdd; error: unknown }> = [];
    await Promise.all(due.map((counter) => writeCounterAdd(store, counter).catch((error: unknown) => void failed.push({ counter, error }))));
    return failed;
  }
}
