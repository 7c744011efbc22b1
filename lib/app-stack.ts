// The Postbox stack. It iterates the manifest: every function, route and queue consumer comes
// from functions/manifest.ts, so the stack never names a particular function.
import { fileURLToPath } from 'node:url';
import { CfnOutput, Duration, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { functions as manifestFunctions } from '../functions/manifest';
import { gatewayRoutes, queues as manifestQueues, type FunctionDef, type QueueDef, type QueueName, type SecretName } from '../shared/platform';
import { readReputationPolicy } from '../shared/runtime/config';
import { DEFAULT_SHARED_EMAIL_SENDER, envNames } from '../shared/runtime/env-names';
import { Api } from './constructs/api';
import { DataTable } from './constructs/data-table';
import { InboundMail } from './constructs/inbound';
import { MailEvents } from './constructs/mail-events';
import { ManifestFunction } from './constructs/manifest-function';
import { Observability } from './constructs/observability';
import { pascalCase } from './constructs/names';
import { grantNeeds, type SharedResources } from './constructs/needs';
import { Queues } from './constructs/queues';
import { SchedulerGroup } from './constructs/scheduler';
import { AppSecrets } from './constructs/secrets';
import { Storage } from './constructs/storage';

const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The most resources the stack may make, with every option on: CloudFormation refuses a stack past
 * 500, and this leaves room to see the end coming. Raised from 400 when the dead-letter routes and
 * the alarms brought the fullest stack to 401 (113 routes of them); the next step past it is a
 * nested stack for the API's routes (docs/api-decisions.md).
 */
export const STACK_RESOURCE_BUDGET = 440;
const LOG_RETENTION = logs.RetentionDays.ONE_MONTH;

export interface AppStackProps extends StackProps {
  stage: string;
  /** Defaults to the manifest; tests pass variants (e.g. an extra queue consumer). */
  functions?: readonly FunctionDef[];
  queues?: readonly QueueDef[];
  /** The sandbox sender address (SHARED_EMAIL_SENDER). */
  sharedEmailSender?: string;
  /** SES receiving (context `-c inbound=true`, only where SES receives mail): receipt rules and the inbound routes. */
  inbound?: boolean;
  /** Context `trackingDomain`: the custom redirect domain of tracked mail's links and pixel. */
  trackingDomain?: string;
  /** Stripe price ids by their settings' names (STRIPE_PRICE_PRO_YEAR, …), handed to the functions that bill. */
  stripePrices?: Record<string, string>;
  /** OAuth apps' client ids by their settings' names (OAUTH_GITHUB_CLIENT_ID, …), handed to the functions granted the client secrets. */
  oauthClientIds?: Record<string, string>;
}

export class AppStack extends Stack {
  readonly api: Api;
  readonly shared: SharedResources;
  /** Manifest name → its function construct. */
  readonly functions = new Map<string, ManifestFunction>();
  /** SES receiving; undefined without `inbound`, or while the stack has no inbound queue. */
  readonly inbound?: InboundMail;
  readonly observability: Observability;

  constructor(scope: Construct, id: string, props: AppStackProps) {
    super(scope, id, { description: `Postbox messaging API (${props.stage})`, ...props });
    Tags.of(this).add('app', 'postbox');
    Tags.of(this).add('stage', props.stage);

    const functionDefs = props.functions ?? manifestFunctions;
    const queues = new Queues(this, 'Queues', { definitions: props.queues ?? manifestQueues });
    this.shared = {
      table: new DataTable(this, 'Data'),
      queues,
      secrets: new AppSecrets(this, 'Secrets', { names: secretNames(functionDefs), stage: props.stage }),
      mail: new MailEvents(this, 'MailEvents', { eventsQueue: queues.queue('ses-events'), trackingDomain: props.trackingDomain }),
      scheduler: new SchedulerGroup(this, 'Scheduler', { targets: queues.all() }),
      storage: new Storage(this, 'Storage'),
    };
    const { shared } = this;
    this.api = new Api(this, 'Api', { stage: props.stage, logRetention: LOG_RETENTION });

    const environment: Record<string, string> = {
      [envNames.runtime]: 'aws',
      [envNames.stage]: props.stage,
      [envNames.logLevel]: 'info',
      [envNames.sharedEmailSender]: props.sharedEmailSender ?? DEFAULT_SHARED_EMAIL_SENDER,
    };
    this.inbound = props.inbound ? this.receiveMail(queues, props.queues ?? manifestQueues, props.stage) : undefined;
    // The deployment-gated inbound routes answer only where the stack receives mail.
    if (this.inbound) environment.INBOUND_ENABLED = 'true';

    assertSingleDefaultRoute(functionDefs);
    const reputationLevels = reputationContext(this);
    for (const def of functionDefs) {
      const target = new ManifestFunction(this, pascalCase(def.name), {
        def,
        projectRoot: PROJECT_ROOT,
        environment,
        logRetention: LOG_RETENTION,
      });
      this.functions.set(def.name, target);
      grantNeeds(target, def.needs, shared);
      if (def.defaultRoute) this.api.addDefaultRoute({ name: def.name, fn: target.fn });
      // A consumer that mails links (unsubscribe links of marketing mail) learns the origin too.
      if (def.needs.links) target.fn.addEnvironment(envNames.publicBaseUrl, this.api.publicBaseUrl);
      if (def.needs.reputation) for (const [name, value] of Object.entries(reputationLevels)) target.fn.addEnvironment(name, value);
      if (def.needs.billing) for (const [name, price] of Object.entries(props.stripePrices ?? {})) target.fn.addEnvironment(name, price);
      if (def.needs.secrets?.some((secret) => secret.startsWith('oauth-'))) for (const [name, id] of Object.entries(props.oauthClientIds ?? {})) target.fn.addEnvironment(name, id);
      if (def.queue) consumeQueue(target, queues, def.queue);
      if (def.every) runEvery(this, target, def.every.minutes);
    }
    // The routes, laid out over all functions at once: a path one function serves is one ANY route.
    for (const route of gatewayRoutes(functionDefs)) this.api.addRoute(route, { name: route.fn.name, fn: this.functions.get(route.fn.name)!.fn });

    this.observability = new Observability(this, 'Observability', {
      stage: props.stage,
      queues,
      functions: [...this.functions.values()].map((target) => ({ name: target.def.name, fn: target.fn })),
      api: this.api,
    });

    if (this.inbound) new CfnOutput(this, 'InboundRuleSet', { value: this.inbound.ruleSet.receiptRuleSetName, description: 'Activate it: aws ses set-active-receipt-rule-set --rule-set-name <value>' });
    new CfnOutput(this, 'TableName', { value: shared.table.table.tableName });
    new CfnOutput(this, 'BucketName', { value: shared.storage.bucket.bucketName });
    new CfnOutput(this, 'SesConfigurationSet', { value: shared.mail.configurationSetName });
    new CfnOutput(this, 'AlarmTopic', { value: this.observability.topic.topicArn, description: 'Alarms publish here; subscribe more endpoints as needed' });
    new CfnOutput(this, 'Dashboard', { value: this.observability.dashboard.dashboard.dashboardName, description: 'The CloudWatch dashboard: send funnel, queues, API, SES reputation, alarms' });
  }

  /**
   * The receipt rules, fed into the queue named `inbound` (the inbound worker's). Until that queue
   * is defined there is nothing to notify, so no rules are made.
   */
  private receiveMail(queues: Queues, definitions: readonly QueueDef[], stage: string): InboundMail | undefined {
    const inboundQueue = definitions.find((q) => (q.name as string) === 'inbound');
    if (!inboundQueue) return undefined;
    return new InboundMail(this, 'InboundMail', { bucket: this.shared.storage.bucket, queue: queues.queue(inboundQueue.name), stage });
  }
}

function consumeQueue(target: ManifestFunction, queues: Queues, queueName: QueueName): void {
  const { def } = target;
  const queueDef = queues.definition(queueName);
  // Lambda refuses a mapping whose queue hides messages for less time than the function may run.
  if (queueDef.visibilityTimeoutSeconds < def.timeoutSeconds) {
    throw new Error(
      `Queue "${queueDef.name}" visibility timeout (${queueDef.visibilityTimeoutSeconds}s) is shorter than the timeout of its consumer "${def.name}" (${def.timeoutSeconds}s)`,
    );
  }
  target.fn.addEventSource(
    new SqsEventSource(queues.queue(queueName), {
      batchSize: queueDef.batchSize,
      maxBatchingWindow: queueDef.maxBatchingWindowSeconds > 0 ? Duration.seconds(queueDef.maxBatchingWindowSeconds) : undefined,
      // Consumers return batchItemFailures: only failed records are retried, then dead-lettered.
      reportBatchItemFailures: true,
    }),
  );
}

/** A rule that invokes the function on a fixed rate; a failed run is not retried, the next one repeats it. */
function runEvery(scope: Construct, target: ManifestFunction, minutes: number): void {
  new events.Rule(scope, `${pascalCase(target.def.name)}Every`, {
    description: `Runs ${target.def.name} every ${minutes} minute(s)`,
    schedule: events.Schedule.rate(Duration.minutes(minutes)),
    targets: [new eventTargets.LambdaFunction(target.fn, { retryAttempts: 0 })],
  });
}

/**
 * The reputation levels the operator set as context, by their settings' names
 * (`-c REPUTATION_PAUSE_BOUNCE_RATE=0.06`), handed to the functions whose needs list `reputation`.
 * Levels that would refuse every cold start refuse the synth instead.
 */
function reputationContext(scope: Construct): Record<string, string> {
  const levels: Record<string, string> = {};
  for (const name of Object.values(envNames.reputation)) {
    const value: unknown = scope.node.tryGetContext(name);
    if (typeof value === 'number' || (typeof value === 'string' && value.trim() !== '')) levels[name] = String(value).trim();
  }
  readReputationPolicy(levels);
  return levels;
}

function secretNames(defs: readonly FunctionDef[]): SecretName[] {
  return [...new Set(defs.flatMap((def) => def.needs.secrets ?? []))];
}

function assertSingleDefaultRoute(defs: readonly FunctionDef[]): void {
  const owners = defs.filter((def) => def.defaultRoute).map((def) => def.name);
  if (owners.length > 1) throw new Error(`Only one function may own the $default route; found: ${owners.join(', ')}`);
}
