// The suppression list: recipients that must not be mailed on a channel. Recipients are
// normalized here, once, before anything is stored or looked up.
import type { Channel } from '../../accounts/schemas';
import type { Store } from '../../db/store';
import { isValidAddress, normalizeAddress } from '../../formats/address';
import { InvalidRequestError, NotFoundError } from '../../errors';
import { mapPage, pageRequest, type Page } from '../../pagination';
import type { Clock } from '../../ports/clock';
import { SuppressionRepository, toSuppressionView, type SuppressionEntry, type SuppressionItem } from './repository';
import {
  MAX_IMPORT_ENTRIES,
  type CreateSuppressionBody,
  type ImportResult,
  type ImportSuppressionsBody,
  type RemoveSuppressionQuery,
  type SuppressionState,
  type SuppressionView,
} from './schemas';

/** Email addresses are trimmed and lower-cased; other channels' recipients are trimmed. */
export function normalizeRecipient(channel: Channel, recipient: string): string {
  return channel === 'email' ? normalizeAddress(recipient) : recipient.trim();
}

/** Adds or refreshes a suppression (manual add, import, hard bounce, complaint). */
export async function suppress(
  deps: { store: Store; clock: Clock },
  accountId: string,
  entry: { channel: Channel; recipient: string; state?: SuppressionState; reason: string },
): Promise<SuppressionItem> {
  return new SuppressionRepository(deps.store).upsert(
    accountId,
    { channel: entry.channel, recipient: normalizeRecipient(entry.channel, entry.recipient), state: entry.state ?? 'suppressed', reason: entry.reason },
    deps.clock.now().toISOString(),
  );
}

export async function findSuppression(store: Store, accountId: string, channel: Channel, recipient: string): Promise<SuppressionItem | undefined> {
  return new SuppressionRepository(store).get(accountId, channel, normalizeRecipient(channel, recipient));
}

/**
 * Which of many recipients are suppressed, in one batched read: consistent unless `consistent`
 * is false, which only acceptance asks for (the send worker reads again, consistently, before
 * anything is sent: docs/api-decisions.md, "the acceptance reads").
 */
export async function findSuppressed(store: Store, accountId: string, channel: Channel, recipients: readonly string[], options: { consistent?: boolean } = {}): Promise<Set<string>> {
  return new SuppressionRepository(store).storedAmong(
    accountId,
    channel,
    recipients.map((r) => normalizeRecipient(channel, r)),
    options.consistent ?? true,
  );
}

/** A suppression lookup of recipients read beforehand: undefined for a recipient it was not asked about. */
export type SuppressionLookup = (accountId: string, channel: Channel, recipient: string) => boolean | undefined;

/** Reads which of many recipients (of any accounts and channels) are suppressed: one batched read per account and channel. */
export async function readSuppressionsOf(store: Store, recipients: ReadonlyArray<{ account_id: string; channel: Channel; recipient: string }>): Promise<SuppressionLookup> {
  const key = (accountId: string, channel: Channel, normalized: string) => `${accountId}\u0000${channel}\u0000${normalized}`;
  const groups = new Map<string, { accountId: string; channel: Channel; recipients: string[] }>();
  for (const r of recipients) {
    const group = groups.get(`${r.account_id}\u0000${r.channel}`) ?? { accountId: r.account_id, channel: r.channel, recipients: [] };
    group.recipients.push(r.recipient);
    groups.set(`${r.account_id}\u0000${r.channel}`, group);
  }
  const asked = new Set<string>();
  const found = new Set<string>();
  for (const g of groups.values()) {
    for (const r of g.recipients) asked.add(key(g.accountId, g.channel, normalizeRecipient(g.channel, r)));
    for (const r of await findSuppressed(store, g.accountId, g.channel, g.recipients)) found.add(key(g.accountId, g.channel, r));
  }
  return (accountId, channel, recipient) => {
    const k = key(accountId, channel, normalizeRecipient(channel, recipient));
    return asked.has(k) ? found.has(k) : undefined;
  };
}

// ---- HTTP use cases: list, add, remove, import -------------------------------------------------

/** Recorded in docs/api-decisions.md. */
export const MANUAL_REASON = 'manual';
export const IMPORT_REASON = 'import';
export { MAX_IMPORT_ENTRIES };

interface SuppressionDeps {
  store: Store;
  clock: Clock;
}

export async function listSuppressions(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  page: { channel?: Channel; limit: number; cursor?: string },
): Promise<Page<SuppressionView>> {
  const out = await new SuppressionRepository(deps.store).list(accountId, page.channel, pageRequest(deps, { accountId, collection: 'suppressions', filters: { channel: page.channel } }, page));
  return mapPage(out, toSuppressionView);
}

/** Manual add; re-adding the same recipient refreshes its reason, state and updated_at. */
export async function addSuppression(deps: SuppressionDeps, accountId: string, body: CreateSuppressionBody): Promise<SuppressionView> {
  const item = await suppress(deps, accountId, { channel: body.channel, recipient: body.recipient, reason: body.reason ?? MANUAL_REASON });
  return toSuppressionView(item);
}

export async function removeSuppression(deps: Pick<SuppressionDeps, 'store'>, accountId: string, query: RemoveSuppressionQuery): Promise<void> {
  const removed = await new SuppressionRepository(deps.store).remove(accountId, query.channel, normalizeRecipient(query.channel, query.recipient));
  if (!removed) throw new NotFoundError('suppression');
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
  const latest = new Map<string, SuppressionEntry>();
  for (const entry of body.entries) {
    const recipient = normalizeRecipient(body.channel, entry.email);
    if (!isUsableRecipient(body.channel, recipient)) continue;
    latest.set(recipient, { channel: body.channel, recipient, state: entry.state ?? 'suppressed', reason: entry.reason || IMPORT_REASON });
  }
  await new SuppressionRepository(deps.store).putMany(accountId, [...latest.values()], deps.clock.now().toISOString());
  return { imported: latest.size, skipped: body.entries.length - latest.size };
}
