import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { ManualClock } from '../../shared/ports/clock';
import { admit } from '../../shared/rate-limit/service';
import { startTestStore, type TestStore } from '../support/store';

let t: TestStore;
beforeAll(async () => {
  t = await startTestStore();
});
afterAll(async () => t.close());

describe('admit', () => {
  it('lets exactly 10 of 30 concurrent requests through in one window', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');

    const decisions = await Promise.all(Array.from({ length: 30 }, () => admit({ store: t.store, clock }, keys.accountRateSubject('acct_concurrent'), 10)));

    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 1)).toBe(true);
    // Remaining is a snapshot taken at admission; under concurrency it is an estimate.
    expect(decisions.filter((d) => d.allowed).every((d) => d.remaining >= 0 && d.remaining <= 9)).toBe(true);
  });

  it('slides: capacity returns as each admission ages past one second', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const deps = { store: t.store, clock };
    const slide = keys.accountRateSubject('acct_slide');
    for (let i = 0; i < 10; i++) {
      expect((await admit(deps, slide, 10)).allowed).toBe(true);
      clock.advance(100); // admissions at 0, 100, ..., 900 ms
    }

    clock.set('2026-01-01T00:00:00.999Z');
    const early = await admit(deps, slide, 10);
    clock.set('2026-01-01T00:00:01.000Z');
    const first = await admit(deps, slide, 10);
    const second = await admit(deps, slide, 10);
    clock.set('2026-01-01T00:00:01.100Z');
    const third = await admit(deps, slide, 10);

    expect(early).toMatchObject({ allowed: false, retryAfterSeconds: 1, resetEpochSeconds: Math.ceil(Date.parse('2026-01-01T00:00:01.000Z') / 1000) });
    expect(first.allowed).toBe(true);
    expect(second.allowed).toBe(false);
    expect(third.allowed).toBe(true);
  });

  it('keeps subjects apart', async () => {
    const clock = new ManualClock();
    for (let i = 0; i < 10; i++) await admit({ store: t.store, clock }, keys.ipRateSubject('192.0.2.1'), 10);
    expect((await admit({ store: t.store, clock }, keys.ipRateSubject('192.0.2.2'), 10)).allowed).toBe(true);
    expect((await admit({ store: t.store, clock }, keys.ipRateSubject('192.0.2.1'), 10)).allowed).toBe(false);
  });
});
