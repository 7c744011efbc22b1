// The cost model (shared/billing/usage/cost.ts): the one price list spend caps and usage read.
import { describe, expect, it } from 'vitest';
import { channels } from '../../shared/accounts/schemas';
import { costOf, DEFAULT_EMAIL_COST_MICROS } from '../../shared/billing/usage/cost';
import { readLocalSettings } from '../../shared/runtime/config';

describe('costOf', () => {
  it('prices a live email at EMAIL_COST_MICROS, 100 by default', () => {
    expect(costOf({}, { channel: 'email', testMode: false })).toBe(DEFAULT_EMAIL_COST_MICROS);
    expect(DEFAULT_EMAIL_COST_MICROS).toBe(100);
    expect(costOf({ emailCostMicros: 250 }, { channel: 'email', testMode: false })).toBe(250);
    expect(readLocalSettings({ DATA_DIR: '/tmp/x' }).emailCostMicros).toBe(DEFAULT_EMAIL_COST_MICROS);
  });

  it('prices every other channel at 0, and every test-mode send at 0', () => {
    for (const channel of channels) {
      expect(costOf({ emailCostMicros: 250 }, { channel, testMode: true })).toBe(0);
      if (channel !== 'email') expect(costOf({ emailCostMicros: 250 }, { channel, testMode: false })).toBe(0);
    }
  });
});
