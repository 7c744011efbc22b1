// Sending reputation per account, as SES computes it for the whole SES account: hard bounces and
// complaints over live email sends, summed over a rolling window of hourly buckets. Sends are
// counted where the provider accepted them (the `sent` event), hard bounces and complaints
// where the SES event is first recorded; a hard bounce or complaint then judges the window and
// moves the account up (ok → warned → paused) once per step, with a mail and a webhook event
// sent by the send worker (./alert.ts). A paused account's live sends are refused at accept time
// from the flag on its account item, which the request pipeline has read already.
import { AccountRepository, type AccountItem } from '../../accounts/repository';
import { NotFoundError } from '../../errors';
import type { Store } from '../../db/store';
import { storeTally, type Tally } from '../../db/tally';
import type { Channel } from '../../accounts/schemas';
import type { Clock } from '../../ports/clock';
import type { Queue } from '../../ports/queue';
import type { Logger } from '../../ports/logger';
import { reputationAlertJob, type ReputationAlertJob } from './alert-job';
import { defaultPolicy, hourOf, judge, policyOf, rates, type ReputationConfig, type ReputationPolicy, type ReputationState, type Window } from './policy';
import { ReputationRepository, type BoardEntry, type Counter } from './repository';

const HOUR_MS = 3_600_000;

/** Buckets stay a day past the longest window, then the table's TTL removes them. */
const expiryOf = (at: Date, policy: ReputationPolicy): number => Math.floor((at.getTime() + (policy.windowHours + 24) * HOUR_MS) / 1000);

async function bump(store: Store, accountId: string, counter: Counter, at: Date, policy: ReputationPolicy): Promise<void> {
  await new ReputationRepository(store).count(accountId, hourOf(at), counter, expiryOf(at, policy));
}

/**
 * A live send the provider accepted (called once per send, with its `sent` event): an email counts
 * in the reputation's denominator, through `tally` when given (a send worker batch sums them and
 * writes them at its end), else written now. Usage counted the send when it was accepted.
 */
export async function countSentEmail(store: Store, message: { account_id: string; channel: Channel }, at: string, tally: Tally = storeTally(store)): Promise<void> {
  if (message.channel === 'email') await countReputationSend(tally, message.account_id, new Date(at));
}

/** A live email send the provider accepted (called once per send, with its `sent` event), added through `tally`. */
export async function countReputationSend(tally: Tally, accountId: string, at: Date, policy: ReputationPolicy = defaultPolicy): Promise<void> {
  await tally.add(ReputationRepository.countAdd(accountId, hourOf(at), 'sends', expiryOf(at, policy)));
}

export interface ReputationWindow extends Window {
  bounce_rate: number;
  complaint_rate: number;
  from_hour: string;
  to_hour: string;
}

/** The window ending in the current hour, starting no earlier than a staff lift's restart. */
export async function readWindow(deps: { store: Store; clock: Clock; config?: ReputationConfig }, account: Pick<AccountItem, 'id' | 'reputation_since'>, policy: ReputationPolicy = policyOf(deps.config)): Promise<ReputationWindow> {
  const now = deps.clock.now();
  const toHour = hourOf(now);
  const start = hourOf(new Date(now.getTime() - (policy.windowHours - 1) * HOUR_MS));
  const fromHour = account.reputation_since && account.reputation_since > start ? account.reputation_since : start;
  const w = await new ReputationRepository(deps.store).window(account.id, fromHour, toHour);
  return { ...w, ...rates(w), from_hour: fromHour, to_hour: toHour };
}

type SignalDeps = { store: Store; clock: Clock; queue: Queue; logger: Logger; config?: ReputationConfig };

/**
 * A hard bounce or a complaint recorded for the first time: counted, then the window judged.
 * Escalation is one conditional write on the account, so one alert per step; the alert rides the
 * send queue to the send worker (the ses-events function sends no mail).
 */
export async function countReputationSignal(
  deps: SignalDeps,
  signal: { accountId: string; kind: 'bounce' | 'complaint'; messageId: string },
  policy: ReputationPolicy = policyOf(deps.config),
): Promise<ReputationState | undefined> {
  const now = deps.clock.now();
  await bump(deps.store, signal.accountId, signal.kind === 'bounce' ? 'bounces' : 'complaints', now, policy);
  const accounts = new AccountRepository(deps.store);
  const account = await accounts.get(signal.accountId);
  if (!account) return undefined;
  const window = await readWindow(deps, account, policy);
  const verdict = judge(window, policy);
  const nowIso = now.toISOString();
  await new ReputationRepository(deps.store).post({
    account_id: account.id,
    state: stateAfter(account.reputation_state, verdict),
    sends: window.sends,
    bounces: window.bounces,
    complaints: window.complaints,
    bounce_rate: window.bounce_rate,
    complaint_rate: window.complaint_rate,
    judged_at: nowIso,
  });
  if (verdict === 'ok' || !(await accounts.escalateReputation(account.id, verdict, nowIso))) return verdict;
  const job: ReputationAlertJob = reputationAlertJob.parse({
    kind: 'reputation_alert',
    account_id: account.id,
    state: verdict,
    message_id: signal.messageId,
    sends: window.sends,
    bounces: window.bounces,
    complaints: window.complaints,
    bounce_rate: window.bounce_rate,
    complaint_rate: window.complaint_rate,
    occurred_at: nowIso,
  });
  try {
    await deps.queue.send('send', job);
  } catch (error) {
    // The judgement stands (a pause must hold); only the alert is lost, and it is logged.
    deps.logger.warn('reputation alert not handed on', { accountId: account.id, state: verdict, error });
  }
  return verdict;
}

/** The state never moves down by itself: only staff lift a warning or a pause. */
const order: Record<ReputationState, number> = { ok: 0, warned: 1, paused: 2 };
const stateAfter = (current: ReputationState | undefined, verdict: ReputationState): ReputationState =>
  order[verdict] > order[current ?? 'ok'] ? verdict : (current ?? 'ok');

export interface ReputationView extends ReputationWindow {
  state: ReputationState;
  window_hours: number;
  min_sends: number;
  warn_bounce_rate: number;
  warn_complaint_rate: number;
  pause_bounce_rate: number;
  pause_complaint_rate: number;
}

/** The account's reputation as GET /v1/usage and the console show it. */
export async function reputationOf(
  deps: { store: Store; clock: Clock; config?: ReputationConfig },
  account: Pick<AccountItem, 'id' | 'reputation_since' | 'reputation_state'>,
  policy: ReputationPolicy = policyOf(deps.config),
): Promise<ReputationView> {
  const window = await readWindow(deps, account, policy);
  return {
    state: account.reputation_state ?? 'ok',
    ...window,
    window_hours: policy.windowHours,
    min_sends: policy.minSends,
    warn_bounce_rate: policy.warnBounceRate,
    warn_complaint_rate: policy.warnComplaintRate,
    pause_bounce_rate: policy.pauseBounceRate,
    pause_complaint_rate: policy.pauseComplaintRate,
  };
}

/** Staff lift a warning or pause: state ok, and the window restarts at the next whole UTC hour. */
export async function liftReputation(deps: { store: Store; clock: Clock }, accountId: string): Promise<{ account_id: string; state: 'ok'; window_from_hour: string }> {
  const now = deps.clock.now();
  const since = hourOf(new Date(Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS));
  if (!(await new AccountRepository(deps.store).liftReputation(accountId, since, now.toISOString()))) throw new NotFoundError('account');
  await new ReputationRepository(deps.store).post({
    account_id: accountId,
    state: 'ok',
    sends: 0,
    bounces: 0,
    complaints: 0,
    bounce_rate: 0,
    complaint_rate: 0,
    judged_at: now.toISOString(),
  });
  return { account_id: accountId, state: 'ok', window_from_hour: since };
}

/** The deployment's accounts as last judged, worst first (by complaint rate, then bounce rate). */
export async function reputationBoard(store: Store): Promise<BoardEntry[]> {
  const entries = await new ReputationRepository(store).board();
  return entries.sort((a, b) => order[b.state] - order[a.state] || b.complaint_rate - a.complaint_rate || b.bounce_rate - a.bounce_rate || a.account_id.localeCompare(b.account_id));
}
