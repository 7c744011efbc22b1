// The Mail search's `q`: plain words, quoted phrases and the operators from:, to:, subject:,
// has:attachment, after:YYYY-MM-DD and before:YYYY-MM-DD (alone or together; every part must hold).
// Parsed into the index terms to intersect, the checks made on each candidate's search document
// (phrases, and words the index leaves out), and a time range. A word before a colon that is no
// operator is searched as text. Dates are UTC days: after: is on or after the day's start, before:
// before it. Bad input is 400 invalid_request naming `query.q`.
import { InvalidRequestError } from '../../errors';
import { ATTACHMENT_TERM, foldText, indexable, wordsOf } from './index-terms';

export const MAX_QUERY_CHARS = 500;
export const MAX_QUERY_TERMS = 12;

/** A run of folded words that must appear, in order, in the subject (or in the subject or text). */
export interface PhraseCheck {
  in: 'subject' | 'any';
  text: string;
}

export interface SearchQuery {
  /** Index terms, each a posting list; a message matches when it is in all of them. */
  terms: string[];
  checks: PhraseCheck[];
  /** ISO instants: after is inclusive, before exclusive. */
  after?: string;
  before?: string;
}

const OPERATORS = new Set(['from', 'to', 'subject', 'has', 'after', 'before']);
const bad = (message: string): InvalidRequestError => new InvalidRequestError(`query.q: ${message}`);

interface Token {
  operator?: string;
  value: string;
  quoted: boolean;
}

/** Splits q into words, "quoted phrases" and operator:value (the value may be quoted); an unclosed quote runs to the end. */
function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /([A-Za-z]+):(?:"([^"]*)"?|(\S*))|"([^"]*)"?|(\S+)/g;
  for (const m of q.matchAll(pattern)) {
    const [, op, opQuoted, opBare, phrase, word] = m;
    if (op !== undefined && OPERATORS.has(op.toLowerCase())) {
      tokens.push({ operator: op.toLowerCase(), value: (opQuoted ?? opBare ?? '').trim(), quoted: opQuoted !== undefined });
    } else if (op !== undefined) {
      tokens.push({ value: m[0].replace(/"/g, ' '), quoted: false });
    } else if (phrase !== undefined) {
      tokens.push({ value: phrase, quoted: true });
    } else {
      tokens.push({ value: word ?? '', quoted: false });
    }
  }
  return tokens;
}

/** YYYY-MM-DD as the ISO instant of that UTC day's start; 400 for anything else. */
export function dayStart(value: string, operator: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!m || !date || date.getUTCFullYear() !== Number(m[1]) || date.getUTCMonth() !== Number(m[2]) - 1 || date.getUTCDate() !== Number(m[3])) {
    throw bad(`${operator}: takes a date as YYYY-MM-DD, not "${value}"`);
  }
  return date.toISOString();
}

export function parseSearchQuery(q: string): SearchQuery {
  if (q.length > MAX_QUERY_CHARS) throw bad(`at most ${MAX_QUERY_CHARS} characters`);
  const terms = new Set<string>();
  const checks: PhraseCheck[] = [];
  let after: string | undefined;
  let before: string | undefined;

  /** Text in `where`: its indexable words are terms (prefixed for subject:); a phrase, or a word the index leaves out, is checked. */
  const text = (value: string, quoted: boolean, where: PhraseCheck['in']): void => {
    for (const w of wordsOf(value)) if (indexable(w)) terms.add(where === 'subject' ? `subject:${w}` : w);
    const folded = foldText(value);
    const leftOut = folded.split(' ').some((w) => w && !indexable(w));
    if (folded && ((quoted && folded.includes(' ')) || leftOut)) checks.push({ in: where, text: folded });
  };

  for (const token of tokenize(q)) {
    switch (token.operator) {
      case undefined:
        // A bare word is split like the index splits text: "re:plans" and "e-mail" are two words each.
        if (token.quoted) text(token.value, true, 'any');
        else for (const w of foldText(token.value).split(' ').filter(Boolean)) text(w, false, 'any');
        break;
      case 'from':
      case 'to': {
        const value = token.value.toLowerCase();
        if (!value) throw bad(`${token.operator}: needs an address, a name before the @ or a domain`);
        terms.add(`${token.operator}:${value}`);
        break;
      }
      case 'subject':
        if (!foldText(token.value)) throw bad('subject: needs a word or a "quoted phrase"');
        text(token.value, token.quoted, 'subject');
        break;
      case 'has':
        if (token.value.toLowerCase() !== 'attachment') throw bad(`has: takes only "attachment", not "${token.value}"`);
        terms.add(ATTACHMENT_TERM);
        break;
      case 'after': {
        const at = dayStart(token.value, 'after');
        after = after === undefined || at > after ? at : after;
        break;
      }
      case 'before': {
        const at = dayStart(token.value, 'before');
        before = before === undefined || at < before ? at : before;
        break;
      }
    }
  }
  if (terms.size + checks.length === 0 && after === undefined && before === undefined) throw bad('give a word, a "phrase" or an operator');
  if (terms.size + checks.length > MAX_QUERY_TERMS) throw bad(`at most ${MAX_QUERY_TERMS} words and operators`);
  return { terms: [...terms], checks, after, before };
}

/** Whether a candidate's subject and text hold every check of the query. */
export function passesChecks(checks: readonly PhraseCheck[], doc: { subject: string | null; text: string }): boolean {
  if (checks.length === 0) return true;
  const subject = ` ${foldText(doc.subject ?? '')} `;
  const all = `${subject}${foldText(doc.text)} `;
  return checks.every((c) => (c.in === 'subject' ? subject : all).includes(` ${c.text} `));
}
