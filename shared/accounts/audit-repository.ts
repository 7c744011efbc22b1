// The staff audit log in the store: one item per staff request, written before the action runs
// and marked with its outcome after (docs/api-decisions.md, "Staff and the edge"). Read only by
// GET /v1/admin/audit; nothing else imports this, so other bundles do not carry it.
import { keyQueries, keys, type ItemKey } from '../db/keys';
import type { Store } from '../db/store';
import { queryPage, type Page, type PageRequest } from '../pagination';
import type { StaffAction } from './audit-schemas';

export type AuditOutcome = 'pending' | 'succeeded' | 'failed';

export interface StaffAuditItem extends ItemKey {
  entity: 'staff_audit';
  request_id: string;
  created_at: string;
  actor_type: 'staff_token' | 'staff_session';
  actor_user_id: string | null;
  action: StaffAction;
  target_type: 'account' | 'user' | 'queue';
  target_id: string | null;
  detail: Record<string, string>;
  outcome: AuditOutcome;
  error_code: string | null;
  source_ip: string;
}

export type NewStaffAudit = Omit<StaffAuditItem, keyof ItemKey | 'entity' | 'outcome' | 'error_code'>;

export class StaffAuditRepository {
  constructor(private readonly store: Store) {}

  /** Written once per request: a request id that is there already is a bug worth an error, not an overwrite. */
  async record(entry: NewStaffAudit): Promise<StaffAuditItem> {
    const item: StaffAuditItem = { ...keys.staffAudit(entry.created_at, entry.request_id), entity: 'staff_audit', ...entry, outcome: 'pending', error_code: null };
    await this.store.create(item);
    return item;
  }

  /** The action's outcome, and the target it turned out to have (a new account's id). */
  async settle(item: Pick<StaffAuditItem, 'pk' | 'sk'>, outcome: Exclude<AuditOutcome, 'pending'>, targetId: string | null, errorCode: string | null): Promise<void> {
    await this.store.update(
      { pk: item.pk, sk: item.sk },
      {
        expression: 'SET outcome = :outcome, target_id = :target, error_code = :code',
        condition: 'attribute_exists(pk)',
        values: { ':outcome': outcome, ':target': targetId, ':code': errorCode },
      },
    );
  }

  /** A page of the log, newest first. */
  list(page: PageRequest): Promise<Page<StaffAuditItem>> {
    return queryPage<StaffAuditItem>(this.store, keyQueries.partition(keys.staffAuditPartition), page);
  }
}
