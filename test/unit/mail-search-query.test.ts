// The Mail search's pure parts: the q parser (every operator, phrases, operators alone, bad input),
// a message's index terms, the phrase checks, and mbox's separator and From-line quoting.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/errors';
import { asctime, composeMessage, mboxEntry } from '../../shared/inbound-mail/mailbox/export-mbox';
import { INDEXED_TEXT_CHARS, MAX_BODY_TERMS, MAX_SUBJECT_TERMS, termsOf } from '../../shared/inbound-mail/mailbox/index-terms';
import type { MailMessageEntry } from '../../shared/inbound-mail/mailbox/model';
import { parseSearchQuery, passesChecks } from '../../shared/inbound-mail/mailbox/search-query';

const badQ = (q: string, message: RegExp): void => {
  let caught: unknown;
  try {
    parseSearchQuery(q);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ApiError);
  expect((caught as ApiError).code).toBe('invalid_request');
  expect((caught as ApiError).status).toBe(400);
  expect((caught as ApiError).message).toMatch(/^query\.q: /);
  expect((caught as ApiError).message).toMatch(message);
};

describe('parseSearchQuery', () => {
  it('turns plain words into index terms, folded, without accents and stop words', () => {
    expect(parseSearchQuery('Invoice  CAFÉ the')).toEqual({ terms: ['invoice', 'cafe'], checks: [{ in: 'any', text: 'the' }], after: undefined, before: undefined });
    // A word with punctuation is split as the index splits text.
    expect(parseSearchQuery('re:plans e-mail').terms).toEqual(['re', 'plans', 'e', 'mail']);
  });

  it('reads every operator', () => {
    const q = parseSearchQuery('from:Alice@Sender.test to:sales subject:Plans has:attachment after:2026-01-02 before:2026-02-01');
    expect(q.terms).toEqual(['from:alice@sender.test', 'to:sales', 'subject:plans', 'has:attachment']);
    expect(q.after).toBe('2026-01-02T00:00:00.000Z');
    expect(q.before).toBe('2026-02-01T00:00:00.000Z');
    expect(q.checks).toEqual([]);
  });

  it('takes operators alone, and keeps the narrowest of repeated dates', () => {
    expect(parseSearchQuery('has:attachment')).toMatchObject({ terms: ['has:attachment'], checks: [] });
    expect(parseSearchQuery('after:2026-01-01')).toMatchObject({ terms: [], after: '2026-01-01T00:00:00.000Z' });
    expect(parseSearchQuery('after:2026-01-01 after:2026-03-01 before:2026-05-01 before:2026-04-01')).toMatchObject({
      after: '2026-03-01T00:00:00.000Z',
      before: '2026-04-01T00:00:00.000Z',
    });
  });

  it('checks quoted phrases (and subject phrases) on each candidate, beside their words as terms', () => {
    expect(parseSearchQuery('"quarterly Report" budget')).toEqual({
      terms: ['quarterly', 'report', 'budget'],
      checks: [{ in: 'any', text: 'quarterly report' }],
      after: undefined,
      before: undefined,
    });
    expect(parseSearchQuery('subject:"To Be Or Not"')).toMatchObject({ terms: [], checks: [{ in: 'subject', text: 'to be or not' }] });
    expect(parseSearchQuery('from:"alice@sender.test"').terms).toEqual(['from:alice@sender.test']);
    // An unclosed quote runs to the end.
    expect(parseSearchQuery('"open ended').checks).toEqual([{ in: 'any', text: 'open ended' }]);
  });

  it('searches a word before a colon that is no operator as text', () => {
    expect(parseSearchQuery('label:work').terms).toEqual(['label', 'work']);
  });

  it('refuses bad dates, unknown has:, empty operators, an empty query and too much', () => {
    badQ('after:2026-13-01', /after: takes a date as YYYY-MM-DD/);
    badQ('before:2026-02-30', /before:/);
    badQ('after:yesterday', /YYYY-MM-DD/);
    badQ('before:2026/01/01', /YYYY-MM-DD/);
    badQ('has:star', /has: takes only "attachment"/);
    badQ('from:', /from: needs/);
    badQ('to:""', /to: needs/);
    badQ('subject:""', /subject: needs/);
    badQ('   ', /give a word/);
    badQ('!!! ...', /give a word/);
    badQ('x'.repeat(501), /at most 500 characters/);
    badQ(Array.from({ length: 13 }, (_, i) => `word${i}`).join(' '), /at most 12/);
  });
});

describe('passesChecks', () => {
  const doc = { subject: 'Re: To be or not', text: 'The quarterly   REPORT is late.\nSorry!' };
  it('finds phrases whole-word, without regard to case, spacing or punctuation, in the subject or text', () => {
    expect(passesChecks([{ in: 'any', text: 'quarterly report' }], doc)).toBe(true);
    expect(passesChecks([{ in: 'any', text: 'quarter' }], doc)).toBe(false);
    expect(passesChecks([{ in: 'subject', text: 'to be or not' }], doc)).toBe(true);
    expect(passesChecks([{ in: 'subject', text: 'quarterly report' }], doc)).toBe(false);
    expect(passesChecks([{ in: 'any', text: 'report is late sorry' }], doc)).toBe(true);
  });
});

describe('termsOf', () => {
  const entry = (over: Partial<MailMessageEntry> = {}): MailMessageEntry => ({
    account_id: 'acct_1',
    source: 'inbound',
    id: 'inb_1',
    thread_id: 'thr_1',
    occurred_at: '2026-01-01T00:00:00.000Z',
    from: 'Alice@Sender.test',
    to: ['team@in.test'],
    cc: ['carol@other.test'],
    subject: 'The Plans',
    text: 'plans and budget, budget again',
    address: 'Team@in.test',
    ...over,
  });

  it('holds subject words twice, body words once, address operators, the inbox address and every-message term, each once', () => {
    expect(termsOf(entry()).sort()).toEqual(
      [
        '*',
        '@team@in.test',
        'plans',
        'subject:plans',
        'budget',
        'again',
        'from:alice@sender.test',
        'from:alice',
        'from:sender.test',
        'to:team@in.test',
        'to:team',
        'to:in.test',
        'to:carol@other.test',
        'to:carol',
        'to:other.test',
      ].sort(),
    );
    expect(termsOf(entry({ attachment_count: 2 }))).toContain('has:attachment');
  });

  it('indexes a bounded number of subject and body terms, from the start of the text only', () => {
    const many = Array.from({ length: 500 }, (_, i) => `w${i}x`).join(' ');
    expect(termsOf(entry({ subject: null, text: many })).filter((t) => /^w\d+x$/.test(t))).toHaveLength(MAX_BODY_TERMS);
    const longSubject = Array.from({ length: 80 }, (_, i) => `s${i}x`).join(' ');
    expect(termsOf(entry({ subject: longSubject, text: null })).filter((t) => t.startsWith('subject:'))).toHaveLength(MAX_SUBJECT_TERMS);
    const late = `${'a '.repeat(INDEXED_TEXT_CHARS / 2)}zebra`;
    expect(termsOf(entry({ text: late }))).not.toContain('zebra');
  });
});

describe('mbox', () => {
  it('writes the asctime separator, quotes From lines by one more >, ends lines in LF and each message with a blank line', () => {
    expect(asctime('2026-03-05T07:08:09.000Z')).toBe('Thu Mar  5 07:08:09 2026');
    const raw = Buffer.from('Subject: x\r\n\r\nFrom here\r\n>From there\r\n>>From afar\r\nFromage\r\n', 'latin1');
    expect(mboxEntry({ from: 'alice@sender.test', occurred_at: '2026-11-27T05:10:04.000Z', bytes: raw }).toString('latin1')).toBe(
      'From alice@sender.test Fri Nov 27 05:10:04 2026\nSubject: x\n\n>From here\n>>From there\n>>>From afar\nFromage\n\n',
    );
    expect(mboxEntry({ from: null, occurred_at: '2026-11-27T05:10:04.000Z', bytes: Buffer.from('a') }).toString()).toMatch(/^From MAILER-DAEMON /);
  });

  it('composes a text/plain message with encoded words for a non-ASCII subject', () => {
    const text = composeMessage({ id: 'msg_1', thread_id: 'thr_1', source: 'outbound', from: 'me@acme.test', to: ['a@b.test'], subject: 'Grüße', text: 'hallo', occurred_at: '2026-01-01T00:00:00.000Z' }).toString();
    expect(text).toContain(`Subject: =?UTF-8?B?${Buffer.from('Grüße').toString('base64')}?=`);
    expect(text).toContain('X-Postbox-Message-Id: msg_1');
    expect(text.endsWith(`\r\n\r\n${Buffer.from('hallo').toString('base64')}\r\n`)).toBe(true);
  });
});
