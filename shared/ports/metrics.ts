// The service's own counts (shared/platform.ts `countMetrics`): what was accepted, sent, delivered,
// bounced and complained about, and how webhook deliveries went. Emitted as CloudWatch Embedded
// Metric Format lines in AWS (shared/adapters/emf-metrics.ts); nothing locally.
import type { CountMetric } from '../platform';

export interface Metrics {
  /** Adds `value` (1 by default) to the metric; a value below 1 emits nothing. */
  count(name: CountMetric, value?: number): void;
}

/** Metrics that go nowhere: the local runtime's, and a test's unless it records them. */
export const noMetrics: Metrics = { count: () => undefined };
