// The suppression list: recipients that must not be mailed on a channel. One item per
// (account, channel, normalized recipient), so checks are single reads and writes are upserts.
import type { Channel } from '../accounts/service';
import { keys, table } from '../db/keys';
import type { Store } from '../db/store';
import { isValidAddress, normalizeAddress } from '../email/address';
import { ConditionFailedError, InvalidRequestError, NotFoundError } from '../errors';
import { queryPage, type Page } from '../pagination';
import type { Clock } from '../ports/clock';
import type { CreateSuppressionBody, ImportResult, ImportSuppressionsBody, RemoveSuppressionQuery } from './schemas';

export type SuppressionState = 'suppressed' | 'unsubscribed';

export interface SuppressionItem {
  pk: string;
  sk: string;
  entity: 'suppression';
  account_id: string;
  channel: Channel;
  recipient: string;
  state: SuppressionState;
  reason: string;
  created_at: string;
  updated_at: string;
  gsi2pk: string;
  gsi2sk: string;
}

export interface SuppressionView {
  channel: Channel;
  recipient: string;
  state: SuppressionState;
  reason: string;
  updated_at: string;
}

export const toSuppressionView = (item: SuppressionItem): SuppressionView => ({
  channel: item.channel,
  recipient: item.recipient,
  state: item.state,
  reason: item.reason,
  updated_at: item.updated_at,
});

/** Email addresses are trimmed and lower-cased; other channels' recipients are trimmed. */
export function normalizeRecipient(channel: Channel, recipient: string): string {
  return channel === 'email' ? normalizeAddress(recipient) : recipient.trim();
}


export function suppressionItem(
  accountId: string,
  entry: { channel: Channel; recipient: string; state: SuppressionState; reason: string },
  now: string,
): SuppressionItem {
  const recipient = normalizeRecipient(entry.channel, entry.recipient);
  return {
    ...keys.suppression(accountId, entry.channel, recipient),
    entity: 'suppression',
    account_id: accountId,
    channel: entry.channel,
    recipient,
    state: entry.state,
    reason: entry.reason,
    created_at: now,
    updated_at: now,
    // by-filter index: the account's suppressions, most recently changed first.
    gsi2pk: keys.suppressionListPartition(accountId),
    gsi2sk: `${now}#${entry.channel}#${recipient}`,
  };
}

/** Adds or refreshes a suppression (manual add, import, hard bounce, complaint). */
export async function suppress(
  deps: { store: Store; clock: Clock },
  accountId: string,
  entry: { channel: Channel; recipient: string; state?: SuppressionState; reason: string },
): Promise<SuppressionItem> {
  const item = suppressionItem(accountId, { ...entry, state: entry.state ?? 'suppressed' }, deps.clock.now().toISOString());
  // An upsert that keeps when the recipient was first suppressed.
  return deps.store.update<SuppressionItem>(keys.suppression(accountId, item.channel, item.recipient), {
    expression:
      'SET entity = :entity, account_id = :account, channel = :channel, recipient = :recipient, #state = :state, reason = :reason, updated_at = :now, created_at = if_not_exists(created_at, :now), gsi2pk = :gpk, gsi2sk = :gsk',
    names: { '#state': 'state' },
    values: {
      ':entity': item.entity,
      ':account': item.account_id,
      ':channel': item.channel,
      ':recipient': item.recipient,
      ':state': item.state,
      ':reason': item.reason,
      ':now': item.updated_at,
      ':gpk': item.gsi2pk,
      ':gsk': item.gsi2sk,
    },
  });
}

export async function findSuppression(store: Store, accountId: string, channel: Channel, recipient: string): Promise<SuppressionItem | undefined> {
  return store.get<SuppressionItem>(keys.suppression(accountId, channel, normalizeRecipient(channel, recipient)));
}

/** Which of many recipients are suppressed, in one batched read. */
export async function findSuppressed(store: Store, accountId: string, channel: Channel, recipients: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(recipients.map((r) => normalizeRecipient(channel, r)))];
  const found = await store.batchGet<SuppressionItem>(unique.map((r) => keys.suppression(accountId, channel, r)));
  return new Set(found.map((i) => i.recipient));
}

// ---- HTTP use cases: list, add, remove, import -------------------------------------------------

/** Recorded in docs/api-decisions.md. */
export const MANUAL_REASON = 'manual';
export const IMPORT_REASON = 'import';
export const MAX_IMPORT_ENTRIES = 10_000;

interface SuppressionDeps {
  store: Store;
  clock: Clock;
}

export async function listSuppressions(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  page: { channel?: Channel; limit: number; cursor?: string },
): Promise<Page<SuppressionView>> {
  const out = await queryPage(
    deps.store,
    {
      index: table.indexes.byFilter.name,
      keyCondition: 'gsi2pk = :pk',
      values: { ':pk': keys.suppressionListPartition(accountId), ...(page.channel ? { ':channel': page.channel } : {}) },
      ...(page.channel ? { filter: '#channel = :channel', names: { '#channel': 'channel' } } : {}),
    },
    {
      secret: deps.cursorSecret,
      scope: { accountId, collection: 'suppressions', filters: { channel: page.channel } },
      limit: page.limit,
      cursor: page.cursor,
    },
  );
  return { items: out.items.map((i) => toSuppressionView(i as unknown as SuppressionItem)), nextCursor: out.nextCursor };
}

/** Manual add; re-adding the same recipient refreshes its reason, state and updated_at. */
export async function addSuppression(deps: SuppressionDeps, accountId: string, body: CreateSuppressionBody): Promise<SuppressionView> {
  const item = await suppress(deps, accountId, { channel: body.channel, recipient: body.recipient, reason: body.reason ?? MANUAL_REASON });
  return toSuppressionView(item);
}

export async function removeSuppression(deps: Pick<SuppressionDeps, 'store'>, accountId: string, query: RemoveSuppressionQuery): Promise<void> {
  try {
    await deps.store.delete(keys.suppression(accountId, query.channel, normalizeRecipient(query.channel, query.recipient)), {
      expression: 'attribute_exists(pk)',
    });
  } catch (error) {
    if (error instanceof ConditionFailedError) throw new NotFoundError('suppression');
    throw error;
  }
}

/**
 * 422, not 400, for an oversized import (the spec's rule). Takes the raw body so the check can run
 * before a huge entry list is validated item by item.
 */
export function checkImportSize(body: unknown): void {
  const entries = (body as { entries?: unknown } | null | undefined)?.entries;
  if (Array.isArray(entries) && entries.length > MAX_IMPORT_ENTRIES) {
    throw new InvalidRequestError(`body.entries: at most ${MAX_IMPORT_ENTRIES} entries per import (got ${entries.length})`, { status: 422 });
  }
}

function isUsableRecipient(channel: Channel, normalized: string): boolean {
  return channel === 'email' ? isValidAddress(normalized) : normalized.length > 0;
}

/**
 * Upserts many suppressions in batched writes. Entries are applied in order, so for a recipient
 * listed twice the LAST occurrence wins (its reason and state), as if each row were added one by one;
 * the earlier occurrences count as skipped, as do unusable addresses, so imported + skipped is
 * always the number of entries sent. A repeat import rewrites the same items and reports the same
 * counts. De-duplicating is also required by the store: one batch write may not name a key twice.
 */
export async function importSuppressions(deps: SuppressionDeps, accountId: string, body: ImportSuppressionsBody): Promise<ImportResult> {
  checkImportSize(body);
  const now = deps.clock.now().toISOString();
  const latest = new Map<string, SuppressionItem>();
  for (const entry of body.entries) {
    const recipient = normalizeRecipient(body.channel, entry.email);
    if (!isUsableRecipient(body.channel, recipient)) continue;
    const item = suppressionItem(
      accountId,
      { channel: body.channel, recipient, state: entry.state ?? 'suppressed', reason: entry.reason || IMPORT_REASON },
      now,
    );
    latest.set(recipient, item);
  }
  await deps.store.batchPut([...latest.values()]);
  return { imported: latest.size, skipped: body.entries.length - latest.size };
}
