// The stage's CloudWatch dashboard: the send funnel from the service's own metrics (EMF lines the
// functions write, shared/adapters/emf-metrics.ts), webhook deliveries, each queue's age, depth and
// dead letters, the API, SES's reputation, and the state of every alarm. One resource, whatever
// it shows: each member the alarms group together is graphed on its own here.
import { Aws, Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, type CountMetric } from '../../shared/platform';
import type { Api } from './api';
import type { Queues } from './queues';

/** The send funnel, in order: what the API accepted, handed to SES, and what became of it. */
export const FUNNEL: readonly CountMetric[] = ['MessagesAccepted', 'MessagesSent', 'MessagesDelivered', 'MessagesBounced', 'MessagesComplained'];
export const WEBHOOK_OUTCOMES: readonly CountMetric[] = ['WebhooksDelivered', 'WebhooksFailed'];

const PERIOD = Duration.minutes(5);
const WIDTH = 12;

export interface DashboardProps {
  stage: string;
  queues: Queues;
  api: Api;
  alarms: readonly cloudwatch.IAlarm[];
}

export class Dashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: DashboardProps) {
    super(scope, id);
    const own = (name: CountMetric) =>
      new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: name, dimensionsMap: { Stage: props.stage }, statistic: 'Sum', period: PERIOD, label: name });
    const queues = props.queues.entries();
    const perQueue = (metric: (queue: (typeof queues)[number][1]) => cloudwatch.Metric) => queues.map(([name, queue]) => metric(queue).with({ label: name, period: PERIOD }));

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      // Dashboards are named account-wide, not per region: the stack's name and its region.
      dashboardName: `${Stack.of(this).stackName}-${Aws.REGION}`,
      defaultInterval: Duration.hours(24),
      widgets: [
        [
          new cloudwatch.GraphWidget({ title: 'Send funnel (live mail, per 5 minutes)', left: FUNNEL.map(own), width: WIDTH }),
          new cloudwatch.SingleValueWidget({ title: 'Send funnel over the time range', metrics: FUNNEL.map(own), setPeriodToTimeRange: true, width: WIDTH }),
        ],
        [
          new cloudwatch.GraphWidget({ title: 'Webhook deliveries (attempts)', left: WEBHOOK_OUTCOMES.map(own), width: WIDTH }),
          new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: [...props.alarms], width: WIDTH }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Queues: age of the oldest message (seconds)',
            left: perQueue((q) => q.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum' })),
            width: WIDTH,
          }),
          new cloudwatch.GraphWidget({
            title: 'Queues: messages waiting',
            left: perQueue((q) => q.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum' })),
            width: WIDTH,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Dead-letter queues: messages',
            left: queues.flatMap(([name, queue]) => {
              const dlq = queue.deadLetterQueue?.queue;
              return dlq ? [dlq.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD, label: `${name} DLQ` })] : [];
            }),
            width: WIDTH,
          }),
          new cloudwatch.GraphWidget({
            title: 'SES reputation (account)',
            left: ['Reputation.BounceRate', 'Reputation.ComplaintRate'].map(
              (metricName) => new cloudwatch.Metric({ namespace: 'AWS/SES', metricName, statistic: 'Maximum', period: Duration.hours(1), label: metricName }),
            ),
            width: WIDTH,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'API: requests and answers',
            left: [
              props.api.stage.metricCount({ statistic: 'Sum', period: PERIOD, label: 'requests' }),
              props.api.stage.metricClientError({ statistic: 'Sum', period: PERIOD, label: '4xx' }),
              props.api.stage.metricServerError({ statistic: 'Sum', period: PERIOD, label: '5xx' }),
            ],
            width: WIDTH,
          }),
          new cloudwatch.GraphWidget({
            title: 'API: latency (ms)',
            left: ['p50', 'p99'].map((statistic) => props.api.stage.metricLatency({ statistic, period: PERIOD, label: statistic })),
            width: WIDTH,
          }),
        ],
      ],
    });
  }
}
