import { describe, expect, it } from 'vitest';
import commonPasswords from '../../shared/auth/common-passwords.json';
import { DUMMY_PASSWORD_HASH, hashPassword, passwordWeakness, SCRYPT_PARAMS, verifyPassword } from '../../shared/auth/passwords';

describe('password hashes', () => {
  it('are scrypt with their parameters and a per-user salt, and verify only the right password', async () => {
    const [a, b] = await Promise.all([hashPassword('a long and unusual passphrase'), hashPassword('a long and unusual passphrase')]);

    expect(a).toMatch(new RegExp(`^scrypt\\$${SCRYPT_PARAMS.N}\\$${SCRYPT_PARAMS.r}\\$${SCRYPT_PARAMS.p}\\$[A-Za-z0-9_-]{22}\\$[A-Za-z0-9_-]{43}$`));
    expect(a).not.toBe(b);
    expect(await verifyPassword('a long and unusual passphrase', a)).toBe(true);
    expect(await verifyPassword('a long and unusual passphrasE', a)).toBe(false);
  });

  it('verify with the parameters stored in the hash, so they can be raised later', async () => {
    const weaker = 'scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA$';
    const { scryptSync } = await import('node:crypto');
    const hash = scryptSync('an older passphrase here', Buffer.from('c2FsdHNhbHRzYWx0c2FsdA', 'base64url'), 32, { N: 16384, r: 8, p: 1 }).toString('base64url');

    expect(await verifyPassword('an older passphrase here', weaker + hash)).toBe(true);
  });

  it('refuse anything malformed, and the dummy hash matches nothing a person would type', async () => {
    expect(await verifyPassword('x', 'bcrypt$whatever')).toBe(false);
    expect(await verifyPassword('x', '')).toBe(false);
    expect(await verifyPassword('password123', DUMMY_PASSWORD_HASH)).toBe(false);
    // The hash an unknown address is checked against costs what a user's does: the same parameters.
    expect(DUMMY_PASSWORD_HASH).toMatch(new RegExp(`^scrypt\\$${SCRYPT_PARAMS.N}\\$${SCRYPT_PARAMS.r}\\$${SCRYPT_PARAMS.p}\\$`));
  });
});

describe('the password policy', () => {
  const email = 'ada.lovelace@example.com';

  it('ships a list of several thousand common and breached passwords of at least 10 characters', () => {
    expect(commonPasswords.length).toBeGreaterThan(5000);
    expect(commonPasswords).toEqual(expect.arrayContaining(['1234567890', 'qwertyuiop', 'password123', 'iloveyou123', '1q2w3e4r5t']));
  });

  it.each([
    ['short1234', 'at least 10'],
    ['x'.repeat(257), 'at most 256'],
    ['Password123', 'common or breached'],
    ['QWERTYUIOP', 'common or breached'],
    ['1qaz2wsx3edc', 'common or breached'],
    ['aaaaaaaaaaaa', 'repeated'],
    ['ada.lovelace@example.com', 'email address'],
    ['Ada.Lovelace', 'email address'],
    ['adalovelace1990', 'email address'],
    ['P0stb0x2026!', 'name of this service'],
    ['postbox-password', 'name of this service'],
  ])('refuses %s', (password, why) => {
    expect(passwordWeakness(password, email)).toContain(why);
  });

  it.each(['correct horse battery staple', 'Tr0ub4dor&3-extended', 'x'.repeat(9) + 'y', 'a'.repeat(256 - 1) + 'b'])('accepts %s', (password) => {
    expect(passwordWeakness(password, email)).toBeUndefined();
  });
});
