// Storage of contact imports: one item per import with its progress. The import moves forward a
// chunk at a time, each step conditional on the chunk it read (`next_chunk`), so two runs of the
// same import never both move it, and a run that died re-does at most the one chunk it was on.
import { keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { isId } from '../../ports/ids';
import type { ImportError } from './schemas';

/** What a chunk does, decided once before its writes and kept until its progress is written. */
export interface ChunkPlan {
  chunk: number;
  total: number;
  created: number;
  updated: number;
  skipped: number;
  errors: ImportError[];
  /**
   * When the plan was made (epoch ms): the time part of the ids of the contacts the chunk creates
   * (run.ts, contactIdFor). Absent on a plan stored before it was kept.
   */
  at?: number;
}

export interface ContactImportItem extends ItemKey {
  entity: 'contact_import';
  id: string;
  account_id: string;
  object_key: string;
  list_id?: string;
  status: 'processing' | 'completed' | 'failed';
  /** The first chunk not yet written and counted. */
  next_chunk: number;
  total: number;
  created: number;
  updated: number;
  skipped: number;
  /** The first MAX_REPORTED_ERRORS, in row order. */
  errors: ImportError[];
  /** The plan of chunk `next_chunk` while its contacts are being written (see beginChunk). */
  pending?: ChunkPlan;
  created_at: string;
  updated_at: string;
  completed_at?: string;
}

export type NewContactImport = Pick<ContactImportItem, 'id' | 'account_id' | 'object_key' | 'list_id' | 'created_at'>;

export class ContactImportRepository {
  constructor(private readonly store: Store) {}

  get(accountId: string, importId: string): Promise<ContactImportItem | undefined> {
    if (!isId(importId, 'imp')) return Promise.resolve(undefined);
    return this.store.get<ContactImportItem>(keys.contactImport(accountId, importId));
  }

  async create(item: NewContactImport): Promise<ContactImportItem> {
    const stored: ContactImportItem = {
      ...keys.contactImport(item.account_id, item.id),
      entity: 'contact_import',
      ...item,
      status: 'processing',
      next_chunk: 0,
      total: 0,
      created: 0,
      updated: 0,
      skipped: 0,
      errors: [],
      updated_at: item.created_at,
    };
    await this.store.create(stored);
    return stored;
  }

  /**
   * Records what chunk `plan.chunk` will do before its contacts are written, so a run that dies
   * during the writes is counted as planned when the chunk is re-run. Undefined when the import
   * is no longer at that chunk, or another run stored its plan first (that run, or a retry of it
   * reading its plan, carries on).
   */
  async beginChunk(accountId: string, importId: string, plan: ChunkPlan, now: string): Promise<ContactImportItem | undefined> {
    const write = this.store.update<ContactImportItem>(keys.contactImport(accountId, importId), {
      expression: 'SET pending = :plan, updated_at = :now',
      // A plan already stored is another run's, perhaps with its writes done: that one is kept.
      condition: '#status = :processing AND next_chunk = :chunk AND attribute_not_exists(pending)',
      names: { '#status': 'status' },
      values: { ':plan': plan, ':now': now, ':processing': 'processing', ':chunk': plan.chunk },
    });
    return (await wrote(write)) ? await write : undefined;
  }

  /**
   * Adds the pending chunk's counts and moves to the next chunk, in one write conditional on the
   * chunk it counts; `completed` when it was the last. Undefined when another run counted it first.
   */
  async commitChunk(item: ContactImportItem, plan: ChunkPlan, errors: ImportError[], last: boolean, now: string): Promise<ContactImportItem | undefined> {
    const write = this.store.update<ContactImportItem>(keys.contactImport(item.account_id, item.id), {
      expression:
        'SET next_chunk = :next, #total = :total, created = created + :created, updated = updated + :updated, skipped = skipped + :skipped, errors = :errors, #status = :status, updated_at = :now' +
        (last ? ', completed_at = :now' : '') +
        ' REMOVE pending',
      condition: '#status = :processing AND next_chunk = :chunk',
      names: { '#status': 'status', '#total': 'total' },
      values: {
        ':next': plan.chunk + 1,
        ':total': plan.total,
        ':created': plan.created,
        ':updated': plan.updated,
        ':skipped': plan.skipped,
        ':errors': errors,
        ':status': last ? 'completed' : 'processing',
        ':now': now,
        ':processing': 'processing',
        ':chunk': plan.chunk,
      },
    });
    return (await wrote(write)) ? await write : undefined;
  }

  /** processing → failed with why; false when it had already finished. */
  fail(accountId: string, importId: string, errors: ImportError[], now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.contactImport(accountId, importId), {
        expression: 'SET #status = :failed, errors = :errors, updated_at = :now, completed_at = :now REMOVE pending',
        condition: '#status = :processing',
        names: { '#status': 'status' },
        values: { ':failed': 'failed', ':errors': errors, ':now': now, ':processing': 'processing' },
      }),
    );
  }
}
