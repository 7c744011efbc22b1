// Broadcast stats by attribution. A message sent by a broadcast's fan-out carries its broadcast_id;
// each timeline event of a counted type (sent, delivered, bounced, complained, opened, failed) moves
// the broadcast's count for that type once per message, however often the signal comes (duplicate
// SNS deliveries, a second open, a retry after a crash).
//
// The counts live on STAT_SHARDS small shard items of their own (never the broadcast item, which
// holds up to 256 KB of content and is charged by its size), a message's events always on the same
// shard (by a digest of its id). Once per message and type is a marker item created conditionally.
// The store has no transactions, so, as for a static list's member_count (shared/audiences/contacts/members.ts),
// the first write is on the count and records a token naming itself:
//
//   count  marker absent?  →  shard: type +1 & token  →  marker create (holds the token)  →  shard: token dropped
//          marker created by another count → shard: type −1 & token dropped (undo, conditional on the token: once)
//   settle a token whose marker exists: held by the marker → drop it; else → undo it (its marker can never be made now)
//
// Invariant: a type's count = its markers + its pending tokens that no marker holds. So the count is
// exact once no write is in flight, and a crash at any point only leaves tokens: the retry of the
// same signal settles every token of its message and type (the marker exists by then, made by the
// retry or before), and a stats read settles tokens older than TOKEN_STALE_MS (without a marker by
// then, the count died before making it: the consumers that count run at most 30 s).
//
// Writes per counted event: 3 (shard +1 & token, marker, drop token) after 1 read of the marker;
// a duplicate or a second open reads the marker and its shard and writes nothing.
//
// `sent` is counted otherwise (countNewBroadcastEvent): only the send worker records it, and the
// message item holds it (one conditional write stores it once, shared/sending/messages/timeline.ts),
// so its count is added where it is first stored, never for a duplicate, as usage counts a send:
// one add right after the event's write. A crash between the two loses the count (the retry finds
// the event stored) and never counts one twice; a stats read cannot find it again.
import { randomHex, sha256Hex } from '../../crypto/crypto';
import type { Store } from '../../db/store';
import { inParallel } from '../../concurrency';
import type { Clock } from '../../ports/clock';
import { BroadcastStatsRepository, countedTypes, type CountedType, type ShardRef, type StatMarkerItem } from './stats-repository';

export { countedTypes, type CountedType } from './stats-repository';

/**
 * Shards per broadcast. Each counted event writes its shard twice; a broadcast of a million
 * recipients gets its events at hundreds to a few thousand a second, so 16 shards keep each well
 * under one item's ~1,000 writes a second. A stats read gets all 16 (one batch read).
 */
export const STAT_SHARDS = 16;
/** A token this old belongs to a count that died (a consumer runs at most 30 s): a read settles it. */
export const TOKEN_STALE_MS = 60_000;

export interface StatsDeps {
  store: Store;
  clock: Clock;
}

/** The types counted where their event is first stored (countNewBroadcastEvent), not by marker. */
const COUNTED_WHEN_CREATED = new Set<string>(['sent']);

/** What a message says about its broadcast. */
export interface AttributedMessage {
  id: string;
  account_id: string;
  broadcast_id?: string;
}

export type BroadcastCounts = Record<CountedType, number>;

const counted = new Set<string>(countedTypes);
const isCounted = (type: string): type is CountedType => counted.has(type);

export const shardOf = (messageId: string): number => Number.parseInt(sha256Hex(messageId).slice(0, 8), 16) % STAT_SHARDS;

interface Token {
  type: CountedType;
  messageId: string;
  ms: number;
}

/** type|message id|epoch ms|nonce: what a settle needs to find the token's marker and its age. */
const newToken = (type: CountedType, messageId: string, ms: number): string => `${type}|${messageId}|${ms}|${randomHex(4)}`;

function parseToken(token: string): Token | undefined {
  const [type, messageId, ms] = token.split('|');
  if (!type || !isCounted(type) || !messageId || !ms || !/^\d+$/.test(ms)) return undefined;
  return { type, messageId, ms: Number(ms) };
}

const tokensOf = (pending: Set<string> | undefined, type: CountedType, messageId: string): string[] =>
  [...(pending ?? [])].filter((t) => t.startsWith(`${type}|${messageId}|`));

/** Settles tokens of one message and type whose marker exists: the token the marker holds stands, every other is taken back. */
async function settleAgainst(repo: BroadcastStatsRepository, ref: ShardRef, type: CountedType, held: string, tokens: readonly string[]): Promise<void> {
  for (const token of tokens) {
    if (token === held) await repo.end(ref, token);
    else await repo.undo(ref, type, token);
  }
}

/**
 * Counts one timeline event in its message's broadcast: nothing for a message no broadcast sent or
 * a type the stats do not count. Safe to repeat and to run concurrently for the same signal.
 */
export async function countBroadcastEvent(deps: StatsDeps, message: AttributedMessage, type: string): Promise<void> {
  if (!message.broadcast_id || !isCounted(type) || COUNTED_WHEN_CREATED.has(type)) return;
  const repo = new BroadcastStatsRepository(deps.store);
  const ref: ShardRef = { accountId: message.account_id, broadcastId: message.broadcast_id, shard: shardOf(message.id) };

  const existing = await repo.marker(message.id, type);
  if (existing) {
    // Counted already; a count that died half-way (this signal's own earlier attempt, perhaps) may
    // have left tokens, which this repeat settles.
    const shard = await repo.getShard(ref);
    await settleAgainst(repo, ref, type, existing.token, tokensOf(shard?.pending, type, message.id));
    return;
  }
  const now = deps.clock.now();
  const token = newToken(type, message.id, now.getTime());
  const shard = await repo.begin(ref, type, token);
  const marker: Omit<StatMarkerItem, 'pk' | 'sk' | 'entity'> = {
    message_id: message.id,
    type,
    account_id: message.account_id,
    broadcast_id: message.broadcast_id,
    token,
    created_at: now.toISOString(),
  };
  if (!(await repo.createMarker(marker))) {
    // Another count of this message and type made the marker first: this one is taken back.
    await repo.undo(ref, type, token);
    return;
  }
  // Ours: every other token of this message and type (an attempt that died before its marker, or a
  // concurrent duplicate about to find our marker) is taken back, and ours stands.
  await settleAgainst(repo, ref, type, token, [...tokensOf(shard.pending, type, message.id).filter((t) => t !== token), token]);
}

/** Counts an event stored for the first time, for the types counted so (`sent`): one add to the shard of its message. */
export async function countNewBroadcastEvent(deps: StatsDeps, message: AttributedMessage, type: string): Promise<void> {
  if (!message.broadcast_id || !isCounted(type) || !COUNTED_WHEN_CREATED.has(type)) return;
  const repo = new BroadcastStatsRepository(deps.store);
  const ref: ShardRef = { accountId: message.account_id, broadcastId: message.broadcast_id, shard: shardOf(message.id) };
  await repo.addCount(ref, type, 1);
}

const zero = (): BroadcastCounts => ({ sent: 0, delivered: 0, bounced: 0, complained: 0, opened: 0, failed: 0 });

/**
 * The broadcast's counts, summed over its shards, after settling the tokens older than
 * TOKEN_STALE_MS (counts whose write died and whose signal never came again).
 */
export async function readBroadcastCounts(deps: StatsDeps, accountId: string, broadcastId: string): Promise<BroadcastCounts> {
  const repo = new BroadcastStatsRepository(deps.store);
  let shards = await repo.shards(accountId, broadcastId, STAT_SHARDS);
  const staleBefore = deps.clock.now().getTime() - TOKEN_STALE_MS;
  const stale = shards.flatMap((s) =>
    [...(s.pending ?? [])].flatMap((token) => {
      const parsed = parseToken(token);
      return parsed && parsed.ms < staleBefore ? [{ token, ...parsed }] : [];
    }),
  );
  if (stale.length > 0) {
    await inParallel(stale, 4, async ({ token, type, messageId }) => {
      const ref: ShardRef = { accountId, broadcastId, shard: shardOf(messageId) };
      const marker = await repo.marker(messageId, type);
      // No marker: the count died before making it, and its token is taken back (a later retry of
      // the signal counts afresh). A marker holding another token: this one was a duplicate.
      await settleAgainst(repo, ref, type, marker?.token ?? '', [token]);
    });
    shards = await repo.shards(accountId, broadcastId, STAT_SHARDS);
  }
  const counts = zero();
  for (const shard of shards) for (const type of countedTypes) counts[type] += shard[type] ?? 0;
  for (const type of countedTypes) counts[type] = Math.max(0, counts[type]);
  return counts;
}
