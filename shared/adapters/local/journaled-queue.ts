// Local queues that outlive a kill. local-aws-sqs keeps its queues in memory, so a message waiting
// in one is gone when the process dies. This decorator of the Queue port writes every message to an
// append-only journal (DATA_DIR/queue-journal.jsonl) before handing it to the emulator; the local
// poller tells it which messages were deleted (`ack`) and which it moves to the DLQ (`dead`, told
// before the move, so nothing finds a message in the DLQ that the journal still holds waiting).
// At the next start, before anything polls or sends, `replay` puts every message still outstanding
// back into the fresh emulator, and the dead ones into their queue's DLQ.
//
// Durability is against a killed process, not a lost machine: appendFileSync returns once the
// kernel holds the bytes, which a `kill -9` does not undo. There is no fsync; a power loss may
// lose the last lines, as it may lose the emulator's mail file and dynalite's own writes.
//
// The journal never looks inside a message and adds no SQS attributes: an entry is its queue and
// the SHA-256 of the exact JSON string sent, with a count (the same body sent twice is two entries;
// an ack takes the oldest one). A message handed to the journal whose send then fails stays
// outstanding and is replayed after a restart: at least once, which the consumers (idempotent on a
// business id) absorb, rather than losing one that the emulator did take before failing.
//
// Journal lines, one JSON object each:
//   {"op":"send","queue":"send","at":<epoch ms>,"delay":<s>,"bodies":["<JSON body>",…]}
//   {"op":"ack","queue":"send","hashes":["<sha256 of a body>",…]}
//   {"op":"dead","queue":"send","hashes":[…]}
//   {"op":"redrive","queue":"send","at":<epoch ms>,"bodies":["<JSON body>",…]}
// A redrive (POST /v1/admin/dead-letters/{queue}/redrive) moves a message from the DLQ back to its
// queue: its line takes the oldest dead entry with that body off the journal (if there is one: a
// poison body may never have gone through it) and holds the body as sent again, so a kill -9
// after the redrive puts it back in its queue, not in the DLQ, and not in both. The poller then
// settles it as any message: `ack` once handled, `dead` again if it fails its attempts again.
// A compacted journal is written in the same lines, so it reads back to the same state.
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { sha256Hex } from '../../crypto/crypto';
import { queues, type QueueName } from '../../platform';
import type { Clock } from '../../ports/clock';
import type { Queue } from '../../ports/queue';
import type { Logger } from '../../ports/logger';

/** One message as the poller saw it: enough to find its journal entry. */
export interface JournalRecord {
  queue: QueueName;
  body: string;
}

/** Where `replay` sends: the fresh emulator's queues and their DLQs. */
export interface ReplayTarget {
  sqs: SQSClient;
  urls: Record<QueueName, string>;
  dlqUrls: Record<QueueName, string>;
}

export interface JournaledQueueOptions {
  /**
   * Compact while running once this many entries were acknowledged or dead-lettered since the last
   * compaction and they outnumber the entries still held (default 2000).
   */
  compactAfter?: number;
}

type Line =
  | { op: 'send'; queue: QueueName; at: number; delay: number; bodies: string[] }
  | { op: 'ack' | 'dead'; queue: QueueName; hashes: string[] }
  | { op: 'redrive'; queue: QueueName; at: number; bodies: string[] };

interface Entry {
  queue: QueueName;
  hash: string;
  body: string;
  /** When it was sent (epoch ms) and its delay, so a replay keeps what is left of the delay. */
  at: number;
  delay: number;
  dead: boolean;
}

/** SQS's longest delay, and how long our DLQs keep a message (provision.ts: 14 days). */
const MAX_DELAY_SECONDS = 900;
const DLQ_RETENTION_MS = 1_209_600_000;
/** SendMessageBatch: at most 10 entries and 1 MiB a request. */
const BATCH_ENTRIES = 10;
const BATCH_BYTES = 1_048_576;

const QUEUE_NAMES = new Set<string>(queues.map((q) => q.name));

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

/** A journal line as written, or undefined for anything else (a torn write, a foreign line). */
function parseLine(text: string): Line | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const line = value as Record<string, unknown>;
  if (typeof line.queue !== 'string' || !QUEUE_NAMES.has(line.queue)) return undefined;
  const queue = line.queue as QueueName;
  if (line.op === 'send' && typeof line.at === 'number' && typeof line.delay === 'number' && isStrings(line.bodies)) {
    return { op: 'send', queue, at: line.at, delay: line.delay, bodies: line.bodies };
  }
  if ((line.op === 'ack' || line.op === 'dead') && isStrings(line.hashes)) return { op: line.op, queue, hashes: line.hashes };
  if (line.op === 'redrive' && typeof line.at === 'number' && isStrings(line.bodies)) return { op: 'redrive', queue, at: line.at, bodies: line.bodies };
  return undefined;
}

/** The outstanding entries, in the order they were sent; the journal's meaning. */
class JournalState {
  private seq = 0;
  private readonly entries = new Map<number, Entry>();
  /** queue + hash → the sequence numbers of its entries still waiting (not dead), oldest first. */
  private readonly waiting = new Map<string, number[]>();

  get size(): number {
    return this.entries.size;
  }

  all(): IterableIterator<Entry> {
    return this.entries.values();
  }

  add(queue: QueueName, body: string, at: number, delay: number): void {
    const hash = sha256Hex(body);
    const seq = ++this.seq;
    this.entries.set(seq, { queue, hash, body, at, delay, dead: false });
    const key = `${queue}\n${hash}`;
    const list = this.waiting.get(key);
    if (list) list.push(seq);
    else this.waiting.set(key, [seq]);
  }

  /** Settles the oldest waiting entry with this hash; false when none waits (nothing to write). */
  settle(queue: QueueName, hash: string, outcome: 'ack' | 'dead'): boolean {
    const key = `${queue}\n${hash}`;
    const list = this.waiting.get(key);
    const seq = list?.shift();
    if (seq === undefined) return false;
    if (list?.length === 0) this.waiting.delete(key);
    const entry = this.entries.get(seq) as Entry;
    if (outcome === 'ack') this.entries.delete(seq);
    else entry.dead = true;
    return true;
  }

  /** Takes the oldest dead entry with this body off (if any) and holds the body as sent at `at`. */
  redrive(queue: QueueName, body: string, at: number): void {
    const hash = sha256Hex(body);
    for (const [seq, entry] of this.entries) {
      if (entry.dead && entry.queue === queue && entry.hash === hash) {
        this.entries.delete(seq);
        break;
      }
    }
    this.add(queue, body, at, 0);
  }

  apply(line: Line): void {
    if (line.op === 'send') for (const body of line.bodies) this.add(line.queue, body, line.at, line.delay);
    else if (line.op === 'redrive') for (const body of line.bodies) this.redrive(line.queue, body, line.at);
    else for (const hash of line.hashes) this.settle(line.queue, hash, line.op);
  }

  /** Drops dead entries the DLQ would no longer hold (SQS counts retention from the first send). */
  expireDead(now: number): void {
    for (const [seq, entry] of this.entries) if (entry.dead && entry.at + DLQ_RETENTION_MS < now) this.entries.delete(seq);
  }

  /**
   * The state as journal lines: consecutive entries sent together share a line, and the dead ones
   * of a line are marked right after it. Settling always takes the oldest waiting entry of a hash,
   * so a dead entry is older than every waiting one with its body, and the mark lands on it.
   */
  lines(): Line[] {
    const out: Line[] = [];
    let group: Extract<Line, { op: 'send' }> | undefined;
    let dead: string[] = [];
    const flush = (): void => {
      if (group) out.push(group);
      if (group && dead.length > 0) out.push({ op: 'dead', queue: group.queue, hashes: dead });
      dead = [];
    };
    for (const entry of this.entries.values()) {
      if (!group || group.queue !== entry.queue || group.at !== entry.at || group.delay !== entry.delay) {
        flush();
        group = { op: 'send', queue: entry.queue, at: entry.at, delay: entry.delay, bodies: [] };
      }
      group.bodies.push(entry.body);
      if (entry.dead) dead.push(entry.hash);
    }
    flush();
    return out;
  }
}

export class JournaledQueue implements Queue {
  private readonly state = new JournalState();
  private settledSinceCompaction = 0;

  private constructor(
    readonly file: string,
    private readonly inner: Queue,
    private readonly deps: { clock: Clock; logger: Logger },
    private readonly options: JournaledQueueOptions,
  ) {}

  /**
   * Reads the journal at `file` (none yet is an empty journal). A last line without its newline is
   * a write a kill cut short and is ignored; so is any other line that does not read back.
   */
  static open(file: string, inner: Queue, deps: { clock: Clock; logger: Logger }, options: JournaledQueueOptions = {}): JournaledQueue {
    const journal = new JournaledQueue(file, inner, deps, options);
    if (!existsSync(file)) return journal;
    const text = readFileSync(file, 'utf8');
    const rows = text.split('\n');
    rows.forEach((row, i) => {
      if (row.trim() === '') return;
      const line = parseLine(row);
      if (line) journal.state.apply(line);
      else if (i === rows.length - 1) deps.logger.warn('queue journal: ignoring a torn last line (a write cut short)', { file, chars: row.length });
      else deps.logger.error('queue journal: ignoring a line that does not read back', { file, line: i + 1, text: row.slice(0, 200) });
    });
    return journal;
  }

  /** How many messages the journal holds: waiting (sent, not yet acknowledged) and dead. */
  outstanding(): { waiting: number; dead: number } {
    let dead = 0;
    for (const entry of this.state.all()) if (entry.dead) dead++;
    return { waiting: this.state.size - dead, dead };
  }

  async send(queue: QueueName, body: unknown, options: { delaySeconds?: number } = {}): Promise<void> {
    this.record(queue, [JSON.stringify(body)], options.delaySeconds ?? 0);
    await this.inner.send(queue, body, options);
  }

  async sendBatch(queue: QueueName, bodies: readonly unknown[]): Promise<void> {
    this.record(
      queue,
      bodies.map((b) => JSON.stringify(b)),
      0,
    );
    await this.inner.sendBatch(queue, bodies);
  }

  /**
   * Journals messages about to be sent (their exact JSON strings) without sending them: for a
   * sender on another thread (journal-link.ts), which sends them itself once this returns.
   */
  record(queue: QueueName, bodies: readonly string[], delaySeconds = 0): void {
    if (bodies.length > 0) this.append({ op: 'send', queue, at: this.now(), delay: delaySeconds, bodies: [...bodies] });
  }

  /** The poller deleted these: they are done. */
  acknowledge(records: readonly JournalRecord[]): void {
    this.settle(records, 'ack');
  }

  /** These failed their last attempt: the poller moves them to the queue's DLQ once this returns. */
  deadLettered(records: readonly JournalRecord[]): void {
    this.settle(records, 'dead');
  }

  /** This DLQ message is about to go back to its queue: journaled first, as a send is. */
  redriven(queue: QueueName, body: string): void {
    this.append({ op: 'redrive', queue, at: this.now(), bodies: [body] });
  }

  /**
   * Puts every outstanding message into the (fresh, empty) emulator: waiting ones into their queue
   * with what is left of their delay, dead ones into the queue's DLQ. Then compacts the journal.
   * Call it once at start, before any poller runs and before anything else sends.
   */
  async replay(target: ReplayTarget): Promise<{ waiting: number; dead: number }> {
    const now = this.now();
    const byUrl = new Map<string, Array<{ body: string; delay: number }>>();
    for (const entry of this.state.all()) {
      const url = entry.dead ? target.dlqUrls[entry.queue] : target.urls[entry.queue];
      const delay = entry.dead ? 0 : Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(entry.delay - (now - entry.at) / 1000)));
      const list = byUrl.get(url) ?? [];
      list.push({ body: entry.body, delay });
      byUrl.set(url, list);
    }
    for (const [url, messages] of byUrl) {
      for (const batch of batches(messages)) {
        const out = await target.sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: url,
            Entries: batch.map((m, i) => ({ Id: String(i), MessageBody: m.body, DelaySeconds: m.delay })),
          }),
        );
        // A start that cannot put its queues back must say so, not run on without them.
        if (out.Failed?.length) throw new Error(`queue journal replay: ${out.Failed.length} messages refused by ${url}: ${out.Failed[0]?.Message ?? ''}`);
      }
    }
    this.compact();
    const counts = this.outstanding();
    if (counts.waiting + counts.dead > 0) this.deps.logger.info('queue journal replayed', { file: this.file, ...counts });
    return counts;
  }

  /**
   * Rewrites the journal as the entries still outstanding. Written beside it and renamed over it,
   * so a kill during compaction leaves the old journal or the new one, never half of one.
   */
  compact(): void {
    this.state.expireDead(this.now());
    const tmp = `${this.file}.tmp`;
    // A leftover from a compaction a kill cut short: replaced whole, so it gets our mode too.
    rmSync(tmp, { force: true });
    writeFileSync(tmp, this.state.lines().map((line) => `${JSON.stringify(line)}\n`).join(''), { mode: 0o600 });
    renameSync(tmp, this.file);
    this.settledSinceCompaction = 0;
  }

  private settle(records: readonly JournalRecord[], outcome: 'ack' | 'dead'): void {
    const settled = new Map<QueueName, string[]>();
    for (const record of records) {
      const hash = sha256Hex(record.body);
      // A message that never went through the journal (or was settled already) has nothing to mark.
      if (!this.state.settle(record.queue, hash, outcome)) continue;
      const hashes = settled.get(record.queue);
      if (hashes) hashes.push(hash);
      else settled.set(record.queue, [hash]);
    }
    if (settled.size === 0) return;
    this.write([...settled].map(([queue, hashes]): Line => ({ op: outcome, queue, hashes })));
    for (const hashes of settled.values()) this.settledSinceCompaction += hashes.length;
    const threshold = this.options.compactAfter ?? 2000;
    if (this.settledSinceCompaction >= threshold && this.settledSinceCompaction > this.state.size) this.compact();
  }

  private append(line: Line): void {
    this.write([line]);
    this.state.apply(line);
  }

  private write(lines: readonly Line[]): void {
    appendFileSync(this.file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''), { mode: 0o600 });
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }
}

/** SendMessageBatch-sized groups: at most 10 messages and 1 MiB of bodies each. */
function* batches<T extends { body: string }>(messages: readonly T[]): Generator<T[]> {
  let batch: T[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = Buffer.byteLength(message.body);
    if (batch.length > 0 && (batch.length === BATCH_ENTRIES || bytes + size > BATCH_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(message);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}
