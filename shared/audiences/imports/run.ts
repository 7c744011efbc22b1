// Contact imports, the consumer's side: one job reads the uploaded CSV and writes it a chunk of
// CHUNK_ROWS rows at a time, carrying on in a new job after CHUNKS_PER_JOB chunks, so no request
// and no single job holds the whole import.
//
// Across a crash: each chunk's plan (its counts and errors) is stored before its contacts are
// written (the plan may take their address claims first, under ids every run of the chunk
// derives), and the import moves to the next chunk only after they are, conditional on the chunk
// it read. A run that dies re-does at most one chunk; contact writes are upserts by email, so the
// re-run creates nothing twice, and its counts are the stored plan's, so nothing is counted twice.
import { encodeTime } from 'ulid';
import { sha256Hex } from '../../crypto/crypto';
import { CsvFileError, readContactCsv, type ContactRow, type CsvRow } from './csv';
import type { ImportJob } from './messages';
import { ContactImportRepository, type ChunkPlan, type ContactImportItem } from './repository';
import { MAX_REPORTED_ERRORS, type ImportError } from './schemas';
import type { ImportDeps } from './service';
import type { ContactImportTarget } from './target';

/** Rows a chunk writes: small enough to redo after a crash, large enough to batch well. */
export const CHUNK_ROWS = 500;
/** Chunks one job writes before it hands on to the next (each job parses the file once). */
export const CHUNKS_PER_JOB = 20;

export type ImportRunResult =
  | { kind: 'missing' }
  | { kind: 'finished'; status: ContactImportItem['status'] }
  /** Another run of the import moved it on first; that run carries on. */
  | { kind: 'superseded' }
  | { kind: 'continued'; nextChunk: number }
  | { kind: 'completed'; item: ContactImportItem }
  | { kind: 'failed'; errors: ImportError[] };

/** One chunk of a job: its rows, and what the job knows around it. */
interface ChunkRun {
  chunk: number;
  rows: readonly CsvRow[];
  last: boolean;
  /** The file's rows. */
  total: number;
  /** The target's read ahead of this chunk's plan, started while the chunk before was written. */
  ahead?: Promise<unknown>;
  /** The rows of the job's next chunk, whose plan's reads this chunk starts once its own plan is stored. */
  next?: readonly CsvRow[];
}

const contactsOf = (rows: readonly CsvRow[]): ContactRow[] => rows.flatMap((r) => ('contact' in r ? [r.contact] : []));

/**
 * Starts the target's read ahead of the next chunk's plan (its claims, under the next chunk's ids),
 * without the addresses this chunk writes; one that fails is not an error (the plan does it itself).
 */
function readAhead(
  target: ContactImportTarget,
  item: ContactImportItem,
  contacts: readonly ContactRow[],
  next: { rows: readonly CsvRow[]; idFor: (email: string) => string } | undefined,
): Promise<unknown> | undefined {
  if (!target.readAhead || !next) return undefined;
  const rows = contactsOf(next.rows);
  if (rows.length === 0) return undefined;
  return target.readAhead(item.account_id, rows, new Set(contacts.map((c) => c.email)), item.list_id, next.idFor).catch(() => undefined);
}

/** What one chunk does: the rows' errors and the target's plan for the valid ones, with what the plan read. */
async function planChunk(target: ContactImportTarget, item: ContactImportItem, run: ChunkRun, at: number): Promise<{ plan: ChunkPlan; reads?: unknown }> {
  const { chunk, rows, total } = run;
  const valid = rows.flatMap((r) => ('contact' in r ? [r] : []));
  const ahead = await run.ahead;
  const idFor = (email: string): string => contactIdFor(item.id, at, email);
  const { outcomes, reads } = valid.length > 0 ? await target.planUpsert(item.account_id, valid.map((r) => r.contact), item.list_id, ahead, idFor) : { outcomes: [], reads: undefined };
  const refused = new Map(outcomes.flatMap((o, i) => (typeof o === 'object' ? [[valid[i]!.row, o.refused] as const] : [])));
  const errors = rows.flatMap((r) => ('error' in r ? [{ row: r.row, message: r.error }] : refused.has(r.row) ? [{ row: r.row, message: refused.get(r.row)! }] : []));
  const created = outcomes.filter((o) => o === 'created').length;
  const updated = outcomes.filter((o) => o === 'updated').length;
  return { plan: { chunk, total, created, updated, skipped: rows.length - created - updated, errors, at }, reads };
}

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * A chunk's plan time: the import's creation time plus the chunk's index in milliseconds. The same
 * on every run of the chunk, stored plan or not (its address claims are taken while it is planned,
 * before its plan is stored), and later chunks' contacts sort after earlier ones'.
 */
export const planTimeOf = (item: Pick<ContactImportItem, 'created_at'>, chunk: number): number => Date.parse(item.created_at) + chunk;

/**
 * The id a chunk gives the contact it creates for an address: a ULID whose time is the chunk's
 * plan time and whose random part is the first 80 bits of SHA-256(import id, address). Every run of
 * the chunk names the same contact, so a run after a crash takes back the address claims its dead
 * run took before it could store its plan or write the contacts.
 */
export function contactIdFor(importId: string, planAt: number, email: string): string {
  const bits = BigInt(`0x${sha256Hex(`${importId}\n${email}`).slice(0, 20)}`);
  let random = '';
  for (let i = 0; i < 16; i++) random = CROCKFORD[Number((bits >> BigInt(5 * i)) & 31n)]! + random;
  return `ctc_${encodeTime(planAt, 10).toLowerCase()}${random}`;
}

/** The attribute that the account's contact count keeps an import's last counted chunk in, while it runs. */
const countMark = (importId: string): string => `import_${importId}`;

/** Writes one chunk; the import as it stands after, or undefined when another run was there first. */
async function runChunk(deps: ImportDeps, target: ContactImportTarget, item: ContactImportItem, run: ChunkRun): Promise<{ item?: ContactImportItem; ahead?: Promise<unknown> }> {
  const { chunk, rows, last } = run;
  const imports = new ContactImportRepository(deps.store);
  let current: ContactImportItem | undefined = item;
  // A plan stored by a run that died during this chunk's writes is kept: its counts are the true ones.
  let plan = item.pending?.chunk === chunk ? item.pending : undefined;
  let planned: unknown;
  if (!plan) {
    ({ plan, reads: planned } = await planChunk(target, item, run, planTimeOf(item, chunk)));
    current = await imports.beginChunk(item.account_id, item.id, plan, deps.clock.now().toISOString());
    if (!current) return {};
  }
  const contacts = contactsOf(rows);
  // The next chunk's reads go on while this chunk's writes do.
  const ahead = readAhead(target, item, contacts, run.next ? { rows: run.next, idFor: (email) => contactIdFor(item.id, planTimeOf(item, chunk + 1), email) } : undefined);
  // A plan stored before plans kept their time: the import's creation time serves as well.
  const planAt = plan.at ?? Date.parse(item.created_at);
  const mark = countMark(item.id);
  const idFor = (email: string): string => contactIdFor(item.id, planAt, email);
  if (contacts.length > 0) await target.upsertContacts(item.account_id, contacts, item.list_id, { idFor, countOnce: { mark, step: chunk }, planned });
  const errors = [...current.errors, ...plan.errors].slice(0, MAX_REPORTED_ERRORS);
  const committed = await imports.commitChunk(current, plan, errors, last, deps.clock.now().toISOString());
  if (committed?.status === 'completed') await target.finished?.(item.account_id, mark);
  return { item: committed, ahead };
}

/**
 * The file this process read last, with its rows: an import's next job, when it runs here (a warm
 * Lambda, the local runtime), takes them instead of parsing the same bytes again.
 */
let lastRead: { body: Buffer; rows: readonly CsvRow[] } | undefined;

function rowsOf(body: Buffer): readonly CsvRow[] {
  if (lastRead?.body.equals(body)) return lastRead.rows;
  const rows = readContactCsv(body);
  lastRead = { body, rows };
  return rows;
}

/**
 * One job of an import: from its stored next chunk, up to CHUNKS_PER_JOB chunks, then the next
 * job is queued (or the import is completed). A file the import cannot read fails it with why.
 */
export async function runImportJob(deps: ImportDeps, target: ContactImportTarget, job: ImportJob): Promise<ImportRunResult> {
  const imports = new ContactImportRepository(deps.store);
  let item = await imports.get(job.account_id, job.import_id);
  if (!item) return { kind: 'missing' };
  if (item.status !== 'processing') return { kind: 'finished', status: item.status };
  const fail = async (errors: ImportError[]): Promise<ImportRunResult> => {
    await imports.fail(item!.account_id, item!.id, errors, deps.clock.now().toISOString());
    return { kind: 'failed', errors };
  };
  const file = await deps.objects.get(item.object_key);
  if (!file) return fail([{ row: 0, message: 'the uploaded file is gone' }]);
  let rows: readonly CsvRow[];
  try {
    rows = rowsOf(file.body);
  } catch (error) {
    if (error instanceof CsvFileError) return fail([{ row: error.row, message: `${error.message.replace(/^row \d+: /, '')}; nothing was imported` }]);
    throw error;
  }
  const chunks = Math.max(1, Math.ceil(rows.length / CHUNK_ROWS));
  const stop = Math.min(chunks, item.next_chunk + CHUNKS_PER_JOB);
  const slice = (chunk: number): readonly CsvRow[] => rows.slice(chunk * CHUNK_ROWS, (chunk + 1) * CHUNK_ROWS);
  let ahead: Promise<unknown> | undefined;
  for (let chunk = item.next_chunk; chunk < stop; chunk++) {
    const next = chunk + 1 < stop ? slice(chunk + 1) : undefined;
    const ran = await runChunk(deps, target, item, { chunk, rows: slice(chunk), last: chunk === chunks - 1, total: rows.length, ahead, next });
    if (!ran.item) return { kind: 'superseded' };
    item = ran.item;
    ahead = ran.ahead;
  }
  if (item.status === 'completed') {
    lastRead = undefined;
    return { kind: 'completed', item };
  }
  await deps.queue.send('imports', job);
  return { kind: 'continued', nextChunk: item.next_chunk };
}

/** The job's last receive failed too: the import stops as failed, keeping what it wrote and counted. */
export async function giveUpImport(deps: ImportDeps, job: ImportJob, reason: string): Promise<void> {
  const imports = new ContactImportRepository(deps.store);
  const item = await imports.get(job.account_id, job.import_id);
  if (!item || item.status !== 'processing') return;
  const errors = [...item.errors, { row: 0, message: `the import stopped after repeated failures (${reason}); ${Math.min(item.next_chunk * CHUNK_ROWS, item.total)} of ${item.total} rows were written` }].slice(-MAX_REPORTED_ERRORS);
  await imports.fail(job.account_id, job.import_id, errors, deps.clock.now().toISOString());
}
