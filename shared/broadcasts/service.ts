// Bulk sends (POST /v1/send/bulk) and broadcast reads. A bulk send is refused up front for
// everything that would fail every recipient alike (content, recipients source, schedule, sender
// rules); what it accepts is stored as a broadcast plus recipient chunks, and each chunk is handed
// to the fanout queue. shared/broadcasts/fan-out.ts turns a chunk into sends.
import { getAccount } from '../accounts/service';
import type { Store } from '../db/store';
import { isValidAddress, normalizeAddress } from '../email/address';
import { ApiError, InvalidRequestError, NotFoundError } from '../errors';
import { isId, type Ids } from '../ids';
import { loadSenderContext, resolveSender } from '../messages/sender';
import { mapPage, pageRequest, type Page, type PageInput } from '../pagination';
import type { Clock } from '../ports/clock';
import type { Queue } from '../ports/queue';
import type { FanOutJob } from './messages';
import { toBroadcastStats, toBroadcastView, type BroadcastStats, type BroadcastView } from './model';
import { BroadcastRepository, type NewBroadcast } from './repository';
import { readBroadcastCounts, type StatsDeps } from './stats';
import type { RecipientChunkItem } from './model';
import { checkActive, ownedTemplate, pinTemplate, type PinnedTemplate } from '../templates/render';
import type { BulkSendBody } from './schemas';
import { SCHEDULE_FUTURE_MS, SCHEDULE_PAST_MS } from '../messages/send';

export interface BroadcastDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  queue: Queue;
  config: { sharedEmailSender: string };
}

/** Who creates the broadcast; its sends are made as this key, in its mode. */
export interface BroadcastSender {
  accountId: string;
  keyId: string;
  testMode: boolean;
}

/** 500 addresses of at most 254 characters stay well under DynamoDB's 400 KB item limit. */
export const RECIPIENTS_PER_CHUNK = 500;
/** A recipient chunk with data stays under this, well below DynamoDB's 400 KB item limit. */
export const CHUNK_BYTES = 300 * 1024;
/** One recipient's `data` as JSON; bounded so that it always fits a chunk. Recorded in docs/api-decisions.md. */
export const MAX_RECIPIENT_DATA_BYTES = 16 * 1024;
/** Content is stored on the broadcast and on every message; bounded so both items fit. */
export const MAX_CONTENT_BYTES = 256 * 1024;
// The scheduling window of single sends (shared/messages/send.ts), checked once for the whole bulk.

const filled = (value: string | undefined): string | undefined => (value !== undefined && value.trim() !== '' ? value : undefined);

interface Content {
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
async function resolveContent(store: Store, accountId: string, body: BulkSendBody): Promise<Content> {
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

interface Audience {
  /** Unique normalized valid addresses, in request order. */
  valid: string[];
  /** Each valid address's `data` (its first entry's), by position; null for none. */
  data: Array<Record<string, unknown> | null>;
  /** Unique normalized entries that are not addresses: skipped, counted in total_recipients. */
  invalid: number;
}

/** Inline recipients or a contact list, never both and never neither. Contact lists do not exist yet. */
function resolveAudience(body: BulkSendBody): Audience {
  if (body.recipients !== undefined && body.audience_list_id !== undefined) {
    throw new InvalidRequestError('body: give recipients or audience_list_id, not both');
  }
  if (body.audience_list_id !== undefined) throw new NotFoundError(`contact list ${body.audience_list_id}`);
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
  return { valid, data: valid.map((address) => unique.get(address) ?? null), invalid: unique.size - valid.length };
}

function checkSchedule(scheduledAt: string | undefined, now: Date): void {
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
function chunksOf(audience: Audience, withData: boolean): Chunk[] {
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
async function checkSender(deps: BroadcastDeps, accountId: string, fromEmail: string): Promise<void> {
  const account = await getAccount(deps.store, accountId);
  if (!account) throw new ApiError('unauthorized', 'unknown account');
  resolveSender(await loadSenderContext(deps.store, account, deps.config.sharedEmailSender), fromEmail);
}

export async function createBulkSend(deps: BroadcastDeps, sender: BroadcastSender, body: BulkSendBody): Promise<BroadcastView> {
  const content = await resolveContent(deps.store, sender.accountId, body);
  const audience = resolveAudience(body);
  const now = deps.clock.now();
  checkSchedule(body.scheduled_at, now);
  await checkSender(deps, sender.accountId, body.from_email);

  const id = deps.ids.next('bcast');
  const nowIso = now.toISOString();
  const chunks = chunksOf(audience, content.template !== undefined);
  const broadcast: NewBroadcast = {
    id,
    account_id: sender.accountId,
    name: body.name ?? content.name,
    status: 'sending',
    from_email: body.from_email.trim(),
    message_type: body.message_type ?? 'transactional',
    audience_list_id: null,
    scheduled_at: body.scheduled_at ? new Date(body.scheduled_at).toISOString() : null,
    subject: content.subject,
    body_html: content.html,
    body_text: content.text,
    template: content.template,
    total_recipients: audience.valid.length + audience.invalid,
    sent_count: 0,
    failed_count: 0,
    skipped_count: audience.invalid,
    chunk_count: chunks.length,
    key_id: sender.keyId,
    test_mode: sender.testMode,
    created_at: nowIso,
    updated_at: nowIso,
  };
  const broadcasts = new BroadcastRepository(deps.store);
  // Chunks first: a job must never name a chunk that is not stored yet.
  await broadcasts.putChunks(sender.accountId, id, chunks);
  if (!(await broadcasts.create(broadcast))) throw new Error(`broadcast id ${id} is taken`);
  await deps.queue.sendBatch('fanout', chunks.map((_, chunk): FanOutJob => ({ broadcast_id: id, account_id: sender.accountId, chunk })));
  return toBroadcastView(broadcast);
}

export async function listBroadcasts(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  page: PageInput,
): Promise<Page<BroadcastView>> {
  const out = await new BroadcastRepository(deps.store).list(accountId, pageRequest(deps, { accountId, collection: 'broadcasts' }, page));
  return mapPage(out, toBroadcastView);
}

/** Another account's broadcast is reported as absent. */
export async function readBroadcast(deps: StatsDeps, accountId: string, broadcastId: string): Promise<{ broadcast: BroadcastView; stats: BroadcastStats }> {
  const item = isId(broadcastId, 'bcast') ? await new BroadcastRepository(deps.store).get(accountId, broadcastId) : undefined;
  if (!item) throw new NotFoundError('broadcast');
  return { broadcast: toBroadcastView(item), stats: toBroadcastStats(item, await readBroadcastCounts(deps, accountId, broadcastId)) };
}
