// What the Mail search index knows of a message: its terms. Pure functions shared by the writer
// (indexMailMessage) and the query parser, so a word is normalized the same way on both sides.
//
// A word is a run of letters and digits, case folded and stripped of accents (NFKD), 1 to
// MAX_WORD_CHARS long; stop words are left out. The subject's words (at most MAX_SUBJECT_TERMS
// distinct) are terms twice (`word` and `subject:word`); the body's are terms once, from its first INDEXED_TEXT_CHARS characters and at
// most MAX_BODY_TERMS distinct ones. Operator terms: `from:` and `to:` (To and Cc) of each address,
// its local part and its domain; `has:attachment`; `@<address>` (the account's own address on the
// message, for inbox scoping); `*` (every message, for queries made only of dates or stop words).
import type { MailMessageEntry } from './model';

export const MAX_WORD_CHARS = 40;
/** How much of a message's text is indexed and kept for phrase checks. */
export const INDEXED_TEXT_CHARS = 4000;
export const MAX_BODY_TERMS = 200;
export const MAX_SUBJECT_TERMS = 50;
/** Recipients (To and Cc) whose `to:` terms are written. */
export const MAX_RECIPIENT_TERMS = 20;
export const ALL_TERM = '*';
export const ATTACHMENT_TERM = 'has:attachment';
export const addressTerm = (address: string): string => `@${address.trim().toLowerCase()}`;

/** Common English words: in nearly every message, so their postings would be all postings. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be but by for from had has have he her his i if in into is it its me my no not of on or our she so ' +
    'that the their them then there these they this to was we were what when which who will with you your'
  ).split(' '),
);

/** Case folded, accents stripped, whitespace collapsed: what phrases are compared on. */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The words of `text`, in order, repeats kept (stop words too; `indexable` tells them apart). */
export function wordsOf(text: string): string[] {
  const folded = foldText(text);
  return folded ? folded.split(' ').filter((w) => w.length <= MAX_WORD_CHARS) : [];
}

export const indexable = (word: string): boolean => word.length > 0 && word.length <= MAX_WORD_CHARS && !STOP_WORDS.has(word);

/** An address's `from:`/`to:` values: the whole address, its local part, its domain. */
export function addressValues(address: string): string[] {
  const lower = address.trim().toLowerCase();
  if (!lower) return [];
  const at = lower.lastIndexOf('@');
  return at > 0 && at < lower.length - 1 ? [lower, lower.slice(0, at), lower.slice(at + 1)] : [lower];
}

/** The part of a message's text the index covers (and its search document keeps). */
export const indexedText = (text: string | null): string => (text ?? '').slice(0, INDEXED_TEXT_CHARS);

/** Every distinct term of a message. */
export function termsOf(entry: MailMessageEntry): string[] {
  const terms = new Set<string>([ALL_TERM, addressTerm(entry.address)]);
  let subject = 0;
  for (const word of wordsOf(entry.subject ?? '')) {
    if (subject >= MAX_SUBJECT_TERMS) break;
    if (!indexable(word) || terms.has(word)) continue;
    terms.add(word);
    terms.add(`subject:${word}`);
    subject++;
  }
  let body = 0;
  for (const word of wordsOf(indexedText(entry.text))) {
    if (body >= MAX_BODY_TERMS) break;
    if (!indexable(word) || terms.has(word)) continue;
    terms.add(word);
    body++;
  }
  for (const value of addressValues(entry.from ?? '')) terms.add(`from:${value}`);
  for (const address of [...entry.to, ...entry.cc].slice(0, MAX_RECIPIENT_TERMS)) for (const value of addressValues(address)) terms.add(`to:${value}`);
  if ((entry.attachment_count ?? 0) > 0) terms.add(ATTACHMENT_TERM);
  return [...terms];
}
