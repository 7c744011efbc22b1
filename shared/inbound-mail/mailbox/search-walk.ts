// The Mail search's intersection of posting lists, newest first. Each term's postings are read a
// page at a time from the term's partition; the walk leapfrogs: the oldest head of all lists is the
// next candidate, and every list ahead of it seeks to it with one Query (`sk <= candidate`), so a
// search reads about (matches × terms) pages of the lists, never the account's every message. A
// walk reads at most `budget` pages; past it, it stops and says where to resume.
import { HIGHEST_SK, LOWEST_SK, type MailIndexRepository, type MailPostingItem, type PostingPage } from './index-repository';

/** Where a walk goes on: strictly below `sk`, or at `sk` and below. */
export interface WalkPosition {
  sk: string;
  inclusive: boolean;
}

/** Store Queries one walk may make (each reads at most MAX_PAGE postings, about 4 read units). */
export const WALK_BUDGET = 60;
const FIRST_PAGE = 25;
const MAX_PAGE = 200;

class TermList {
  private items: MailPostingItem[] = [];
  private at = 0;
  private more = true;
  private pageSize = FIRST_PAGE;

  constructor(
    private readonly walk: Walk,
    readonly term: string,
  ) {}

  /** The head (undefined when the list is done); reads the next page when the one in hand is used up. */
  async head(): Promise<MailPostingItem | undefined> {
    if (this.at < this.items.length) return this.items[this.at];
    if (!this.more) return undefined;
    const last = this.items[this.items.length - 1];
    await this.read(last ? { sk: last.sk, inclusive: false } : this.walk.start);
    this.pageSize = Math.min(MAX_PAGE, this.pageSize * 2);
    return this.items[this.at];
  }

  /** Moves to the first posting at `sk` or below: in the page in hand, or by one Query from there. */
  async seek(sk: string): Promise<void> {
    while (this.at < this.items.length && (this.items[this.at] as MailPostingItem).sk > sk) this.at++;
    if (this.at < this.items.length || !this.more) return;
    this.pageSize = FIRST_PAGE;
    await this.read({ sk, inclusive: true });
  }

  next(): void {
    this.at++;
  }

  private async read(from: WalkPosition): Promise<void> {
    const page = await this.walk.read(this.term, from, this.pageSize);
    this.items = page.items;
    this.at = 0;
    this.more = page.more;
  }
}

export class Walk {
  private reads = 0;
  private readonly lists: TermList[];
  /** Where the walk is: every posting above it has been decided. */
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
    this.lists = terms.map((t) => new TermList(this, t));
    this.position = start;
  }

  /** Store Queries made so far. */
  get queries(): number {
    return this.reads;
  }

  async read(term: string, from: WalkPosition, limit: number): Promise<PostingPage> {
    this.reads++;
    const bound = { from: this.range.after ?? LOWEST_SK, limit };
    const page = from.inclusive
      ? await this.repo.postings(this.accountId, term, { ...bound, to: from.sk })
      : await this.repo.postings(this.accountId, term, { ...bound, to: this.start.sk, after: from.sk });
    return page;
  }

  /** The next posting in every list, newest first; 'cut' when the budget ran out first, undefined at the end. */
  async next(): Promise<MailPostingItem | 'cut' | undefined> {
    for (;;) {
      if (this.reads >= this.budget) return 'cut';
      const heads = await Promise.all(this.lists.map((l) => l.head()));
      if (heads.some((h) => h === undefined)) {
        this.position = { sk: LOWEST_SK, inclusive: false };
        return undefined;
      }
      const oldest = (heads as MailPostingItem[]).reduce((a, b) => (b.sk < a.sk ? b : a));
      this.position = { sk: oldest.sk, inclusive: true };
      if ((heads as MailPostingItem[]).every((h) => h.sk === oldest.sk)) {
        for (const l of this.lists) l.next();
        this.position = { sk: oldest.sk, inclusive: false };
        return oldest;
      }
      await Promise.all(this.lists.map((l, i) => ((heads[i] as MailPostingItem).sk > oldest.sk ? l.seek(oldest.sk) : undefined)));
    }
  }
}
