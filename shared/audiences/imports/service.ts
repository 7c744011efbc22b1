// Contact imports, the API's side: POST /v1/contacts/import stores the import and queues it, and
// GET reads its progress. The imports consumer runs it (./run.ts), which is also the only code
// that parses CSV, so the API bundle carries no CSV parser.
import { ApiError, InvalidRequestError, NotFoundError } from '../../errors';
import type { Ids } from '../../ports/ids';
import type { Clock } from '../../ports/clock';
import type { ObjectStore } from '../../ports/object-store';
import type { Queue } from '../../ports/queue';
import type { Store } from '../../db/store';
import { uploadKeyOwnedBy } from '../uploads/service';
import type { ImportJob } from './messages';
import { ContactImportRepository, type ContactImportItem } from './repository';
import type { ImportView, StartImportBody } from './schemas';
import type { ContactImportTarget } from './target';

export interface ImportDeps {
  store: Store;
  objects: ObjectStore;
  queue: Queue;
  clock: Clock;
  ids: Ids;
}

export function toImportView(item: ContactImportItem): ImportView {
  return {
    id: item.id,
    status: item.status,
    total: item.total,
    created: item.created,
    updated: item.updated,
    skipped: item.skipped,
    errors: item.errors,
    created_at: item.created_at,
    completed_at: item.completed_at ?? null,
  };
}

/** 403 for a key outside the account's uploads, 404 for one inside that names nothing; list_id: 404 when the account has no such list, 422 when it is dynamic. */
export async function startImport(deps: ImportDeps, target: ContactImportTarget, accountId: string, body: StartImportBody): Promise<ImportView> {
  const owned = uploadKeyOwnedBy(accountId, body.object_key);
  if (owned === 'outside') throw new ApiError('forbidden', 'object_key is not one of this account’s uploads; use the key POST /v1/uploads answered');
  if (owned === 'unknown' || !(await deps.objects.get(body.object_key))) throw new NotFoundError('upload');
  if (body.list_id !== undefined) {
    // As POST /v1/contacts answers list_ids: 404 for a list the account lacks, 422 for a dynamic one.
    const kind = await target.listKind(accountId, body.list_id);
    if (!kind) throw new NotFoundError(`list ${body.list_id}`);
    if (kind === 'dynamic') throw new InvalidRequestError(`list ${body.list_id} is dynamic: contacts cannot be added to it (its members are the contacts its filter matches)`, { status: 422 });
  }
  const imports = new ContactImportRepository(deps.store);
  const item = await imports.create({
    id: deps.ids.next('imp'),
    account_id: accountId,
    object_key: body.object_key,
    ...(body.list_id !== undefined ? { list_id: body.list_id } : {}),
    created_at: deps.clock.now().toISOString(),
  });
  const job: ImportJob = { account_id: accountId, import_id: item.id };
  try {
    await deps.queue.send('imports', job);
  } catch (error) {
    // Never left `processing` with no job to finish it: the client sees the failure and starts again.
    await imports.fail(accountId, item.id, [{ row: 0, message: 'the import could not be queued; start it again' }], deps.clock.now().toISOString()).catch(() => undefined);
    throw error;
  }
  return toImportView(item);
}

export async function readImport(store: Store, accountId: string, importId: string): Promise<ImportView> {
  const item = await new ContactImportRepository(store).get(accountId, importId);
  if (!item) throw new NotFoundError('import');
  return toImportView(item);
}

