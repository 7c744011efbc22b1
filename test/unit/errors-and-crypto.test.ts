import { describe, expect, it } from 'vitest';
import { deriveKey, derivedKey, gcmOpen, gcmSeal, randomBase62, randomHex, safeEqual, safeEqualBytes } from '../../shared/crypto/crypto';
import { ApiError, errorStatus } from '../../shared/errors';
import { ulidIds, isId } from '../../shared/ports/ids';
import { ManualClock } from '../../shared/ports/clock';

describe('ApiError', () => {
  it('serializes to the envelope only, never the cause or stack', () => {
    const error = new ApiError('conflict', 'taken', { cause: new Error('db secret') });
    expect(JSON.parse(JSON.stringify(error))).toEqual({ error: { code: 'conflict', message: 'taken', status: 409 } });
  });

  it('takes its status from the one code table', () => {
    for (const [code, status] of Object.entries(errorStatus)) expect(new ApiError(code as keyof typeof errorStatus, 'x').status).toBe(status);
  });
});

describe('crypto helpers', () => {
  it('randomBase62 gives the length asked for from the alphabet, differently each time', () => {
    const a = randomBase62(40);
    expect(a).toMatch(/^[0-9A-Za-z]{40}$/);
    expect(randomBase62(40)).not.toBe(a);
  });

  it('safeEqual compares whole strings', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', 'a')).toBe(false);
  });
});

describe('the one sealing, signing and comparing pieces', () => {
  it('gcmSeal opens with the same key and associated data, and refuses any changed byte, key or data', () => {
    const key = derivedKey('a secret of the deployment', 'test/v1');
    const box = gcmSeal(key, 'hello', Buffer.from('acct_1'));
    expect(gcmOpen(key, box, Buffer.from('acct_1'))).toBe('hello');
    expect(box.iv).toHaveLength(12);
    expect(box.tag).toHaveLength(16);
    expect(() => gcmOpen(key, box, Buffer.from('acct_2'))).toThrow();
    expect(() => gcmOpen(derivedKey('another secret', 'test/v1'), box, Buffer.from('acct_1'))).toThrow();
    const flipped = Buffer.from(box.body);
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => gcmOpen(key, { ...box, body: flipped }, Buffer.from('acct_1'))).toThrow();
    expect(gcmSeal(key, 'hello', Buffer.from('acct_1')).iv.equals(box.iv)).toBe(false);
  });

  it('derivedKey is deriveKey, kept apart by label', () => {
    expect(derivedKey('s3cret', 'one').equals(deriveKey('s3cret', 'one'))).toBe(true);
    expect(derivedKey('s3cret', 'one').equals(derivedKey('s3cret', 'two'))).toBe(false);
  });

  it('safeEqualBytes is false for other bytes or another length, and randomHex gives twice its bytes in hex', () => {
    expect(safeEqualBytes(Buffer.from('abc'), Buffer.from('abc'))).toBe(true);
    expect(safeEqualBytes(Buffer.from('abc'), Buffer.from('abd'))).toBe(false);
    expect(safeEqualBytes(Buffer.from('abc'), Buffer.from('abcd'))).toBe(false);
    expect(randomHex(8)).toMatch(/^[0-9a-f]{16}$/);
    expect(randomHex(8)).not.toBe(randomHex(8));
  });
});

describe('ids', () => {
  it('are prefixed ULIDs that sort in creation order, even within one millisecond', () => {
    const ids = ulidIds(new ManualClock('2026-05-05T00:00:00Z'));
    const made = Array.from({ length: 50 }, () => ids.next('msg'));
    expect(made.every((id) => isId(id, 'msg'))).toBe(true);
    expect([...made].sort()).toEqual(made);
  });
});
