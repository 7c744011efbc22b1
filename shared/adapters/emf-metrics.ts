// Counts as CloudWatch Embedded Metric Format: one JSON log line per count, whose `_aws` member
// tells CloudWatch Logs to extract the named member as a metric (namespace, dimension sets, unit).
// Lambda hands everything the function writes to stdout to its log group, where the extraction
// happens; no SDK call, no flush at the end of an invocation, nothing lost if the function then
// fails. The format: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html
import { METRICS_NAMESPACE, type CountMetric } from '../platform';
import type { Metrics } from '../ports/metrics';

export interface EmfOptions {
  /** Where each line goes; stdout in Lambda. */
  write: (line: string) => void;
  /** Milliseconds since the epoch; the line's `Timestamp`. */
  now: () => number;
  /** The stage the stack was deployed as (STAGE): the metrics' only dimension; none when unset. */
  stage?: string;
}

/** One EMF line (without its newline) recording `value` of the count `name`. */
export function emfLine(name: CountMetric, value: number, at: number, stage?: string): string {
  const dimensions = stage ? { Stage: stage } : {};
  return JSON.stringify({
    _aws: {
      Timestamp: at,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          // One dimension set: the stage's, or the empty set (the metric without dimensions).
          Dimensions: [Object.keys(dimensions)],
          Metrics: [{ Name: name, Unit: 'Count' }],
        },
      ],
    },
    ...dimensions,
    [name]: value,
  });
}

export function emfMetrics(options: EmfOptions): Metrics {
  return {
    count(name, value = 1) {
      if (!(value >= 1)) return;
      options.write(emfLine(name, value, options.now(), options.stage));
    },
  };
}

/** Lambda's: stdout, which Lambda sends line by line to the function's log group. */
export const stdoutEmfMetrics = (stage: string | undefined, now: () => number): Metrics =>
  emfMetrics({ write: (line) => process.stdout.write(`${line}\n`), now, stage });
