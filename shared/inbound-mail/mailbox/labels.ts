// Mail app labels. A thread keeps the ids of its labels; a deleted label's id is never shown (a
// thread's labels are read through the account's current labels) and is dropped from a thread the
// next time its labels are written, so deleting a label is one delete however many threads wear it.
// A new label of the same name gets a new id: it does not reappear on the old threads.
import type { Store } from '../../db/store';
import { ApiError, InvalidRequestError, NotFoundError } from '../../errors';
import { isId, type Ids } from '../../ports/ids';
import type { Clock } from '../../ports/clock';
import type { CreateLabelBody, LabelView } from './schemas';
import { MailSettingsRepository, type MailLabelItem } from './settings-repository';

/** Recorded in docs/api-decisions.md: every thread read joins its label ids to the account's labels. */
export const MAX_LABELS = 200;

export const toLabelView = (item: Pick<MailLabelItem, 'id' | 'name' | 'color' | 'created_at'>): LabelView => ({
  id: item.id,
  name: item.name,
  color: item.color,
  created_at: item.created_at,
});

export async function createLabel(deps: { store: Store; clock: Clock; ids: Ids }, accountId: string, body: CreateLabelBody): Promise<LabelView> {
  const repo = new MailSettingsRepository(deps.store);
  if ((await repo.labels(accountId)).length >= MAX_LABELS) throw new InvalidRequestError(`an account holds at most ${MAX_LABELS} labels; delete one first`);
  const label = { id: deps.ids.next('lbl'), account_id: accountId, name: body.name, color: body.color.toLowerCase(), created_at: deps.clock.now().toISOString() };
  if (!(await repo.createLabel(label))) throw new ApiError('conflict', `the account has a label named "${body.name}" already (names are compared without regard to case)`);
  return toLabelView(label);
}

/** Ordered by name, without regard to case. */
export async function listLabels(store: Store, accountId: string): Promise<LabelView[]> {
  return (await new MailSettingsRepository(store).labels(accountId)).map(toLabelView);
}

export async function deleteLabel(store: Store, accountId: string, id: string): Promise<void> {
  const repo = new MailSettingsRepository(store);
  const label = isId(id, 'lbl') ? (await repo.labels(accountId)).find((l) => l.id === id) : undefined;
  if (!label || !(await repo.deleteLabel(label))) throw new NotFoundError('label');
}
