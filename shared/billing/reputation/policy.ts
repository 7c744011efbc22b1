// When an account's sending reputation is judged, and what it is judged against. Every tenant
// sends through one SES account, which SES reviews at a 5% bounce or 0.1% complaint rate and may
// pause at about 10% / 0.5%; these levels sit below SES's review levels so that one tenant is
// warned, then paused, before SES would act on the whole deployment (docs/api-decisions.md).
// These are the defaults; the operator sets others with REPUTATION_* (shared/runtime/config.ts).
export interface ReputationPolicy {
  /** Hours summed into the rolling window (7 days of hourly buckets). */
  windowHours: number;
  /** Fewer live email sends than this in the window: too few to judge, never warned or paused. */
  minSends: number;
  warnBounceRate: number;
  warnComplaintRate: number;
  pauseBounceRate: number;
  pauseComplaintRate: number;
}

export const defaultPolicy: ReputationPolicy = {
  windowHours: 7 * 24,
  minSends: 200,
  warnBounceRate: 0.04,
  warnComplaintRate: 0.0008,
  pauseBounceRate: 0.08,
  pauseComplaintRate: 0.003,
};

/** Where the levels come from: the runtime config (REPUTATION_*, shared/runtime/config.ts), else the defaults. */
export interface ReputationConfig {
  reputation?: ReputationPolicy;
}
export const policyOf = (config: ReputationConfig | undefined): ReputationPolicy => config?.reputation ?? defaultPolicy;

export type ReputationState = 'ok' | 'warned' | 'paused';

export interface Window {
  sends: number;
  bounces: number;
  complaints: number;
}

export const rates = (w: Window): { bounce_rate: number; complaint_rate: number } => ({
  bounce_rate: w.sends === 0 ? 0 : w.bounces / w.sends,
  complaint_rate: w.sends === 0 ? 0 : w.complaints / w.sends,
});

/** The state the window's rates call for; `ok` below the minimum send count. */
export function judge(w: Window, policy: ReputationPolicy = defaultPolicy): ReputationState {
  if (w.sends < policy.minSends) return 'ok';
  const r = rates(w);
  if (r.bounce_rate >= policy.pauseBounceRate || r.complaint_rate >= policy.pauseComplaintRate) return 'paused';
  if (r.bounce_rate >= policy.warnBounceRate || r.complaint_rate >= policy.warnComplaintRate) return 'warned';
  return 'ok';
}

/** The UTC hour of an instant, the bucket's name (YYYY-MM-DDTHH). */
export const hourOf = (at: Date): string => at.toISOString().slice(0, 13);
