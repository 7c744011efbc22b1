import { encodeTime, monotonicFactory } from 'ulid';
import type { Clock } from './clock';

export type IdPrefix = 'acct' | 'key' | 'msg' | 'evt' | 'sched' | 'req' | 'dom' | 'trc' | 'whk' | 'dlv' | 'bcast' | 'tmpl' | 'snip' | 'ctc' | 'lst' | 'upl' | 'imp' | 'frm' | 'inr' | 'inb' | 'mbx' | 'lbl' | 'spc' | 'usr';

export interface Ids {
  next(prefix: IdPrefix): string;
}

/**
 * Type prefix plus a ULID whose time part comes from the clock, so ids sort like created_at and
 * ties inside one millisecond still sort in creation order within a process.
 */
export function ulidIds(clock: Clock): Ids {
  const ulid = monotonicFactory();
  return { next: (prefix) => `${prefix}_${ulid(clock.now().getTime()).toLowerCase()}` };
}

export function isId(value: string, prefix: IdPrefix): boolean {
  return new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`).test(value);
}

/** The smallest and largest ids of a prefix created in one millisecond: bounds for time ranges. */
export function idBounds(prefix: IdPrefix, ms: number): { lowest: string; highest: string } {
  // ULID time covers 1970 to the year 10889; instants outside clamp to its ends.
  const time = encodeTime(Math.min(Math.max(ms, 0), 2 ** 48 - 1), 10).toLowerCase();
  return { lowest: `${prefix}_${time}${'0'.repeat(16)}`, highest: `${prefix}_${time}${'z'.repeat(16)}` };
}
