// The Mail thread model without I/O: how a message changes its thread, and the list views a
// thread's state puts it in.
import { describe, expect, it } from 'vitest';
import { applyEntry, RECENT_REFS, SNIPPET_CHARS, viewsOf, type MailMessageEntry, type ThreadState } from '../../shared/inbound-mail/mailbox/model';

const entry = (over: Partial<MailMessageEntry> = {}): MailMessageEntry => ({
  account_id: 'acct_1',
  source: 'inbound',
  id: 'inb_1',
  thread_id: 'thr_1',
  occurred_at: '2026-01-01T10:00:00.000Z',
  from: 'alice@x.test',
  to: ['team@in.test'],
  cc: [],
  subject: 'Hello',
  text: 'first',
  address: 'Team@in.test',
  ...over,
});

const apply = (state: ThreadState | undefined, e: MailMessageEntry): ThreadState => {
  const next = applyEntry(state, e);
  if (!next) throw new Error('expected a change');
  return next;
};

describe('applyEntry', () => {
  it('starts a thread unread in the inbox, and counts a message once', () => {
    const t = apply(undefined, entry());
    expect(t).toMatchObject({ subject: 'Hello', snippet: 'first', message_count: 1, has_unread: true, folder: 'inbox', addresses: ['team@in.test'], has_outbound: false });
    expect(applyEntry(t, entry())).toBeUndefined();
  });

  it('keeps the oldest subject and the newest snippet whatever order messages are recorded in', () => {
    const newer = apply(undefined, entry({ id: 'inb_2', subject: 'Re: Hello', text: 'second', occurred_at: '2026-01-01T11:00:00.000Z' }));
    const both = apply(newer, entry());
    expect(both).toMatchObject({ subject: 'Hello', snippet: 'second', message_count: 2, first_message_at: '2026-01-01T10:00:00.000Z', last_message_at: '2026-01-01T11:00:00.000Z' });
  });

  it('cuts the snippet and squeezes its white space; participants are unique without regard to case', () => {
    const t = apply(undefined, entry({ text: `a\n\n  b ${'x'.repeat(500)}`, cc: ['ALICE@x.test', 'bob@x.test'] }));
    expect(t.snippet).toHaveLength(SNIPPET_CHARS);
    expect(t.snippet.startsWith('a b x')).toBe(true);
    expect(t.participants).toEqual(['alice@x.test', 'team@in.test', 'bob@x.test']);
  });

  it('brings an archived thread back to the inbox on new inbound mail; trash, spam and outbound mail leave the folder alone', () => {
    const base = apply(undefined, entry());
    expect(apply({ ...base, folder: 'archive' }, entry({ id: 'inb_2' })).folder).toBe('inbox');
    expect(apply({ ...base, folder: 'trash' }, entry({ id: 'inb_2' })).folder).toBe('trash');
    expect(apply({ ...base, folder: 'spam' }, entry({ id: 'inb_2' })).folder).toBe('spam');
    const sent = apply({ ...base, folder: 'archive', has_unread: false }, entry({ source: 'outbound', id: 'msg_1' }));
    expect(sent).toMatchObject({ folder: 'archive', has_unread: false, has_outbound: true });
  });

  it(`remembers the last ${RECENT_REFS} messages it counted`, () => {
    let t = apply(undefined, entry({ id: 'inb_0' }));
    for (let i = 1; i <= RECENT_REFS; i++) t = apply(t, entry({ id: `inb_${i}` }));
    expect(t.recent_refs).toHaveLength(RECENT_REFS);
    expect(applyEntry(t, entry({ id: `inb_${RECENT_REFS}` }))).toBeUndefined();
  });
});

describe('viewsOf', () => {
  const t = apply(undefined, entry());

  it('puts a thread in its folder, per address too', () => {
    expect(viewsOf(t)).toEqual(['inbox', 'inbox@team@in.test']);
  });

  it('adds starred (thread or message star) and sent, except in trash and spam', () => {
    expect(viewsOf({ ...t, starred_refs: ['inbound:inb_1'], has_outbound: true, folder: 'archive' })).toEqual([
      'archive',
      'archive@team@in.test',
      'starred',
      'starred@team@in.test',
      'sent',
      'sent@team@in.test',
    ]);
    expect(viewsOf({ ...t, starred: true, has_outbound: true, folder: 'trash' })).toEqual(['trash', 'trash@team@in.test']);
  });
});
