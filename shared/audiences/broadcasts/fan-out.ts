// One fanout job: the recipients of one chunk become sends through acceptSends, so every rule of a
// single send (sender, sandbox, suppression, idempotency, scheduling) holds per recipient; a
// template broadcast renders its pinned template version per recipient with their own data. Each
// recipient's idempotency key is derived from the broadcast, so a re-run sends nothing twice; the
// chunk's counts are added in the same conditional write that marks the chunk done, so a re-run
// does not count twice either.
import { getAccount, type AccountItem } from '../../accounts/service';
import { inParallel } from '../../concurrency';
import { sha256Hex } from '../../crypto/crypto';
import type { SendRequest } from '../../sending/messages/schemas';
import { sendHold } from '../../sending/messages/account-hold';
import { acceptSends, type SendDeps } from '../../sending/messages/send';
import type { FanOutJob } from './messages';
import type { BroadcastContent, BroadcastItem, RecipientChunkItem } from './model';
import { pinnedRenderer } from '../../sending/templates/render';
import { BroadcastRepository } from './repository';

/** Items per acceptSends call: bounds the parallel claims and one call's batched writes. */
export const SENDS_PER_CALL = 100;
/**
 * acceptSends calls of a chunk under way at once: each holds at most the send path's claim
 * concurrency of conditional writes in flight, so a chunk keeps several times that.
 */
const CALLS_IN_FLIGHT = 5;
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
  | { kind: 'missing' }
  /** The broadcast is no longer sending (it failed): the chunk sends nothing. */
  | { kind: 'stopped'; status: string };

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
    ...(broadcast.tracking ? { tracking: broadcast.tracking } : {}),
    destination: { email: recipient },
    ...content,
    metadata: { from_email: broadcast.from_email },
    // A bulk send's scheduled_at schedules each message; a broadcast's has passed when it fans out.
    ...(broadcast.scheduled_at && broadcast.schedule_mode === 'messages' ? { scheduled_at: broadcast.scheduled_at } : {}),
  };
}

/** Sends the chunk's recipients in calls of SENDS_PER_CALL, CALLS_IN_FLIGHT at once, and counts the outcomes. */
async function sendChunk(deps: SendDeps, account: AccountItem, broadcast: BroadcastItem, chunk: RecipientChunkItem): Promise<{ tally: Tally; failures: Record<string, number> }> {
  const { recipients } = chunk;
  const tally: Tally = { sent: 0, skipped: 0, failed: 0 };
  const failures: Record<string, number> = {};
  const sender = { accountId: broadcast.account_id, keyId: broadcast.key_id, testMode: broadcast.test_mode, account };
  // The version pinned at creation, not the template's current one.
  const render = broadcast.template ? await pinnedRenderer(deps.store, broadcast.account_id, broadcast.template) : undefined;
  const starts = Array.from({ length: Math.ceil(recipients.length / SENDS_PER_CALL) }, (_, k) => k * SENDS_PER_CALL);
  const calls = await inParallel(starts, CALLS_IN_FLIGHT, (i) => {
    const requests = recipients.slice(i, i + SENDS_PER_CALL).map((r, j) => sendRequestFor(broadcast, r, chunk.data?.[i + j]));
    return acceptSends(deps, sender, requests, { batch: true, render, broadcastId: broadcast.id });
  });
  const outcomes = calls.flat();
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
  return { tally, failures };
}

/**
 * sending → sent once every chunk is counted; → failed when no recipient was accepted and at least
 * one failed. A broadcast whose recipients were all skipped is `sent`: nothing went wrong.
 */
export async function finishIfComplete(deps: { clock: SendDeps['clock'] }, broadcasts: BroadcastRepository, broadcast: BroadcastItem): Promise<void> {
  if (broadcast.status !== 'sending' || (broadcast.chunks_done?.size ?? 0) < broadcast.chunk_count) return;
  // A list audience's chunk count is known only once its walk has ended.
  if (broadcast.audience_list_id !== null && !broadcast.walk_done) return;
  const now = deps.clock.now().toISOString();
  // False when a concurrent chunk finished it first: nothing left to do.
  if (broadcast.sent_count === 0 && broadcast.failed_count > 0) {
    await broadcasts.fail(broadcast.account_id, broadcast.id, `no recipient's send was accepted: all ${broadcast.failed_count} were refused`, now);
  } else {
    await broadcasts.finish(broadcast.account_id, broadcast.id, 'sent', now);
  }
}

/**
 * Why nothing more can go out for the broadcast's account (suspended, gone, or a live broadcast's
 * account paused for its reputation), if so: the fan-out stops there and the
 * broadcast is failed with that reason (chunks already sent stay sent; their messages still
 * queued or scheduled fail at the send worker for the same reason).
 */
export async function accountStop(deps: Pick<SendDeps, 'store'>, broadcast: Pick<BroadcastItem, 'account_id' | 'test_mode'>): Promise<string | undefined> {
  return sendHold(await getAccount(deps.store, broadcast.account_id), !broadcast.test_mode)?.detail;
}

/** What the broadcast sends: its content item, or the content an earlier version kept on the broadcast item. */
export async function contentOf(broadcasts: BroadcastRepository, broadcast: BroadcastItem): Promise<BroadcastContent> {
  const item = await broadcasts.getContent(broadcast.id, broadcast.content_version ?? 0);
  if (item) return { subject: item.subject, body_html: item.body_html, body_text: item.body_text, template: item.template };
  return { subject: broadcast.subject, body_html: broadcast.body_html, body_text: broadcast.body_text, template: broadcast.template };
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
  if (broadcast.status !== 'sending') return { kind: 'stopped', status: broadcast.status };
  const chunk = await broadcasts.getChunk(job.broadcast_id, job.chunk);
  if (!chunk) return { kind: 'missing' };
  // Read once for the chunk: the hold below, and every acceptSends call of the chunk.
  const account = await getAccount(deps.store, broadcast.account_id);
  const hold = sendHold(account, !broadcast.test_mode);
  if (hold || !account) {
    await broadcasts.fail(broadcast.account_id, broadcast.id, hold?.detail ?? 'the account is gone', deps.clock.now().toISOString());
    return { kind: 'stopped', status: 'failed' };
  }

  const { tally, failures } = await sendChunk(deps, account, { ...broadcast, ...(await contentOf(broadcasts, broadcast)) }, chunk);
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

/**
 * Runs a job of the broadcast; when it throws on its last receive, the broadcast cannot finish
 * its fan-out: it is failed with why (if still sending), and the job goes on to the DLQ.
 */
export async function failOnLastAttempt(deps: Pick<SendDeps, 'store' | 'clock'>, job: { account_id: string; broadcast_id: string }, finalAttempt: boolean, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (finalAttempt) {
      // The error itself is logged by the consumer; the broadcast says only what happened.
      await new BroadcastRepository(deps.store).fail(job.account_id, job.broadcast_id, 'a fan-out step failed repeatedly', deps.clock.now().toISOString());
    }
    throw error;
  }
}
