// The threading headers of a Mail app reply: In-Reply-To and References from the message replied
// to, within SES's header bound, and the subjects of replies and forwards.
import { describe, expect, it } from 'vitest';
import { forwardSubject, messageIdsOf, referencesFor, replyHeaders, replySubject } from '../../shared/inbound-mail/mailbox/compose-headers';
import { MAX_HEADER_CHARS } from '../../shared/sending/messages/extras';

describe('reply headers', () => {
  it('names the parent in In-Reply-To and appends its Message-ID to its References', () => {
    expect(replyHeaders({ rfc_message_id: '<b@x.test>', headers: { references: '<root@x.test>\t<a@x.test>' } })).toEqual([
      { name: 'In-Reply-To', value: '<b@x.test>' },
      { name: 'References', value: '<root@x.test> <a@x.test> <b@x.test>' },
    ]);
    // No Message-ID and no References: no headers.
    expect(replyHeaders({ rfc_message_id: null, headers: {} })).toEqual([]);
    // References on several header lines, and an id repeated.
    expect(referencesFor(messageIdsOf(['<r@x.test>', '<s@x.test> <r@x.test>']), '<s@x.test>')).toBe('<r@x.test> <s@x.test>');
  });

  it('cuts References from the oldest end past SES’s bound, keeping the first and the newest', () => {
    const ids = Array.from({ length: 60 }, (_, i) => `<message-${String(i).padStart(3, '0')}@sender.example>`);
    const value = referencesFor(ids.slice(0, -1), ids.at(-1)!) as string;
    expect('References'.length + value.length).toBeLessThanOrEqual(MAX_HEADER_CHARS);
    const kept = value.split(' ');
    expect(kept[0]).toBe(ids[0]);
    expect(kept.at(-1)).toBe(ids.at(-1));
    expect(kept.slice(1)).toEqual(ids.slice(ids.length - kept.length + 1));
    expect(kept.length).toBeGreaterThan(2);
  });

  it('leaves out ids SES would refuse in a header (non-ASCII, too long)', () => {
    expect(messageIdsOf('<ok@x.test> <ünï@x.test>')).toEqual(['<ok@x.test>']);
    const huge = `<${'a'.repeat(1000)}@x.test>`;
    expect(replyHeaders({ rfc_message_id: huge, headers: { references: '<root@x.test>' } })).toEqual([{ name: 'References', value: '<root@x.test>' }]);
  });

  it('makes the subjects: Re: once, Fwd: always', () => {
    expect(replySubject('Plans')).toBe('Re: Plans');
    expect(replySubject('RE: Plans')).toBe('RE: Plans');
    expect(replySubject(null)).toBe('Re: ');
    expect(forwardSubject('Re: Plans')).toBe('Fwd: Re: Plans');
  });
});
