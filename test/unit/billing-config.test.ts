// Billing's settings and plans: the Stripe keys, price ids and the test-only API base as the
// runtimes read them; the composition root builds the Stripe adapter only when both keys are set
// (the stack's placeholder counts as unset); the plans' volumes and annual prices.
import { describe, expect, it } from 'vitest';
import { StripePayments } from '../../shared/adapters/stripe-payments';
import { allotmentOf, plans } from '../../shared/billing/plans';
import { UNSET_SECRET, type SecretName } from '../../shared/platform';
import { ConfigError, readAwsConfig, readLocalSettings, type RuntimeConfig } from '../../shared/runtime/config';
import { buildContainer } from '../../shared/runtime/container';
import { createLogger } from '../../shared/adapters/logger';

describe('billing settings', () => {
  it('reads the Stripe keys, one price id per plan and period, and the API base locally', () => {
    const s = readLocalSettings({
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
      STRIPE_PRICE_PRO_YEAR: 'price_pro_year',
      STRIPE_PRICE_STARTER_MONTH: ' price_starter_month ',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
    });
    expect(s.stripeSecrets).toEqual({ 'stripe-secret-key': 'sk_test_1', 'stripe-webhook-secret': 'whsec_1' });
    expect(s.billing).toEqual({ prices: { pro_year: 'price_pro_year', starter_month: 'price_starter_month' }, apiBase: 'http://127.0.0.1:12111' });
  });

  it('refuses an API base that is not an http(s) URL', () => {
    expect(() => readLocalSettings({ STRIPE_API_BASE: 'ftp://x' })).toThrow(ConfigError);
    expect(() => readLocalSettings({ STRIPE_API_BASE: 'not a url' })).toThrow(/STRIPE_API_BASE/);
  });

  it('reads the price ids in AWS and never the API base there', () => {
    const config = readAwsConfig({ TABLE_NAME: 't', STRIPE_PRICE_SCALE_MONTH: 'price_scale', STRIPE_API_BASE: 'http://127.0.0.1:1', SECRET_ARN_STRIPE_SECRET_KEY: 'arn:stripe' });
    expect(config.billing).toEqual({ prices: { scale_month: 'price_scale' } });
    expect(config.secrets).toEqual({ kind: 'aws', arns: { 'stripe-secret-key': 'arn:stripe' } });
  });
});

describe('the composition root', () => {
  const configWith = (values: Partial<Record<SecretName, string>>): RuntimeConfig => ({
    ...readAwsConfig({ TABLE_NAME: 't' }),
    runtime: 'local',
    secrets: { kind: 'static', values },
    billing: { prices: {}, apiBase: 'http://127.0.0.1:9' },
  });
  const build = (values: Partial<Record<SecretName, string>>) => buildContainer(configWith(values), { logger: createLogger('silent') });

  it('builds the Stripe adapter when both keys are set', async () => {
    expect((await build({ 'stripe-secret-key': 'sk_test_1', 'stripe-webhook-secret': 'whsec_1' })).payments).toBeInstanceOf(StripePayments);
  });

  it.each([
    ['no keys', {}],
    ['only the secret key', { 'stripe-secret-key': 'sk_test_1' }],
    ['only the webhook secret', { 'stripe-webhook-secret': 'whsec_1' }],
    ["the stack's placeholder", { 'stripe-secret-key': UNSET_SECRET, 'stripe-webhook-secret': 'whsec_1' }],
  ])('leaves billing unconfigured with %s', async (_name, values) => {
    expect((await build(values)).payments).toBeUndefined();
  });
});

describe('plans', () => {
  it('grant 12 months of volume as one pool by the year, at the annual promotional prices', () => {
    expect([plans.starter, plans.pro, plans.growth, plans.scale].map((p) => p.annualPriceCents / 100)).toEqual([59, 160, 340, 790]);
    expect(allotmentOf('pro', 'year')).toBe(12 * allotmentOf('pro', 'month'));
    expect(allotmentOf('free', null)).toBe(plans.free.monthlyEmails);
  });

  it('get more email for more money', () => {
    const paid = [plans.starter, plans.pro, plans.growth, plans.scale];
    for (let i = 1; i < paid.length; i++) {
      expect(paid[i]!.monthlyEmails).toBeGreaterThan(paid[i - 1]!.monthlyEmails);
      expect(paid[i]!.annualPriceCents).toBeLessThan(12 * paid[i]!.monthlyPriceCents);
    }
  });
});
