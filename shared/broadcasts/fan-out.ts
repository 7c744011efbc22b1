// One fanout job: the recipients of one chunk become sends through acceptSends, so every rule of a
// single send (sender, sandbox, suppression, idempotency, scheduling) holds per recipient; a
// template broadcast renders its pinned template version per recipient with their own data. Each
// recipient's idempotency key is derived from the broadcast, so a re-run sends nothing twice; the
// chunk's counts are added in the same conditional write that marks the chunk done, so a re-run
// does not count twice either.
import { getAccount } from '../accounts/service';
import { sha256Hex } from '../crypto';
import type { SendRequest } from '../messages/schemas';
import { RetryableError } from '../errors';
import { acceptSends, type SendDeps } from '../messages/send';
import type { FanOutJob } from './messages';
import type { BroadcastItem, RecipientChunkItem } from './model';
import { pinnedRenderer } from '../templates/render';
import { BroadcastRepository } from './repository';

/** Items per acceptSends call: bounds the parallel claims and one call's batched writes. */
export const SENDS_PER_CALL = 100;
const MAX_IDEMPOTENCY_KEY = 256;

export interface Tally {
  sent: number;
  skipped: number;
  failed: number;
}

export type FanOutResult =
  | { kind: 'counted'; tally: Tally; failures: Record<string, number> }
  | { kind: 'already_counted' }
  /** The broadcast or chunk is gone: nothing to do, and a retry would not change that. */
  | { kind: 'missing' };

/** bulk_<broadcast id>_<recipient>; a digest stands in for an address too long to fit the key. */
export function recipientIdempotencyKey(broadcastId: string, recipient: string): string {
  const key = `bulk_${broadcastId}_${recipient}`;
  return key.length <= MAX_IDEMPOTENCY_KEY ? key : `bulk_${broadcastId}_sha256_${sha256Hex(recipient)}`;
}

/**
 * The send of one recipient; built only from stored fields, so every re-run builds the same body.
 * A template broadcast sends its template with the recipient's `data` as template_vars.
 */
function sendRequestFor(broadcast: BroadcastItem, recipient: string, data: Record<string, unknown> | null | undefined): SendRequest {
  const content: Pick<SendRequest, 'payload' | 'template_id' | 'template_vars'> = broadcast.template
    ? { template_id: broadcast.template.id, template_vars: data ?? {} }
    : {
        payload: {
          subject: broadcast.subject,
          ...(broadcast.body_html !== undefined ? { body_html: broadcast.body_html } : {}),
          ...(broadcast.body_text !== undefined ? { body_text: broadcast.body_text } : {}),
        },
      };
  return {
    channel: 'email',
    idempotency_key: recipientIdempotencyKey(broadcast.id, recipient),
    message_type: broadcast.message_type,
    destination: { email: recipient },
    ...content,
    metadata: { from_email: broadcast.from_email },
    ...(broadcast.scheduled_at ? { scheduled_at: broadcast.scheduled_at } : {}),
  };
}

/** Sends the chunk's recipients in calls of SENDS_PER_CALL and counts the outcomes. */
async function sendChunk(deps: SendDeps, broadcast: BroadcastItem, chunk: RecipientChunkItem): Promise<{ tally: Tally; failures: Record<string, number> }> {
  const { recipients } = chunk;
  const tally: Tally = { sent: 0, skipped: 0, failed: 0 };
  const failures: Record<string, number> = {};
  const account = await getAccount(deps.store, broadcast.account_id);
  if (!account || account.status === 'suspended') {
    // Nothing more goes out for an account that is gone or suspended; its recipients count as failed.
    failures[account ? 'account_suspended' : 'unknown_account'] = recipients.length;
    return { tally: { ...tally, failed: recipients.length }, failures };
  }
  const sender = { accountId: broadcast.account_id, keyId: broadcast.key_id, testMode: broadcast.test_mode };
  // The version pinned at creation, not the template's current one.
  const render = broadcast.template ? await pinnedRenderer(deps.store, broadcast.account_id, broadcast.template) : undefined;
  for (let i = 0; i < recipients.length; i += SENDS_PER_CALL) {
    const requests = recipients.slice(i, i + SENDS_PER_CALL).map((r, j) => sendRequestFor(broadcast, r, chunk.data?.[i + j]));
    const outcomes = await acceptSends(deps, sender, requests, { batch: true, render, broadcastId: broadcast.id });
    // A run of this chunk that died moments ago still holds some keys: count the chunk once they lapse.
    if (outcomes.some((o) => o.kind === 'rejected' && o.error.code === 'idempotency_key_in_use')) {
      throw new RetryableError(`broadcast ${broadcast.id}: an earlier run of this chunk still holds some sends; retried later`);
    }
    for (const outcome of outcomes) {
      if (outcome.kind === 'accepted') tally.sent++;
      // The spec's bulk rule: suppressed and unsubscribed recipients are skipped, not failed.
      else if (outcome.kind === 'suppressed') tally.skipped++;
      else {
        // Refused for this recipient alone, e.g. missing_variable when its data lacks a required
        // template variable: failed, with the code in the chunk's failures.
        tally.failed++;
        failures[outcome.error.code] = (failures[outcome.error.code] ?? 0) + 1;
      }
    }
  }
  return { tally, failures };
}

/**
 * sending → sent once every chunk is counted; → failed when no recipient was accepted and at least
 * one failed. A broadcast whose recipients were all skipped is `sent`: nothing went wrong.
 */
async function finishIfComplete(deps: SendDeps, broadcasts: BroadcastRepository, broadcast: BroadcastItem): Promise<void> {
  if (broadcast.status !== 'sending' || (broadcast.chunks_done?.size ?? 0) < broadcast.chunk_count) return;
  const status = broadcast.sent_count === 0 && broadcast.failed_count > 0 ? 'failed' : 'sent';
  // False when a concurrent chunk finished it first: nothing left to do.
  await broadcasts.finish(broadcast.account_id, broadcast.id, status, deps.clock.now().toISOString());
}

export async function fanOutChunk(deps: SendDeps, job: FanOutJob): Promise<FanOutResult> {
  const broadcasts = new BroadcastRepository(deps.store);
  const broadcast = await broadcasts.get(job.account_id, job.broadcast_id);
  if (!broadcast) return { kind: 'missing' };
  if (broadcast.chunks_done?.has(job.chunk)) {
    // Counted by an earlier run that may have stopped before finishing the broadcast.
    await finishIfComplete(deps, broadcasts, broadcast);
    return { kind: 'already_counted' };
  }
  const chunk = await broadcasts.getChunk(job.broadcast_id, job.chunk);
  if (!chunk) return { kind: 'missing' };

  const { tally, failures } = await sendChunk(deps, broadcast, chunk);
  const updated = await broadcasts.countChunk(job.account_id, job.broadcast_id, job.chunk, tally, deps.clock.now().toISOString());
  if (!updated) {
    // A concurrent run of the same job counted it first (or the broadcast was removed).
    const current = await broadcasts.get(job.account_id, job.broadcast_id);
    if (current) await finishIfComplete(deps, broadcasts, current);
    return { kind: 'already_counted' };
  }
  await finishIfComplete(deps, broadcasts, updated);
  return { kind: 'counted', tally, failures };
}
