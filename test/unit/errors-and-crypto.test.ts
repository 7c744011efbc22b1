import { describe, expect, it } from 'vitest';
import { randomBase62, safeEqual } from '../../shared/crypto';
import { ApiError, errorStatus } from '../../shared/errors';
import { ulidIds, isId } from '../../shared/ids';
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

describe('ids', () => {
  it('are prefixed ULIDs that sort in creation order, even within one millisecond', () => {
    const ids = ulidIds(new ManualClock('2026-05-05T00:00:00Z'));
    const made = Array.from({ length: 50 }, () => ids.next('msg'));
    expect(made.every((id) => isId(id, 'msg'))).toBe(true);
    expect([...made].sort()).toEqual(made);
  });
});
