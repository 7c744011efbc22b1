// The cost model: the one place that says what a live send costs, in micro-dollars (1e-6 USD).
// Spend caps reserve this amount when a send is accepted, and GET /v1/usage shows it. It is an
// internal estimate for caps, not an invoice and not a plan's overage price.
//
// | channel | cost per live send                                  |
// | ------- | --------------------------------------------------- |
// | email   | EMAIL_COST_MICROS (default 100, i.e. $0.10 per 1000) |
// | webhook | 0 (a POST from our own function)                    |
// | others  | 0 (no provider in this deployment; never accepted)  |
//
// Test-mode sends cost nothing whatever their channel.
import type { Channel } from '../../accounts/schemas';

export const DEFAULT_EMAIL_COST_MICROS = 100;

export interface CostConfig {
  /** EMAIL_COST_MICROS; the default when absent. */
  emailCostMicros?: number;
}

export function costOf(config: CostConfig, send: { channel: Channel; testMode: boolean }): number {
  if (send.testMode) return 0;
  return send.channel === 'email' ? (config.emailCostMicros ?? DEFAULT_EMAIL_COST_MICROS) : 0;
}
