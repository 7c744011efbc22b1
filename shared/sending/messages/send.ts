// Accepting sends: POST /v1/send is a batch of one, so both routes share every rule. Each item is
// checked, its large content placed, its cost reserved, handed on (enqueued or scheduled, with
// batched queue writes), and stored under the id its idempotency key gives it (one conditional
// put: the message is its own idempotency record, ./message-id.ts); a suppressed one is recorded
// as such once stored.
import { randomBytes } from 'node:crypto';
import { getAccount, type AccountItem, type Channel } from '../../accounts/service';
import { inParallel } from '../../concurrency';
import type { Store } from '../../db/store';
import { ApiError } from '../../errors';
import type { Ids } from '../../ports/ids';
import type { Clock } from '../../ports/clock';
import type { Dns } from '../../ports/dns';
import type { HttpClient } from '../../ports/http-client';
import type { ObjectStore } from '../../ports/object-store';
import type { Metrics } from '../../ports/metrics';
import type { Queue } from '../../ports/queue';
import type { Scheduler } from '../../ports/scheduler';
import type { Logger } from '../../ports/logger';
import { findSuppressed } from '../suppressions/service';
import { placeContent } from './content';
import { prepare, type Prepared } from './prepare';
import type { MessageExtras } from './extras';
import { decisionOf, LEASE_MS, storedDigest, type SendDecision } from './idempotency';
import { messageIdFor } from './message-id';
import type { TimelineListeners } from './timeline';
import { MessageRepository, messageKeyBytes, type NewMessage } from './repository';
import { SCHEDULE_HOLDS, type MessageItem } from './model';
import { admitTestSend } from '../test-recipients/sandbox';
import { loadSenderContext, type SenderContext } from './sender';
import { handOn } from './hand-on';
import { renderForSend, type TemplateRenderer } from '../templates/render';
import { sendKindOf } from '../../billing/usage/repository';
import { giveBackOnce, heldReservation, readCaps, releaseUnstoredSpend, reserveSpend, spendCapExceeded, type HeldReservation } from '../../billing/spend-caps/reserve';

export interface SendDeps {
  /** The timeline's listeners (shared/runtime/listeners.ts): a send suppressed or held records its event. */
  timeline: TimelineListeners;
  store: Store;
  clock: Clock;
  ids: Ids;
  queue: Queue;
  scheduler: Scheduler;
  dns: Dns;
  http: HttpClient;
  /** Content too large for the message item (shared/sending/messages/content.ts). */
  objects: ObjectStore;
  logger: Logger;
  metrics: Metrics;
  config: { sharedEmailSender: string; validationEnabled: boolean; emailCostMicros?: number };
}

export interface Sender {
  accountId: string;
  keyId: string;
  testMode: boolean;
  /** Already read by the caller (the request pipeline); read here otherwise. */
  account?: AccountItem;
}

/** Message puts (each its send's idempotency claim) in flight at once (the bench reads it). */
export const CLAIM_CONCURRENCY = 16;

/**
 * What became of one send: accepted (queued or scheduled), suppressed (stored and on the timeline,
 * never sent), or rejected with the error the spec names. A retry with the same idempotency key
 * and body gets the first request's accepted or suppressed outcome again.
 */
export type SendOutcome = SendDecision | { kind: 'rejected'; error: ApiError };

/** Which of some messages are stored, as spend caps ask after a failed write (shared/billing/spend-caps/reserve.ts). */
const storedMessages = (deps: { store: Store }) => (ids: string[]) => new MessageRepository(deps.store).getMany(ids);

const rejected = (error: ApiError): SendOutcome => ({ kind: 'rejected', error });

/** The error a suppressed send answers with, on the first request and on every retry. */
export function suppressedError(message: { channel: Channel; recipient: string }): ApiError {
  return new ApiError('recipient_suppressed', `${message.recipient} is on the suppression list for ${message.channel}`);
}

const keyReused = (): SendOutcome => rejected(new ApiError('idempotency_key_reused', 'this idempotency_key was used with a different request body'));

const sendingPaused = (): ApiError =>
  new ApiError('sending_paused', "live sending is paused: this account's bounce or complaint rate passed the pause level; staff must lift it (GET /v1/usage shows the rates)");

/**
 * Accepts sends and returns one outcome per item, in order. `index` is set for batches so that
 * field errors name the item (body.3.destination). `render` replaces how a `template_id` is
 * rendered (a broadcast's pinned version); by default the template's current version.
 */
export async function acceptSends(
  deps: SendDeps,
  sender: Sender,
  items: readonly unknown[],
  options: {
    batch: boolean;
    render?: TemplateRenderer;
    /** The broadcast whose fan-out sends these (internal; a request body never sets it): stored on each message. */
    broadcastId?: string;
    /** Headers and attachments for every email of the call (internal; a request body never sets them): ./extras.ts. */
    extras?: MessageExtras;
  },
): Promise<SendOutcome[]> {
  const account = sender.account ?? (await getAccount(deps.store, sender.accountId));
  if (!account) throw new ApiError('unauthorized', 'unknown account');
  // A reputation pause (shared/billing/reputation) refuses every live send, read from the account item the
  // caller already holds: no store read per send. Test-mode sends never reach the provider.
  if (account.reputation_state === 'paused' && !sender.testMode) return items.map(() => rejected(sendingPaused()));
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const outcomes = new Array<SendOutcome | undefined>(items.length);
  const messages = new MessageRepository(deps.store);
  // The caps read needs only the sender: it goes with the domains read (one round trip), for reserveSpend below.
  const caps = items.length > 0 ? readCaps(deps, sender) : undefined;
  const ctx: SenderContext = { ...(await loadSenderContext(deps.store, account, deps.config.sharedEmailSender)), bulk: options.broadcastId !== undefined };
  const render: TemplateRenderer = options.render ?? ((templateId, vars) => renderForSend(deps.store, account.id, templateId, vars));

  const prepared = await inParallel(items.map((raw, i) => ({ raw, i })), 32, ({ raw, i }) =>
    prepare(deps, ctx, render, sender.testMode, raw, options.batch ? i : undefined, now, options.extras).catch((error: unknown) => {
      if (error instanceof ApiError) {
        outcomes[i] = rejected(error);
        return undefined;
      }
      throw error;
    }),
  );

  // The first item with a key speaks for the batch; later ones with the same key replay it.
  const firstByKey = new Map<string, Prepared>();
  const repeats: Prepared[] = [];
  for (const p of prepared) {
    if (!p) continue;
    if (firstByKey.has(p.request.idempotency_key)) repeats.push(p);
    else firstByKey.set(p.request.idempotency_key, p);
  }
  // The suppression reads go with the sandbox counts (an item those refuse just does not use its answer).
  const [suppressed, firsts] = await Promise.all([
    suppressionsOf(deps.store, sender.accountId, [...firstByKey.values()]),
    countTestSends(deps, messages, sender.accountId, [...firstByKey.values()], outcomes),
  ]);
  const drafts = firsts.map((p) => draft(p, sender, suppressed.has(`${p.request.channel}:${p.recipient}`), nowIso, options.broadcastId));
  const settled = await reserveAndStore(deps, sender, drafts, now, caps, outcomes);
  for (const p of repeats) {
    const first = firstByKey.get(p.request.idempotency_key) as Prepared;
    const firstOutcome = outcomes[first.index];
    outcomes[p.index] = first.digest === p.digest && firstOutcome ? firstOutcome : keyReused();
  }
  const { created } = settled;
  // Counted once per message, as it is stored. Suppressed ones were never accepted.
  if (!sender.testMode) deps.metrics.count('MessagesAccepted', created.filter((d) => d.message.accepted_as === undefined).length);
  // Suppressed ones go on the timeline now that their message exists; the others were handed on before it was stored.
  const suppressedNow = created.filter((d) => d.message.accepted_as === 'suppressed');
  if (suppressedNow.length > 0) await handOn(deps, sender.accountId, new Map(suppressedNow.map((d) => [d.message.id, decisionOf(d.message)])), suppressedNow.map((d) => d.message), nowIso);
  if (settled.failure) throw settled.failure.error;
  return outcomes.map((o) => o as SendOutcome);
}

/**
 * Spend caps (shared/billing/spend-caps/reserve.ts): each live accepted send reserves its cost, and
 * is counted in usage, before its message is stored, so nothing stored was ever refused; one past a hard cap is 402
 * spend_cap_exceeded unless its message exists already (a retry replays it). The request is one
 * attempt (a random id): its messages record it (reserved_by) and its jobs carry what it reserved,
 * so a reservation another attempt's message made surplus is given back once (giveBackOnce), here
 * or by the job (./dispatch.ts). Content goes first (idempotent), so the reservation is followed
 * at once by the hand-on, then the puts (storeAll). Here a reservation whose message turns out to
 * exist (a retry, a concurrent duplicate) is given back, and so is one whose message could not be
 * stored. Sets each draft's outcome; `failure` is the first write that threw, for the caller to
 * throw once it has handed on what was stored.
 */
async function reserveAndStore(
  deps: SendDeps,
  sender: Sender,
  drafts: readonly Draft[],
  now: Date,
  caps: ReturnType<typeof readCaps>,
  outcomes: Array<SendOutcome | undefined>,
): Promise<{ created: Draft[]; failure?: Stored }> {
  const attempt = randomBytes(12).toString('base64url');
  const billable = drafts
    .filter((d) => d.message.accepted_as === undefined)
    .map((d) => ({ ref: d, channel: d.message.channel, kind: sendKindOf(d.message), messageId: d.message.id }));
  if (!sender.testMode) for (const b of billable) b.ref.message.reserved_by = attempt; // before its content is placed: the item's size counts it
  const placed = await placeAll(deps, drafts);
  const overCap = new Set(await reserveSpend(deps, sender, billable, now, caps));
  const reserved = sender.testMode ? [] : billable.filter((b) => !overCap.has(b.ref)).map((b) => ({ ...b, held: heldReservation(deps, sender, attempt, b, now) }));
  if (overCap.size > 0) {
    const found = await new MessageRepository(deps.store).getMany([...overCap].map((d) => d.message.id));
    for (const d of overCap) {
      const existing = found.get(d.message.id);
      outcomes[d.p.index] = existing ? answerFrom(existing, d) : rejected(spendCapExceeded());
    }
  }
  const held = new Map(reserved.map((r) => [r.messageId, r.held]));
  const stored = await storeAll(deps, sender.accountId, placed.filter((x) => !overCap.has(x.d)), now, held).catch(async (error: unknown) => {
    await releaseUnstoredSpend(deps, sender.accountId, reserved, storedMessages(deps));
    throw error;
  });
  for (const { d, result } of stored) {
    if (result === 'created') outcomes[d.p.index] = decisionOf(d.message);
    else if (result !== 'failed') outcomes[d.p.index] = answerFrom(result, d);
  }
  const resultOf = new Map(stored.map((s) => [s.d, s.result]));
  const found = reserved.filter((b) => resultOf.get(b.ref) !== 'created' && resultOf.get(b.ref) !== 'failed');
  await inParallel(found, CLAIM_CONCURRENCY, (b) => giveBackOnce(deps, sender.accountId, b.messageId, b.held));
  const failure = stored.find((s) => s.result === 'failed');
  if (failure) await releaseUnstoredSpend(deps, sender.accountId, reserved.filter((b) => resultOf.get(b.ref) === 'failed'), storedMessages(deps));
  return { created: stored.filter((s) => s.result === 'created').map((s) => s.d), failure };
}

/**
 * The `channel:recipient` pairs of these sends that are suppressed: one read per channel, all at
 * once. Eventually consistent: the send worker reads the suppression again, consistently, before
 * it sends (docs/api-decisions.md, "the acceptance reads").
 */
async function suppressionsOf(store: Store, accountId: string, prepared: readonly Prepared[]): Promise<Set<string>> {
  const channels = [...new Set(prepared.map((p) => p.request.channel))];
  const found = await Promise.all(
    channels.map((channel) => findSuppressed(store, accountId, channel, prepared.filter((p) => p.request.channel === channel).map((p) => p.recipient), { consistent: false })),
  );
  return new Set(channels.flatMap((channel, i) => [...(found[i] as Set<string>)].map((recipient) => `${channel}:${recipient}`)));
}

/** One send's message as it will be stored, under the id its idempotency key gives it. */
interface Draft {
  p: Prepared;
  message: NewMessage;
}

function draft(p: Prepared, sender: Sender, suppressed: boolean, nowIso: string, broadcastId: string | undefined): Draft {
  const message: NewMessage = {
    id: messageIdFor(sender.accountId, p.request.idempotency_key),
    account_id: sender.accountId,
    channel: p.request.channel,
    status: p.scheduledAt ? 'scheduled' : 'queued',
    message_type: p.request.message_type ?? 'transactional',
    idempotency_key: p.request.idempotency_key,
    body_digest: storedDigest(p.digest),
    ...(suppressed ? { accepted_as: 'suppressed' as const } : {}),
    test_mode: sender.testMode,
    key_id: sender.keyId,
    recipient: p.recipient,
    from: p.from,
    subject: p.subject,
    body_html: p.html,
    body_text: p.text,
    data: p.data,
    template_id: p.template_id,
    template_version: p.template_version,
    headers: p.headers,
    attachments: p.attachments,
    destination: p.request.destination,
    metadata: p.request.metadata,
    scheduled_at: p.scheduledAt?.toISOString(),
    broadcast_id: broadcastId,
    tracking: p.tracking,
    created_at: nowIso,
    updated_at: nowIso,
  };
  return { p, message };
}

/** The answer to a send whose message exists: its first answer again, or the key was used with another body. */
function answerFrom(existing: MessageItem, d: Draft): SendOutcome {
  const same = existing.account_id === d.message.account_id && existing.idempotency_key === d.message.idempotency_key && existing.body_digest === d.message.body_digest;
  return same ? decisionOf(existing) : keyReused();
}

/**
 * Sandbox sends count per address and UTC day: 10 to a verified test recipient, 50 to a
 * signed-up account's own address. A retry of a request already accepted is not counted again.
 * Items over the limit get their error and drop out; once an address is refused, the rest of the
 * call's items to it are refused without another write.
 */
async function countTestSends(
  deps: SendDeps,
  messages: MessageRepository,
  accountId: string,
  items: Prepared[],
  outcomes: Array<SendOutcome | undefined>,
): Promise<Prepared[]> {
  const counted = items.filter((p) => p.quota !== undefined);
  if (counted.length === 0) return items;
  const stored = await messages.getMany(counted.map((p) => messageIdFor(accountId, p.request.idempotency_key)));
  const refused = new Set<Prepared>();
  const exhausted = new Map<string, ApiError>();
  for (const p of counted) {
    if (stored.has(messageIdFor(accountId, p.request.idempotency_key))) continue;
    try {
      const known = exhausted.get(p.recipient);
      if (known) throw known;
      await admitTestSend(deps, accountId, p.recipient, p.quota);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.code === 'test_send_daily_limit') exhausted.set(p.recipient, error);
      outcomes[p.index] = rejected(error);
      refused.add(p);
    }
  }
  return items.filter((p) => !refused.has(p));
}

type Stored = { d: Draft; result: 'created' | 'failed' | MessageItem; error?: unknown };
type Placed = { d: Draft; message: NewMessage };

/**
 * Writes each message's content where it goes (./content.ts): content that would make the
 * message item weigh more than one write unit goes to a content item or the object store, so a
 * stored message always has its content and status changes never pay for it. Idempotent (the
 * same content under the same key), so a request killed after it leaves nothing to undo.
 */
async function placeAll(deps: SendDeps, drafts: readonly Draft[]): Promise<Placed[]> {
  const placed = await inParallel(drafts, CLAIM_CONCURRENCY, async (d) => ({ d, ...(await placeContent(deps.objects, d.message, messageKeyBytes(d.message))) }));
  const contents = placed.flatMap(({ message, contentGz }) => (contentGz ? [{ id: message.id, variant: message.body_digest, contentGz }] : []));
  if (contents.length > 0) await new MessageRepository(deps.store).putContents(contents);
  return placed.map(({ d, message }) => ({ d, message }));
}

/**
 * Hands each accepted message on to the send queue or the scheduler, its job carrying what this
 * attempt reserved for it (`held`), and only then writes the message itself: one conditional put
 * that is also its idempotency claim. So a message is never stored without having been handed on,
 * and no write after the put is needed to say it was: a request killed before the put stored
 * nothing (its job finds no message and is dropped: ./dispatch.ts), one killed after it stored a
 * message already on its way. A job for a message that turns out to exist already (a retry, a
 * concurrent duplicate) finds it taken or done (dispatch's lease). A message an earlier attempt
 * scheduled already keeps that schedule, whose job carries that attempt's reservation: this one's
 * is given back at once and the message is stored as the schedule's (SCHEDULE_HOLDS). `created`
 * when this request stored the message; the message found when the id was taken; `failed` when
 * the write threw. A failed hand-off throws before any message is stored.
 */
async function storeAll(deps: SendDeps, accountId: string, placed: readonly Placed[], now: Date, held: ReadonlyMap<string, HeldReservation>): Promise<Stored[]> {
  if (placed.length === 0) return [];
  const repository = new MessageRepository(deps.store);
  const sendable = placed.filter(({ d }) => d.message.accepted_as === undefined).map(({ d }) => d.message);
  const decisions = new Map(sendable.map((m) => [m.id, decisionOf(m)]));
  const scheduledBefore = await handOn(deps, accountId, decisions, sendable, now.toISOString(), now.getTime(), held);
  const adopted = placed.filter(({ message }) => scheduledBefore.has(message.id) && held.has(message.id));
  await inParallel(adopted, CLAIM_CONCURRENCY, async ({ message }) => {
    message.reserved_by = SCHEDULE_HOLDS;
    await giveBackOnce(deps, accountId, message.id, held.get(message.id) as HeldReservation);
  });
  return inParallel(placed, CLAIM_CONCURRENCY, async ({ d, message }): Promise<Stored> => {
    try {
      // A suppressed one waits in the outbox until its timeline event is written (./recovery.ts).
      const outbox = message.accepted_as === 'suppressed' ? now.getTime() + LEASE_MS : undefined;
      if (await repository.create(message, outbox)) return { d, result: 'created' };
      const existing = await repository.get(message.id);
      return existing ? { d, result: existing } : { d, result: 'failed', error: new Error(`message ${message.id} was taken and then removed`) };
    } catch (error) {
      return { d, result: 'failed', error };
    }
  });
}
