// The Mail search's intersection of posting lists, newest first. The first page of every term's
// list is read at once; the list that reaches furthest back (the rarest term; a list read to its
// end wins) drives the walk: its postings are the candidates, a batch at a time (as many as the
// caller still misses, more when earlier ones failed), and each other list decides them from the
// page in hand, or by reading on when the candidates' stretch of it is short (one Query), or else
// by a point read of the candidate's posting (one BatchGetItem for the whole batch and every list).
// A search of a rare term beside common ones therefore costs a few calls in all, never a walk of
// the common lists, and a query of common terms stops once the caller has enough. A walk makes at
// most `budget` store calls once it has decided its first batch; past it, it stops and says where
// to resume.
import type { MailIndexRepository, MailPostingItem } from './index-repository';
import { HIGHEST_SK, LOWEST_SK } from './index-repository';
import { TermList } from './search-list';

/** Where a walk goes on: strictly below `sk`, or at `sk` and below. */
export interface WalkPosition {
  sk: string;
  inclusive: boolean;
}

/** Store calls (Queries and BatchGetItems) one walk may make. */
export const WALK_BUDGET = 60;
/** The first page of each list of a query of several terms. */
const FIRST_PAGE = 25;
const MAX_PAGE = 200;
/** Keys of one BatchGetItem. */
const PROBE_KEYS = 100;
/** A posting is about 150 bytes: a stretch of a list up to this many times the candidates in it costs less to read than to probe. */
const READ_OVER_PROBE = 25;

export interface Taken {
  items: MailPostingItem[];
  /** 'end': nothing more matches; 'cut': the budget ran out (resume at `position`). */
  stop?: 'end' | 'cut';
}

export class Walk {
  private reads = 0;
  private readonly lists: TermList[];
  private driver?: TermList;
  /** Candidates decided and not yet handed out, in order. */
  private decided: Array<{ posting: MailPostingItem; match: boolean }> = [];
  private tried = 0;
  private matched = 0;
  private ended = false;
  /** Where the walk is: every posting above it has been handed out or refused. */
  position: WalkPosition;

  constructor(
    private readonly repo: MailIndexRepository,
    private readonly accountId: string,
    terms: readonly string[],
    private readonly range: { after?: string; before?: string },
    // `before` is exclusive by itself: a posting of that very instant sorts after the bare instant.
    readonly start: WalkPosition = { sk: range.before ?? HIGHEST_SK, inclusive: true },
    private readonly budget = WALK_BUDGET,
  ) {
    this.lists = [...new Set(terms)].map((t) => new TermList(t));
    this.position = start;
    // after: later than before: (or a resumed walk below after:) finds nothing, and the store refuses such a range.
    this.ended = start.sk < this.bottom;
  }

  /** Store calls made so far. */
  get calls(): number {
    return this.reads;
  }

  private get bottom(): string {
    return this.range.after ?? LOWEST_SK;
  }

  /** Up to `n` postings found in every list, newest first, from where the walk is. */
  async take(n: number): Promise<Taken> {
    const items: MailPostingItem[] = [];
    for (;;) {
      while (items.length < n && this.decided.length > 0) {
        const { posting, match } = this.decided.shift()!;
        if (match) items.push(posting);
        this.position = { sk: posting.sk, inclusive: false };
      }
      if (items.length >= n) return { items };
      if (this.ended) {
        this.position = { sk: LOWEST_SK, inclusive: false };
        return { items, stop: 'end' };
      }
      if (this.spent()) return { items, stop: 'cut' };
      await this.step(n - items.length);
    }
  }

  /** The budget is spent; a walk decides one batch whatever it costs, so a resumed walk always gets on. */
  private spent(): boolean {
    return this.reads >= this.budget && this.tried > 0;
  }

  /** Candidates seem to match at this rate (1 until some were tried). */
  private rate(): number {
    return (this.matched + 1) / (this.tried + 1);
  }

  private async step(missing: number): Promise<void> {
    if (!this.driver) return this.begin(missing);
    const driver = this.driver;
    if (driver.unread === 0) {
      if (driver.complete(this.bottom)) this.ended = true;
      else await this.read(driver, this.bottom, Math.min(MAX_PAGE, Math.ceil(missing / this.rate())));
      return;
    }
    const others = this.lists.filter((l) => l !== driver);
    const size = Math.max(1, Math.min(Math.ceil(missing / this.rate()), Math.floor(PROBE_KEYS / Math.max(1, others.length))));
    const batch = driver.peek(size);
    if (!(await this.decide(batch, others))) return;
    driver.consume(batch.length);
    for (const posting of batch) {
      const match = others.every((l) => l.holds(posting.sk));
      this.decided.push({ posting, match });
      this.tried++;
      if (match) this.matched++;
    }
  }

  /** The first page of every list, at once; the one reaching furthest back drives. */
  private async begin(missing: number): Promise<void> {
    const size = this.lists.length === 1 ? Math.min(MAX_PAGE, Math.max(1, missing)) : FIRST_PAGE;
    await Promise.all(this.lists.map((l) => this.read(l, this.bottom, size)));
    this.driver = this.lists.reduce((a, b) => (b.low < a.low ? b : a));
  }

  /** Settles every other list's say on the batch; false when the budget ran out first. */
  private async decide(batch: readonly MailPostingItem[], others: readonly TermList[]): Promise<boolean> {
    for (;;) {
      const open = others.map((list) => ({ list, sks: batch.filter((p) => !list.knows(p.sk)).map((p) => p.sk) })).filter((o) => o.sks.length > 0);
      if (open.length === 0) return true;
      if (this.spent()) return false;
      const probes: Array<{ list: TermList; sk: string }> = [];
      const work: Promise<void>[] = [];
      for (const { list, sks } of open) {
        const oldest = sks[sks.length - 1]!;
        const expected = list.expectedDown(oldest);
        if (expected !== undefined && expected <= MAX_PAGE && expected <= READ_OVER_PROBE * sks.length) work.push(this.read(list, oldest, MAX_PAGE));
        else probes.push(...sks.map((sk) => ({ list, sk })));
      }
      if (probes.length > 0) work.push(this.probe(probes));
      await Promise.all(work);
    }
  }

  /** The next page of a list, down to `from` at most. */
  private async read(list: TermList, from: string, limit: number): Promise<void> {
    this.reads++;
    const last = list.lastSk;
    const page =
      last === undefined && this.start.inclusive
        ? await this.repo.postings(this.accountId, list.term, { from, to: this.start.sk, limit })
        : await this.repo.postings(this.accountId, list.term, { from, to: this.start.sk, after: last ?? this.start.sk, limit });
    list.add(page.items, page.more, from);
  }

  /** Whether each candidate has a posting in the list, by point reads. */
  private async probe(probes: ReadonlyArray<{ list: TermList; sk: string }>): Promise<void> {
    this.reads += Math.ceil(probes.length / PROBE_KEYS);
    const found = await this.repo.postingsAt(
      this.accountId,
      probes.map((p) => ({ term: p.list.term, sk: p.sk })),
    );
    for (const p of probes) p.list.probed(p.sk, found.has(`${p.list.term}\n${p.sk}`));
  }
}
