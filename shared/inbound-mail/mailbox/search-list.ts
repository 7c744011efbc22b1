// One term's posting list as a search walk knows it (shared/inbound-mail/mailbox/search-walk.ts):
// the postings read so far, newest first from the walk's start down to `low` (every posting at or
// above `low` is among them), and the answers of point reads below that.
import type { MailPostingItem } from './index-repository';
import { HIGHEST_SK } from './index-repository';

/** Milliseconds of a posting's sort key (`<occurred_at>#<source>#<id>`). */
function timeOf(sk: string): number {
  const hash = sk.indexOf('#');
  return Date.parse(hash >= 0 ? sk.slice(0, hash) : sk);
}

export class TermList {
  private readonly items: MailPostingItem[] = [];
  private readonly held = new Set<string>();
  /** Point reads below `low`: whether the posting is there. */
  private readonly probes = new Map<string, boolean>();
  /** Postings handed to the walk as candidates (this list driving). */
  private at = 0;
  /** Every posting at or above this sort key has been read. */
  low = HIGHEST_SK;

  constructor(readonly term: string) {}

  get lastSk(): string | undefined {
    return this.items[this.items.length - 1]?.sk;
  }

  /** A page read down to `from` at most: when it is the last, the list is known down to `from`. */
  add(page: readonly MailPostingItem[], more: boolean, from: string): void {
    for (const p of page) {
      this.items.push(p);
      this.held.add(p.sk);
    }
    const last = page[page.length - 1];
    this.low = more && last ? last.sk : from;
  }

  /** Whether the list has been read to the range's bottom. */
  complete(bottom: string): boolean {
    return this.low <= bottom;
  }

  knows(sk: string): boolean {
    return sk >= this.low || this.probes.has(sk);
  }

  holds(sk: string): boolean {
    return this.held.has(sk) || this.probes.get(sk) === true;
  }

  probed(sk: string, found: boolean): void {
    this.probes.set(sk, found);
  }

  /** About how many postings lie between `low` and `sk`, at the density of those read; undefined when too few were read to say. */
  expectedDown(sk: string): number | undefined {
    const first = this.items[0];
    const last = this.items[this.items.length - 1];
    if (!first || !last || this.items.length < 2) return undefined;
    const span = timeOf(first.sk) - timeOf(last.sk);
    const gap = timeOf(this.low) - timeOf(sk);
    if (!(span > 0) || !(gap >= 0)) return undefined;
    return ((this.items.length - 1) * gap) / span;
  }

  /** Read postings not yet handed out as candidates. */
  get unread(): number {
    return this.items.length - this.at;
  }

  peek(n: number): MailPostingItem[] {
    return this.items.slice(this.at, this.at + n);
  }

  consume(n: number): void {
    this.at += n;
  }
}
