// Creating broadcasts (POST /v1/send/bulk, POST /v1/broadcasts) and reading them. A broadcast is
// refused up front for everything that would fail every recipient alike (content, recipients
// source, schedule, sender rules); what is accepted is stored as its content item, its recipient
// chunks (inline recipients; a list audience is walked at fan-out, shared/audiences/broadcasts/audience.ts)
// and the broadcast, then a sending one is handed on (shared/audiences/broadcasts/start.ts). The moves after
// creation are in ./lifecycle.ts; shared/audiences/broadcasts/fan-out.ts turns a chunk into sends.
import { getAccount } from '../../accounts/service';
import type { Store } from '../../db/store';
import { isValidAddress, normalizeAddress } from '../../formats/address';
import { ApiError, InvalidRequestError, NotFoundError } from '../../errors';
import { isId, type Ids } from '../../ports/ids';
import { loadSenderContext, resolveSender } from '../../sending/messages/sender';
import { mapPage, pageRequest, type Page, type PageInput } from '../../pagination';
import type { Clock } from '../../ports/clock';
import type { Queue } from '../../ports/queue';
import type { Scheduler } from '../../ports/scheduler';
import { keys } from '../../db/keys';
import { listNotFound } from '../contacts/contacts';
import { ContactListRepository } from '../contacts/lists-repository';
import { CHUNK_BYTES, MAX_CONTENT_BYTES, MAX_RECIPIENT_DATA_BYTES, RECIPIENTS_PER_CHUNK } from './limits';
import { SCHEDULED_START } from './messages';
import { toBroadcastStats, toBroadcastView, type BroadcastItem, type BroadcastStats, type BroadcastStatus, type BroadcastView } from './model';
import { BroadcastRepository, type NewBroadcast } from './repository';
import { readBroadcastCounts, type StatsDeps } from './stats';
import type { RecipientChunkItem } from './model';
import { handOn, newStartToken, START_SAFETY_NET_SECONDS, startJobFor } from './start';
import { checkActive, ownedTemplate, pinTemplate, type PinnedTemplate } from '../../sending/templates/render';
import type { BulkSendBody } from './schemas';
import { SCHEDULE_FUTURE_MS, SCHEDULE_PAST_MS } from '../../sending/messages/prepare';

export interface BroadcastDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  queue: Queue;
  scheduler: Scheduler;
  config: { sharedEmailSender: string };
}

/** Who creates the broadcast; its sends are made as this key, in its mode. */
export interface BroadcastSender {
  accountId: string;
  keyId: string;
  testMode: boolean;
}

export { CHUNK_BYTES, MAX_CONTENT_BYTES, MAX_RECIPIENT_DATA_BYTES, RECIPIENTS_PER_CHUNK } from './limits';
// The scheduling window of single sends (shared/sending/messages/send.ts), checked once for the whole bulk.

const filled = (value: string | undefined): string | undefined => (value !== undefined && value.trim() !== '' ? value : undefined);

export interface Content {
  subject?: string;
  html?: string;
  text?: string;
  /** With template_id: the template's current version, pinned for the whole fan-out. */
  template?: PinnedTemplate;
  /** The broadcast's default name: the subject, or the template's name. */
  name: string;
}

/**
 * Inline content or a template, never both and never neither. A template is refused as a single
 * send refuses it (404 template_not_found for one the account does not hold, 422 template_error
 * for an inactive one) and its current version is pinned; required variables are checked per
 * recipient, when the fan-out renders each one with its own `data`.
 */
export async function resolveContent(store: Store, accountId: string, body: BulkSendBody): Promise<Content> {
  const inline = body.subject !== undefined || body.body_html !== undefined || body.body_text !== undefined;
  if (inline && body.template_id !== undefined) {
    throw new InvalidRequestError('body: give inline content (subject, body_html, body_text) or template_id, not both');
  }
  if (body.template_id !== undefined) {
    const item = await ownedTemplate(store, accountId, body.template_id);
    checkActive(item);
    return { template: pinTemplate(item), name: item.name };
  }
  const subject = filled(body.subject);
  const html = filled(body.body_html);
  const text = filled(body.body_text);
  if (!subject || (!html && !text)) {
    throw new InvalidRequestError('body: content needs subject and body_html or body_text, or a template_id');
  }
  const bytes = Buffer.byteLength(subject) + Buffer.byteLength(html ?? '') + Buffer.byteLength(text ?? '');
  if (bytes > MAX_CONTENT_BYTES) throw new InvalidRequestError(`body: subject, body_html and body_text together must be at most ${MAX_CONTENT_BYTES} bytes`);
  return { subject, html, text, name: subject };
}

/** Inline recipients, cut into chunks at creation; or a contact list, walked at fan-out. */
export type Audience =
  | {
      kind: 'inline';
      /** Unique normalized valid addresses, in request order. */
      valid: string[];
      /** Each valid address's `data` (its first entry's), by position; null for none. */
      data: Array<Record<string, unknown> | null>;
      /** Unique normalized entries that are not addresses: skipped, counted in total_recipients. */
      invalid: number;
    }
  | { kind: 'list'; listId: string };

/** The account's live list (static or dynamic); another account's or an unknown one is 404. */
async function checkList(store: Store, accountId: string, listId: string): Promise<void> {
  const list = await new ContactListRepository(store).getList(accountId, listId);
  if (!list || list.deleted_at !== undefined) throw listNotFound(listId);
}

/** Inline recipients or a contact list, never both and never neither. */
export async function resolveAudience(store: Store, accountId: string, body: Pick<BulkSendBody, 'recipients' | 'audience_list_id' | 'template_id'>): Promise<Audience> {
  if (body.recipients !== undefined && body.audience_list_id !== undefined) {
    throw new InvalidRequestError('body: give recipients or audience_list_id, not both');
  }
  if (body.audience_list_id !== undefined) {
    await checkList(store, accountId, body.audience_list_id);
    return { kind: 'list', listId: body.audience_list_id };
  }
  if (body.recipients === undefined) throw new InvalidRequestError('body: recipients or audience_list_id is required');
  // A repeated address keeps its first entry, data included.
  const unique = new Map<string, Record<string, unknown> | null>();
  body.recipients.forEach((r, i) => {
    const address = normalizeAddress(r.email);
    if (unique.has(address)) return;
    if (body.template_id !== undefined && r.data !== undefined && Buffer.byteLength(JSON.stringify(r.data)) > MAX_RECIPIENT_DATA_BYTES) {
      throw new InvalidRequestError(`body.recipients.${i}.data: at most ${MAX_RECIPIENT_DATA_BYTES} bytes as JSON`);
    }
    unique.set(address, r.data ?? null);
  });
  const valid = [...unique.keys()].filter(isValidAddress);
  if (valid.length === 0) throw new InvalidRequestError('body.recipients: no entry holds a valid email address');
  return { kind: 'inline', valid, data: valid.map((address) => unique.get(address) ?? null), invalid: unique.size - valid.length };
}

export function checkSchedule(scheduledAt: string | undefined, now: Date): void {
  if (scheduledAt === undefined) return;
  const offset = new Date(scheduledAt).getTime() - now.getTime();
  if (offset < -SCHEDULE_PAST_MS || offset > SCHEDULE_FUTURE_MS) {
    throw new ApiError('invalid_schedule', 'scheduled_at must be no more than 1 minute in the past and no more than 90 days ahead');
  }
}

type Chunk = Pick<RecipientChunkItem, 'recipients' | 'data'>;

/**
 * Slices of at most RECIPIENTS_PER_CHUNK recipients; with `data` (a template broadcast) a slice
 * also closes before its addresses and data pass CHUNK_BYTES, so every chunk item fits.
 */
export function chunksOf(audience: Extract<Audience, { kind: 'inline' }>, withData: boolean): Chunk[] {
  const out: Chunk[] = [];
  let current: Chunk | undefined;
  let bytes = 0;
  audience.valid.forEach((recipient, i) => {
    const data = audience.data[i] ?? null;
    const size = Buffer.byteLength(recipient) + (withData && data ? Buffer.byteLength(JSON.stringify(data)) : 0) + 8;
    if (!current || current.recipients.length >= RECIPIENTS_PER_CHUNK || (withData && bytes + size > CHUNK_BYTES)) {
      current = withData ? { recipients: [], data: [] } : { recipients: [] };
      out.push(current);
      bytes = 0;
    }
    current.recipients.push(recipient);
    current.data?.push(data);
    bytes += size;
  });
  return out;
}

/** The sender rules of single sends, applied once at request time so a bad from_email is refused at once. */
export async function checkSender(deps: Pick<BroadcastDeps, 'store' | 'config'>, accountId: string, fromEmail: string): Promise<void> {
  const account = await getAccount(deps.store, accountId);
  if (!account) throw new ApiError('unauthorized', 'unknown account');
  resolveSender(await loadSenderContext(deps.store, account, deps.config.sharedEmailSender), fromEmail);
}

/** What a broadcast's audience adds to its item: an inline audience's counts and chunks, or a list's walk from its first page. */
export function audienceFields(audience: Audience, chunkCount: number, base: number): Pick<NewBroadcast, 'audience_list_id' | 'total_recipients' | 'skipped_count' | 'chunk_count' | 'chunk_base' | 'pages_walked' | 'walk_cursor' | 'walk_done'> {
  return audience.kind === 'inline'
    ? { audience_list_id: null, total_recipients: audience.valid.length + audience.invalid, skipped_count: audience.invalid, chunk_count: chunkCount, chunk_base: base }
    : { audience_list_id: audience.listId, total_recipients: 0, skipped_count: 0, chunk_count: 0, chunk_base: base, pages_walked: 0, walk_cursor: null, walk_done: false };
}

/**
 * POST /v1/send/bulk (`bulk`: sending at once) and POST /v1/broadcasts (`broadcast`: draft, or
 * scheduled with scheduled_at, or sending with send_now). Refused up front for everything that
 * would fail every recipient alike; stored as the broadcast, its content item and (inline
 * recipients) its chunks.
 */
export async function createBroadcast(deps: BroadcastDeps, sender: BroadcastSender, body: BulkSendBody, mode: 'bulk' | 'broadcast'): Promise<BroadcastView> {
  if (mode === 'broadcast' && body.send_now === true && body.scheduled_at !== undefined) {
    throw new InvalidRequestError('body: give send_now or scheduled_at, not both');
  }
  const content = await resolveContent(deps.store, sender.accountId, body);
  const audience = await resolveAudience(deps.store, sender.accountId, body);
  const now = deps.clock.now();
  checkSchedule(body.scheduled_at, now);
  await checkSender(deps, sender.accountId, body.from_email);

  const id = deps.ids.next('bcast');
  const nowIso = now.toISOString();
  const status: BroadcastStatus = mode === 'bulk' || body.send_now === true ? 'sending' : body.scheduled_at !== undefined ? 'scheduled' : 'draft';
  const chunks = audience.kind === 'inline' ? chunksOf(audience, content.template !== undefined) : [];
  const scheduledAt = body.scheduled_at ? new Date(body.scheduled_at).toISOString() : null;
  const token = status === 'sending' ? newStartToken() : undefined;
  const broadcast: NewBroadcast = {
    id,
    account_id: sender.accountId,
    name: body.name ?? content.name,
    status,
    from_email: body.from_email.trim(),
    message_type: body.message_type ?? 'transactional',
    ...(body.tracking ? { tracking: body.tracking } : {}),
    scheduled_at: scheduledAt,
    ...(mode === 'bulk' && scheduledAt ? { schedule_mode: 'messages' as const } : {}),
    ...audienceFields(audience, chunks.length, 0),
    sent_count: 0,
    failed_count: 0,
    content_version: 0,
    ...(token ? { start_token: token, handed_on: false, started_at: nowIso } : {}),
    key_id: sender.keyId,
    test_mode: sender.testMode,
    created_at: nowIso,
    updated_at: nowIso,
  };
  const broadcasts = new BroadcastRepository(deps.store);
  // Each hand-on exists before the broadcast that needs it: a stored sending broadcast always has
  // its start job, a stored scheduled one its schedule (one that fires without a broadcast is dropped).
  if (token) await deps.queue.send('fanout', startJobFor(broadcast, token), { delaySeconds: START_SAFETY_NET_SECONDS });
  if (status === 'scheduled') await deps.scheduler.schedule({ id, at: new Date(scheduledAt!), queue: 'fanout', body: startJobFor(broadcast, SCHEDULED_START) });
  // Chunks and content first: a job must never name a chunk that is not stored yet.
  await broadcasts.putChunks(sender.accountId, id, chunks);
  await broadcasts.putContent(sender.accountId, id, 0, { subject: content.subject, body_html: content.html, body_text: content.text, template: content.template });
  if (!(await broadcasts.create(broadcast))) throw new Error(`broadcast id ${id} is taken`);
  const created = { ...broadcast, ...keys.broadcast(sender.accountId, id), entity: 'broadcast' as const };
  if (token) await handOn(deps, created);
  return toBroadcastView(created);
}

/** POST /v1/send/bulk. */
export const createBulkSend = (deps: BroadcastDeps, sender: BroadcastSender, body: BulkSendBody): Promise<BroadcastView> => createBroadcast(deps, sender, body, 'bulk');

export async function listBroadcasts(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  page: PageInput,
): Promise<Page<BroadcastView>> {
  const out = await new BroadcastRepository(deps.store).list(accountId, pageRequest(deps, { accountId, collection: 'broadcasts' }, page));
  return mapPage(out, toBroadcastView);
}

/** The account's broadcast; another account's is reported as absent. */
export async function ownedBroadcast(store: Store, accountId: string, broadcastId: string): Promise<BroadcastItem> {
  const item = isId(broadcastId, 'bcast') ? await new BroadcastRepository(store).get(accountId, broadcastId) : undefined;
  if (!item) throw new NotFoundError('broadcast');
  return item;
}

/**
 * The broadcast a caller may move (edit, send, cancel). A test-mode caller moves test broadcasts
 * only: a live one answers 404 word for word as an unknown id does, as a live scheduled message
 * does to a test key's cancel (docs/api-decisions.md, "Test-mode keys and account-wide
 * resources"), so a leaked test key can neither rewrite nor start nor stop live mail. Reads still
 * show both modes. `test_mode` is written once at creation, so the check cannot race a write.
 */
export async function movableBroadcast(store: Store, caller: Pick<BroadcastSender, 'accountId' | 'testMode'>, broadcastId: string): Promise<BroadcastItem> {
  const item = await ownedBroadcast(store, caller.accountId, broadcastId);
  if (caller.testMode && !item.test_mode) throw new NotFoundError('broadcast');
  return item;
}

/** A broadcast with its stats, counted from its messages' timelines (shared/audiences/broadcasts/stats.ts). */
export async function readBroadcast(deps: StatsDeps, accountId: string, broadcastId: string): Promise<{ broadcast: BroadcastView; stats: BroadcastStats }> {
  const item = await ownedBroadcast(deps.store, accountId, broadcastId);
  return { broadcast: toBroadcastView(item), stats: toBroadcastStats(item, await readBroadcastCounts(deps, accountId, broadcastId)) };
}
