// Spend caps: the account's cap and per-key caps on the period's cost (shared/billing/usage/cost.ts).
// The enforcement at acceptance is ./reserve.ts; the alert ./alert.ts.
import { ApiKeyRepository } from '../../accounts/api-keys/repository';
import type { Store } from '../../db/store';
import { InvalidRequestError, NotFoundError } from '../../errors';
import { isId, type Ids } from '../../ports/ids';
import type { Clock } from '../../ports/clock';
import { SpendCapRepository, type SpendCapItem } from './repository';
import type { PutSpendCapBody, SpendCapView } from './schemas';

export const toSpendCapView = (item: SpendCapItem): SpendCapView => ({
  id: item.id,
  account_id: item.account_id,
  key_id: item.key_id,
  soft_limit_micros: item.soft_limit_micros ?? null,
  hard_limit_micros: item.hard_limit_micros ?? null,
});

/** A key id names a cap only when it is a live, unrevoked key of the account; another account's is 404. */
async function cappableKey(store: Store, accountId: string, keyId: string): Promise<string> {
  const key = isId(keyId, 'key') ? await new ApiKeyRepository(store).get(accountId, keyId) : undefined;
  if (!key || key.account_id !== accountId || key.is_revoked) throw new NotFoundError('api key');
  if (key.test_mode) throw new InvalidRequestError('body.key_id: a test-mode key sends nothing billable and cannot be capped');
  return key.id;
}

export async function putSpendCap(deps: { store: Store; clock: Clock; ids: Ids }, accountId: string, body: PutSpendCapBody): Promise<SpendCapView> {
  const keyId = body.key_id === undefined ? null : await cappableKey(deps.store, accountId, body.key_id);
  const item = await new SpendCapRepository(deps.store).upsert(accountId, {
    id: deps.ids.next('spc'),
    keyId,
    soft: body.soft_limit_micros,
    hard: body.hard_limit_micros,
    now: deps.clock.now().toISOString(),
  });
  return toSpendCapView(item);
}

export async function listSpendCaps(deps: { store: Store }, accountId: string): Promise<{ spend_caps: SpendCapView[] }> {
  const items = await new SpendCapRepository(deps.store).list(accountId);
  // SPENDCAP#ACCOUNT sorts before SPENDCAP#KEY#…: the account cap comes first.
  return { spend_caps: items.map(toSpendCapView) };
}

/** 404 when no such cap is set (another account's key names none of this account's caps). */
export async function deleteSpendCap(deps: { store: Store }, accountId: string, keyId: string | undefined): Promise<void> {
  if (keyId !== undefined && !isId(keyId, 'key')) throw new NotFoundError('spend cap');
  await new SpendCapRepository(deps.store).remove(accountId, keyId ?? null);
}
