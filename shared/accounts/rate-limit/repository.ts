// A rate-limit subject's admission log in the store (see shared/accounts/rate-limit/service.ts): one item
// holding the times of the subject's latest `limit` admissions, oldest first, as the attributes
// t0 … t{limit-1} (0 where there was none). It expires once its newest admission has left the
// window, so an idle subject leaves nothing behind.
import { keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';

export interface RateLogItem extends ItemKey {
  entity: 'rate_log';
  /** `t0` (oldest) … `t{limit-1}` (newest): epoch milliseconds of the latest admissions. */
  [time: `t${number}`]: number;
  expires_at: number;
}

/** Longer limits would make the item and its update expression grow; none of ours comes close. */
const MAX_LIMIT = 100;

const times = (item: Partial<RateLogItem>, limit: number): number[] =>
  Array.from({ length: limit }, (_, i) => Number(item[`t${i}`] ?? 0));

export class RateLogRepository {
  constructor(private readonly store: Store) {}

  /**
   * Admits `now` when the log's oldest entry is at or before `cutoff` (fewer than `limit`
   * admissions are newer): one conditional UpdateItem that shifts the log by one and writes `now`
   * last. DynamoDB evaluates every SET against the item as it was before the update, so the shift
   * is one atomic step. The log after the admission, oldest first; undefined when refused.
   */
  async append(subject: string, limit: number, change: { now: number; cutoff: number; expiresAt: number }): Promise<number[] | undefined> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new Error(`rate limit ${limit} is outside 1..${MAX_LIMIT}`);
    const names: Record<string, string> = { '#entity': 'entity', '#expires': 'expires_at' };
    const shifts: string[] = [];
    for (let i = 0; i < limit; i++) {
      names[`#t${i}`] = `t${i}`;
      shifts.push(i < limit - 1 ? `#t${i} = if_not_exists(#t${i + 1}, :zero)` : `#t${i} = :now`);
    }
    let after: Partial<RateLogItem> = {};
    const admitted = await wrote(
      this.store
        .update<RateLogItem>(keys.rateLog(subject), {
          expression: `SET ${shifts.join(', ')}, #entity = :entity, #expires = :expires`,
          condition: 'attribute_not_exists(#t0) OR #t0 <= :cutoff',
          names,
          values: { ':zero': 0, ':now': change.now, ':cutoff': change.cutoff, ':entity': 'rate_log', ':expires': change.expiresAt },
        })
        .then((item) => void (after = item)),
    );
    return admitted ? times(after, limit) : undefined;
  }

  /** The oldest admission the log holds; undefined when there is no log. */
  async oldest(subject: string): Promise<number | undefined> {
    const item = await this.store.get<RateLogItem>(keys.rateLog(subject));
    return item ? times(item, 1)[0] : undefined;
  }
}
