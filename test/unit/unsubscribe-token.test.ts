// The unsubscribe token: what it binds, its shape (it rides in a URL path and a mailto local part),
// and that any change to it, or to what it binds, fails.
import { describe, expect, it } from 'vitest';
import { staticSecrets } from '../../shared/adapters/static-secrets';
import { unsubscribeHeaders, unsubscribeUrl } from '../../shared/sending/unsubscribe/links';
import { messageIdOf, tokenMatches, unsubscribeToken, type UnsubscribeRef } from '../../shared/sending/unsubscribe/token';

const SECRET = 'unsubscribe-test-secret';
const ref: UnsubscribeRef = { id: 'msg_01jabcdefghjkmnpqrstvwxyz0', account_id: 'acct_01jabcdefghjkmnpqrstvwxyz0', channel: 'email', recipient: 'ada@example.com' };

describe('unsubscribeToken', () => {
  it('is the message ULID and a 128-bit signature, lower-case base32, short enough for unsub+<token> in a local part', () => {
    const token = unsubscribeToken(SECRET, ref);

    expect(token).toMatch(/^01jabcdefghjkmnpqrstvwxyz0\.[a-z2-7]{26}$/);
    expect(`unsub+${token}`.length).toBeLessThanOrEqual(64);
    expect(unsubscribeToken(SECRET, ref)).toBe(token);
    expect(messageIdOf(token)).toBe(ref.id);
    expect(messageIdOf(token.toUpperCase())).toBe(ref.id);
  });

  it('matches only the message, account, channel and recipient it was made for, with the same key', () => {
    const token = unsubscribeToken(SECRET, ref);

    expect(tokenMatches(SECRET, token, ref)).toBe(true);
    expect(tokenMatches(SECRET, token.toUpperCase(), ref)).toBe(true);
    expect(tokenMatches('another secret', token, ref)).toBe(false);
    for (const changed of [
      { ...ref, account_id: 'acct_01jabcdefghjkmnpqrstvwxyz1' },
      { ...ref, recipient: 'bob@example.com' },
      { ...ref, channel: 'sms' as const },
      { ...ref, id: 'msg_01jabcdefghjkmnpqrstvwxyz1' },
    ]) {
      expect(tokenMatches(SECRET, token, changed)).toBe(false);
    }
  });

  it('fails with any one character changed', () => {
    const token = unsubscribeToken(SECRET, ref);
    const alphabet = '0123456789abcdefghjkmnpqrstvwxyz234567.';
    for (let i = 0; i < token.length; i++) {
      for (const ch of alphabet) {
        if (ch === token[i]) continue;
        const changed = `${token.slice(0, i)}${ch}${token.slice(i + 1)}`;
        const id = messageIdOf(changed);
        expect(tokenMatches(SECRET, changed, id ? { ...ref, id } : ref), changed).toBe(false);
      }
    }
  });

  it('names no message when malformed', () => {
    for (const bad of ['', 'not-a-token', `${'0'.repeat(26)}.${'a'.repeat(25)}`, `${'0'.repeat(26)}${'a'.repeat(27)}`, `${'i'.repeat(26)}.${'a'.repeat(26)}`, `${'0'.repeat(26)}.${'1'.repeat(26)}`, 'x'.repeat(5000)]) {
      expect(messageIdOf(bad), bad).toBeUndefined();
    }
  });
});

describe('the links', () => {
  const deps = { secrets: staticSecrets({ 'unsubscribe-signing-key': SECRET }), config: { publicBaseUrl: 'https://mail.example.com/postbox' } };

  it('are built on the configured origin, path prefix included', () => {
    expect(unsubscribeUrl(deps, ref)).toBe(`https://mail.example.com/postbox/v1/unsubscribe/${unsubscribeToken(SECRET, ref)}`);
  });

  it('leave out the mailto when the sender is not an address', () => {
    const headers = unsubscribeHeaders(deps, ref, 'not a mailbox');

    expect(headers).toEqual([
      { name: 'List-Unsubscribe', value: `<https://mail.example.com/postbox/v1/unsubscribe/${unsubscribeToken(SECRET, ref)}>` },
      { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ]);
  });

  it('refuse to be built without a configured origin', () => {
    expect(() => unsubscribeUrl({ ...deps, config: {} }, ref)).toThrow(/PUBLIC_BASE_URL/);
  });
});
