// Passwords: scrypt (node:crypto) with a per-user random salt, encoded with its parameters
// (`scrypt$N$r$p$salt$hash`) so they can be raised later without invalidating stored hashes; and
// the policy a new password must meet: 10 to 256 characters, not on the shipped list of common and
// breached passwords (common-passwords.json, checked case-insensitively), not one repeated
// character, not the address or its local part, not a "postbox" variant.
import { randomBytes, scrypt as scryptCallback, type ScryptOptions } from 'node:crypto';
import { safeEqualBytes } from '../crypto/crypto';
import { InvalidRequestError } from '../errors';
import commonPasswords from './common-passwords.json';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './schemas';

/** N = 2^15, r = 8: 32 MiB and tens of milliseconds per hash, well inside a 512 MB Lambda. */
export const SCRYPT_PARAMS = { N: 32768, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

const scrypt = (password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFKC'), salt, KEY_LENGTH, { ...options, maxmem: 256 * (options.N ?? 1) * (options.r ?? 8) + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = SCRYPT_PARAMS;
  const hash = await scrypt(password, salt, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** A hash of a random password no one knows: an unknown address is checked against it, so it costs what a wrong password costs. */
export const DUMMY_PASSWORD_HASH = 'scrypt$32768$8$1$4vOvVpAuLM9STB8ieIbP8A$YhVIGqDjExgln1a9sp9q6u3jQJv5hTPAJnKR_r2riio';

/** Constant-time check of a password against its encoded hash; false for anything malformed. */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = encoded.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return safeEqualBytes(actual, expected);
}

const common = new Set<string>(commonPasswords);

/** Undoes the usual letter-for-digit swaps, so "P0stb0x!" reads as "postbox!". */
const unleet = (value: string): string => value.replace(/[0@4$5311!7]/g, (ch) => ({ '0': 'o', '@': 'a', '4': 'a', $: 's', '5': 's', '3': 'e', '1': 'l', '!': 'i', '7': 't' })[ch] ?? ch);
/** What is left once digits and symbols around the letters are dropped. */
const letters = (value: string): string => value.replace(/[^a-z]/g, '');

const serviceNames = new Set(['postbox', 'mypostbox', 'postboxapp', 'postboxmail', 'postboxapi', 'postboxadmin', 'postboxpassword', 'postboxlogin']);

/** Why `password` may not be used by the owner of `email` (any owner, when not given); undefined when it may. */
export function passwordWeakness(password: string, email?: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `use at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `use at most ${MAX_PASSWORD_LENGTH} characters`;
  const lower = password.toLowerCase();
  if (/^(.)\1*$/su.test(password)) return 'a single repeated character is too easy to guess';
  if (common.has(lower)) return 'this password is on a list of common or breached passwords';
  if (email === undefined) return serviceNameIn(lower);
  const address = email.trim().toLowerCase();
  const local = address.slice(0, address.lastIndexOf('@'));
  const localLetters = letters(local);
  if (lower.includes(address) || lower === local || (localLetters.length >= 3 && letters(lower) === localLetters)) return 'do not use your email address as your password';
  return serviceNameIn(lower);
}

function serviceNameIn(lower: string): string | undefined {
  const core = lower.replace(/^[\d\W_]+|[\d\W_]+$/g, '');
  if (serviceNames.has(letters(lower)) || serviceNames.has(letters(unleet(core)))) return 'do not use the name of this service as your password';
  return undefined;
}

/** 400 invalid_request naming the field when the password does not meet the policy. */
export function assertPasswordAllowed(password: string, email?: string, field = 'body.password'): void {
  const weakness = passwordWeakness(password, email);
  if (weakness) throw new InvalidRequestError(`${field}: ${weakness}`);
}
