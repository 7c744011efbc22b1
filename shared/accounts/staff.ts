// The staff's view of accounts: the list (newest first, by status or address) and one account.
import type { Store } from '../db/store';
import { ApiError, NotFoundError } from '../errors';
import { mapPage, pageRequest, type Page, type PageInput } from '../pagination';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import { StaffAuditRepository, type StaffAuditItem } from './audit-repository';
import { AccountListRepository } from './list-repository';
import { AccountRepository, type AccountItem } from './repository';
import type { StaffAction, StaffAuditEntryView } from './audit-schemas';
import type { AdminAccountQuery, AdminAccountView } from './schemas';

const toAdminView = (a: AccountItem): AdminAccountView => ({
  account_id: a.id,
  name: a.name,
  email: a.email,
  status: a.status,
  created_at: a.created_at,
});

/** The staff's walks are nobody's account: their cursors are bound to this name instead. */
const STAFF_SCOPE = 'staff';

/**
 * The staff's account list, newest first: all accounts, those of one status, or those with one
 * address (trimmed and lower-cased, as accounts store it). Accounts made before the list existed
 * are not in it (docs/api-decisions.md, "Staff: account listing").
 */
export async function listAccounts(
  deps: { store: Store; cursorSecret: string },
  query: Pick<AdminAccountQuery, 'status' | 'email'>,
  page: PageInput,
): Promise<Page<AdminAccountView>> {
  const filter = { status: query.status, email: query.email?.toLowerCase() };
  const request = pageRequest(deps, { accountId: STAFF_SCOPE, collection: 'admin-accounts', filters: { ...filter } }, page);
  return mapPage(await new AccountListRepository(deps.store).list(filter, request), toAdminView);
}

/** One account as staff see it; 404 not_found when there is none. */
export async function readAccount(store: Store, accountId: string): Promise<AdminAccountView> {
  const account = await new AccountRepository(store).get(accountId);
  if (!account) throw new NotFoundError('account');
  return toAdminView(account);
}

/**
 * Lists an account made before the staff list existed (a no-op for one made since). Nothing
 * scans for such accounts: the local runtime calls this for its bootstrap account at start.
 */
export async function ensureAccountListed(store: Store, accountId: string): Promise<void> {
  await new AccountListRepository(store).ensureListed(accountId);
}

/** Who did a staff action: the deployment's staff token, or a staff user's session. */
export type StaffActor = { type: 'staff_token' } | { type: 'staff_session'; userId: string };

/** The request a staff action came in, as the audit log records it. */
export interface StaffRequest {
  actor: StaffActor;
  requestId: string;
  sourceIp: string;
}

/** One staff action to record: what, on which target (null when only the action will tell), with what. */
export interface StaffActionRecord<T> {
  action: StaffAction;
  target: { type: 'account' | 'user' | 'queue'; id: string | null };
  detail?: Record<string, string>;
  /** The target as the action's result names it (a new account's id, the user whose role changed). */
  targetOf?: (result: T) => string;
}

/**
 * Runs a staff action under its audit record. The record is written first, so no action runs
 * unrecorded: if that write fails the request fails (5xx) and nothing is done. After the action,
 * the record gets its outcome; if that second write fails, the action's answer still goes out
 * (it happened), the record stays `pending` and the failure is logged at error with the record.
 */
export async function audited<T>(
  deps: { store: Store; clock: Clock; logger: Logger },
  request: StaffRequest,
  what: StaffActionRecord<T>,
  run: () => Promise<T>,
): Promise<T> {
  const audit = new StaffAuditRepository(deps.store);
  const item = await audit.record({
    request_id: request.requestId,
    created_at: deps.clock.now().toISOString(),
    actor_type: request.actor.type,
    actor_user_id: request.actor.type === 'staff_session' ? request.actor.userId : null,
    action: what.action,
    target_type: what.target.type,
    target_id: what.target.id,
    detail: what.detail ?? {},
    source_ip: request.sourceIp,
  });
  const settle = (outcome: 'succeeded' | 'failed', targetId: string | null, errorCode: string | null): Promise<void> =>
    audit.settle(item, outcome, targetId, errorCode).catch((error: unknown) => {
      deps.logger.error('staff audit outcome not recorded; the entry stays pending', { entry: { ...item, outcome, target_id: targetId, error_code: errorCode }, error: error instanceof Error ? error.message : String(error) });
    });
  let result: T;
  try {
    result = await run();
  } catch (error) {
    await settle('failed', what.target.id, error instanceof ApiError ? error.code : 'internal_error');
    throw error;
  }
  await settle('succeeded', what.targetOf ? what.targetOf(result) : what.target.id, null);
  return result;
}

const toAuditView = (a: StaffAuditItem): StaffAuditEntryView => ({
  request_id: a.request_id,
  created_at: a.created_at,
  actor: { type: a.actor_type, user_id: a.actor_user_id },
  action: a.action,
  target: { type: a.target_type, id: a.target_id },
  detail: a.detail,
  outcome: a.outcome,
  error_code: a.error_code,
  source_ip: a.source_ip,
});

/** The staff audit log, newest first. */
export async function listStaffAudit(deps: { store: Store; cursorSecret: string }, page: PageInput): Promise<Page<StaffAuditEntryView>> {
  const request = pageRequest(deps, { accountId: STAFF_SCOPE, collection: 'admin-audit' }, page);
  return mapPage(await new StaffAuditRepository(deps.store).list(request), toAuditView);
}
