// The broadcast's moves after creation: an edit of a draft, the send of a draft or a scheduled
// broadcast, and the cancel of either. Each move is one conditional write on the broadcast's
// status, so two racing requests never both win; the loser is 409 conflict. A test-mode caller
// moves test broadcasts only (movableBroadcast).
import { ApiError, InvalidRequestError } from '../../errors';
import type { BulkSendBody, UpdateBroadcastBody } from './schemas';
import { contentOf } from './fan-out';
import { toBroadcastView, type BroadcastItem, type BroadcastView } from './model';
import { BroadcastRepository } from './repository';
import {
  audienceFields,
  checkSender,
  chunksOf,
  movableBroadcast,
  ownedBroadcast,
  resolveAudience,
  resolveContent,
  type BroadcastDeps,
  type BroadcastSender,
} from './service';
import { handOn, newStartToken, START_SAFETY_NET_SECONDS, startJobFor } from './start';

const wrongStatus = (broadcast: BroadcastItem, what: string, allowed: string): ApiError =>
  new ApiError('conflict', `broadcast ${broadcast.id} is ${broadcast.status}: only a ${allowed} broadcast can be ${what}`);

/** A field of the edit: absent keeps the stored value, null clears it. */
const merged = <T>(patch: T | null | undefined, current: T | undefined): T | undefined => (patch === undefined ? current : (patch ?? undefined));

/**
 * PATCH /v1/broadcasts/{id}: edits a draft (409 conflict for any other status). The draft as
 * edited must pass the creation rules again (content, audience, sender); a template is pinned
 * again at its current version. New inline recipients are written as new chunks after the old
 * ones and new content as the next content version, and the draft moves to them in one
 * conditional write (still the draft that was read), so an edit that loses a race to a send or
 * another edit changes nothing the broadcast sends.
 */
export async function updateBroadcast(deps: BroadcastDeps, sender: BroadcastSender, broadcastId: string, patch: UpdateBroadcastBody): Promise<BroadcastView> {
  const current = await movableBroadcast(deps.store, sender, broadcastId);
  if (current.status !== 'draft') throw wrongStatus(current, 'edited', 'draft');
  const broadcasts = new BroadcastRepository(deps.store);
  const stored = await contentOf(broadcasts, current);

  const body: BulkSendBody = {
    from_email: patch.from_email ?? current.from_email,
    subject: merged(patch.subject, stored.subject),
    body_html: merged(patch.body_html, stored.body_html),
    body_text: merged(patch.body_text, stored.body_text),
    template_id: merged(patch.template_id, stored.template?.id),
  };
  const content = await resolveContent(deps.store, sender.accountId, body);
  const recipientsChanged = patch.recipients !== undefined || patch.audience_list_id !== undefined;
  const listId = merged(patch.audience_list_id, current.audience_list_id ?? undefined);
  const audience = recipientsChanged
    ? await resolveAudience(deps.store, sender.accountId, { recipients: patch.recipients ?? undefined, audience_list_id: listId, template_id: body.template_id })
    : undefined;
  if (!recipientsChanged && current.audience_list_id !== null) await resolveAudience(deps.store, sender.accountId, { audience_list_id: current.audience_list_id });
  if (!recipientsChanged && current.audience_list_id === null && content.template !== undefined && stored.template === undefined) {
    // Inline content became a template: the stored chunks hold no per-recipient data to render with.
    throw new InvalidRequestError('body: switching to template_id needs the recipients again (with their data)');
  }
  await checkSender(deps, sender.accountId, body.from_email);

  const base = (current.chunk_base ?? 0) + current.chunk_count;
  const chunks = audience?.kind === 'inline' ? chunksOf(audience, content.template !== undefined) : [];
  if (chunks.length > 0) await broadcasts.putChunks(sender.accountId, broadcastId, chunks, base);
  const version = (current.content_version ?? 0) + 1;
  await broadcasts.putContent(sender.accountId, broadcastId, version, { subject: content.subject, body_html: content.html, body_text: content.text, template: content.template });
  const updated = await broadcasts.updateDraft(sender.accountId, broadcastId, current.updated_at, {
    name: merged(patch.name, current.name) ?? content.name,
    from_email: body.from_email.trim(),
    message_type: patch.message_type ?? current.message_type,
    ...(patch.tracking ? { tracking: patch.tracking } : {}),
    content_version: version,
    ...(audience ? audienceFields(audience, chunks.length, base) : {}),
    updated_at: deps.clock.now().toISOString(),
  });
  if (!updated) {
    await broadcasts.deleteContent(broadcastId, version);
    const now = await ownedBroadcast(deps.store, sender.accountId, broadcastId);
    throw now.status === 'draft' ? new ApiError('conflict', `broadcast ${broadcastId} was edited meanwhile; read it and try again`) : wrongStatus(now, 'edited', 'draft');
  }
  await broadcasts.deleteContent(broadcastId, current.content_version ?? 0);
  return toBroadcastView(updated);
}

/**
 * POST /v1/broadcasts/{id}/send: a draft, or a scheduled broadcast ahead of its time, → sending
 * (409 conflict for any other status). Sending a scheduled broadcast sends it now: its schedule is
 * removed and its scheduled_at cleared (it no longer says when it sends).
 */
export async function sendBroadcast(deps: BroadcastDeps, sender: BroadcastSender, broadcastId: string): Promise<BroadcastView> {
  const current = await movableBroadcast(deps.store, sender, broadcastId);
  if (current.status !== 'draft' && current.status !== 'scheduled') throw wrongStatus(current, 'sent', 'draft or scheduled');
  // The sender rules again: a domain may have lost its verification since the draft was written.
  await checkSender(deps, sender.accountId, current.from_email);
  const token = newStartToken();
  await deps.queue.send('fanout', startJobFor(current, token), { delaySeconds: START_SAFETY_NET_SECONDS });
  const broadcasts = new BroadcastRepository(deps.store);
  const started = await broadcasts.start(sender.accountId, broadcastId, [current.status], token, deps.clock.now().toISOString(), current.status === 'scheduled');
  if (!started) throw wrongStatus(await ownedBroadcast(deps.store, sender.accountId, broadcastId), 'sent', 'draft or scheduled');
  // The status change is what stops the scheduled start (it fires into a broadcast no longer scheduled); this saves the wake-up.
  if (current.status === 'scheduled') await deps.scheduler.cancel(broadcastId);
  await handOn(deps, started);
  return toBroadcastView(started);
}

/** POST /v1/broadcasts/{id}/cancel: draft or scheduled → cancelled; 409 conflict for any other status. */
export async function cancelBroadcast(deps: BroadcastDeps, caller: Pick<BroadcastSender, 'accountId' | 'testMode'>, broadcastId: string): Promise<BroadcastView> {
  const { accountId } = caller;
  const current = await movableBroadcast(deps.store, caller, broadcastId);
  if (current.status !== 'draft' && current.status !== 'scheduled') throw wrongStatus(current, 'cancelled', 'draft or scheduled');
  const cancelled = await new BroadcastRepository(deps.store).cancel(accountId, broadcastId, current.status, deps.clock.now().toISOString());
  if (!cancelled) throw wrongStatus(await ownedBroadcast(deps.store, accountId, broadcastId), 'cancelled', 'draft or scheduled');
  if (current.status === 'scheduled') await deps.scheduler.cancel(broadcastId);
  return toBroadcastView(cancelled);
}
