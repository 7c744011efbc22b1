// The rehearsal's reading of the template (issue 30): what CloudFormation would create from each
// resource (tables, queues, secrets), what each function, event source mapping and rate rule is,
// and what the template asks that the rehearsal cannot play (problems, which refuse the start) or
// plays differently (notes). rehearsal.ts runs what these build.
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, SetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { MappingSpec } from './event-sources';
import { environmentProblems, type FunctionSpec, type RehearsedFunction } from './lambda';
import { generateSecretString, type GenerateSecretStringSpec, type StoredSecret } from './secrets';
import { queuePolicyAdmits, readEventDestinations, readSubscriptions, type EventDestination, type Subscription } from './sns';
import {
  generatedName,
  queueResource,
  resourcesOfType,
  secretResource,
  tableResource,
  UnresolvableError,
  type CfnResource,
  type CfnTemplate,
  type PhysicalResource,
  type Resolver,
} from './template';

/** Resource types the rehearsal plays, or that need nothing played (policies, permissions). */
const REHEARSED_TYPES = new Set([
  'AWS::DynamoDB::Table',
  'AWS::SQS::Queue',
  'AWS::SecretsManager::Secret',
  'AWS::Lambda::Function',
  'AWS::Lambda::EventSourceMapping',
  'AWS::ApiGatewayV2::Api',
  'AWS::ApiGatewayV2::Route',
  'AWS::ApiGatewayV2::Integration',
  'AWS::ApiGatewayV2::Stage',
  'AWS::IAM::Role',
  'AWS::IAM::Policy',
  // Who may invoke a function, or send to a queue: only AWS services do either here.
  'AWS::Lambda::Permission',
  'AWS::SQS::QueuePolicy',
  'AWS::SNS::TopicPolicy',
  // SES event publishing through SNS to the queues (rehearsal/sns.ts).
  'AWS::SES::ConfigurationSet',
  'AWS::SES::ConfigurationSetEventDestination',
  'AWS::SNS::Topic',
  'AWS::SNS::Subscription',
  // Rate rules invoking a function (the timer runs; fireRule runs one now).
  'AWS::Events::Rule',
  // EventBridge Scheduler's groups (rehearsal/scheduler.ts).
  'AWS::Scheduler::ScheduleGroup',
  // The buckets, in s3rver behind the IAM-checking front (rehearsal/s3.ts); their policies are a note.
  'AWS::S3::Bucket',
  'AWS::S3::BucketPolicy',
  // SES receiving: the receipt rules' S3 actions, played by `receiveMail` (rehearsal/receiving.ts).
  'AWS::SES::ReceiptRuleSet',
  'AWS::SES::ReceiptRule',
]);

/**
 * Deploy-only: resources with no behaviour to play offline. CloudWatch alarms and dashboards read
 * metrics AWS publishes (Lambda, SQS, API Gateway, SES) or that CloudWatch Logs extracts from the
 * functions' EMF lines; nothing offline produces either, so they are listed in a note, not as
 * unrehearsed. (The EMF lines themselves are in the functions' logs.)
 */
const DEPLOY_ONLY_TYPES = new Set(['AWS::CloudWatch::Alarm', 'AWS::CloudWatch::Dashboard']);
/** SNS subscriptions that mail a person (alarms, `-c alarmEmail`): AWS asks the address to confirm; nothing to play offline. */
const DEPLOY_ONLY_PROTOCOLS = new Set(['email', 'email-json']);

/** An AWS::Events::Rule on a rate, invoking a function. */
export interface RuleSpec {
  logicalId: string;
  arn: string;
  everyMs: number;
  functionLogicalId: string;
}

/** What the builders below read and fill: the template, its physical resources, and what they found. */
export interface Build {
  template: CfnTemplate;
  stackName: string;
  resolver: Resolver;
  physical: Map<string, PhysicalResource>;
  /** Reasons the stack would not deploy or run as it is: the rehearsal refuses to start. */
  problems: string[];
  /** What the rehearsal plays differently from AWS, said once. */
  notes: string[];
}

/** `what()`, or undefined with its unresolvable reference recorded as a problem. */
export function attempt<T>(build: Build, what: () => T): T | undefined {
  try {
    return what();
  } catch (error) {
    if (error instanceof UnresolvableError) {
      build.problems.push(error.message);
      return undefined;
    }
    throw error;
  }
}

/** DynamoDB tables, from their template definition. */
export async function createTables(build: Build, dynamodb: DynamoDBClient): Promise<void> {
  const { template, stackName, resolver } = build;
  for (const [id, resource] of resourcesOfType(template, 'AWS::DynamoDB::Table')) {
    const props = (attempt(build, () => resolver.resolve(resource.Properties ?? {}, id)) ?? {}) as Record<string, unknown>;
    const name = typeof props.TableName === 'string' ? props.TableName : generatedName(stackName, id, 255);
    await dynamodb.send(
      new CreateTableCommand({
        TableName: name,
        AttributeDefinitions: props.AttributeDefinitions as never,
        KeySchema: props.KeySchema as never,
        BillingMode: (props.BillingMode as never) ?? 'PROVISIONED',
        ...(props.ProvisionedThroughput ? { ProvisionedThroughput: props.ProvisionedThroughput as never } : {}),
        ...(props.GlobalSecondaryIndexes ? { GlobalSecondaryIndexes: props.GlobalSecondaryIndexes as never } : {}),
        ...(props.LocalSecondaryIndexes ? { LocalSecondaryIndexes: props.LocalSecondaryIndexes as never } : {}),
      }),
    );
    for (let i = 0; i < 500; i++) {
      const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: name }));
      if (Table?.TableStatus === 'ACTIVE') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const ttl = props.TimeToLiveSpecification as { AttributeName?: string; Enabled?: boolean } | undefined;
    if (ttl?.Enabled) build.notes.push(`${id}: TimeToLiveSpecification (${ttl.AttributeName}) is not applied: dynalite has no TTL; expired items stay`);
    build.physical.set(id, tableResource(name));
  }
  for (const [id] of resourcesOfType(template, 'AWS::DynamoDB::GlobalTable')) build.problems.push(`${id}: AWS::DynamoDB::GlobalTable is not rehearsed yet`);
}

/**
 * SQS queues: all first, then their redrive policies, which name other queues' ARNs. A queue's URL
 * names the SQS endpoint, and the SDK sends to the URL's host: here the front's (`frontEndpoint`).
 */
export async function createQueues(build: Build, sqsAdmin: SQSClient, frontEndpoint: string, queueArns: Map<string, string>): Promise<void> {
  const { template, stackName, resolver, physical } = build;
  const queues = resourcesOfType(template, 'AWS::SQS::Queue');
  for (const [id, resource] of queues) {
    const props = resource.Properties ?? {};
    const fifo = props.FifoQueue === true || props.FifoQueue === 'true';
    const name = typeof props.QueueName === 'string' ? props.QueueName : generatedName(stackName, id, fifo ? 75 : 80) + (fifo ? '.fifo' : '');
    const attributes: Record<string, string> = {};
    for (const key of ['VisibilityTimeout', 'MessageRetentionPeriod', 'DelaySeconds', 'MaximumMessageSize', 'ReceiveMessageWaitTimeSeconds', 'FifoQueue', 'ContentBasedDeduplication']) {
      if (props[key] !== undefined) attributes[key] = String(props[key]);
    }
    const { QueueUrl } = await sqsAdmin.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
    const { Attributes } = await sqsAdmin.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    physical.set(id, queueResource(`${frontEndpoint}${new URL(QueueUrl!).pathname}`, Attributes!.QueueArn!));
    queueArns.set(name, Attributes!.QueueArn!);
  }
  for (const [id, resource] of queues) {
    const redrive = resource.Properties?.RedrivePolicy;
    if (redrive === undefined) continue;
    const policy = attempt(build, () => resolver.resolve(redrive, `${id}.RedrivePolicy`));
    if (policy) await sqsAdmin.send(new SetQueueAttributesCommand({ QueueUrl: physical.get(id)!.ref, Attributes: { RedrivePolicy: typeof policy === 'string' ? policy : JSON.stringify(policy) } }));
  }
}

/** Secrets, as Secrets Manager creates them from the template. */
export function createSecrets(build: Build): StoredSecret[] {
  const { template, stackName, resolver } = build;
  const secrets: StoredSecret[] = [];
  for (const [id, resource] of resourcesOfType(template, 'AWS::SecretsManager::Secret')) {
    const props = resource.Properties ?? {};
    const name = typeof props.Name === 'string' ? props.Name : generatedName(stackName, id, 512).replace(/-[A-Z0-9]{13}$/, '');
    const secret = secretResource(name);
    let value: string | undefined;
    if (props.GenerateSecretString !== undefined && props.SecretString !== undefined) build.problems.push(`${id}: GenerateSecretString and SecretString together (CloudFormation refuses)`);
    else if (props.GenerateSecretString !== undefined) value = generateSecretString(resolver.resolve(props.GenerateSecretString, `${id}.GenerateSecretString`) as GenerateSecretStringSpec);
    else if (props.SecretString !== undefined) value = attempt(build, () => resolver.string(props.SecretString, `${id}.SecretString`));
    // Neither: CloudFormation generates one with the defaults.
    else value = generateSecretString({});
    if (value !== undefined) secrets.push({ arn: secret.ref, name, value });
    build.physical.set(id, secret);
  }
  return secrets;
}

/** SNS subscriptions and SES event destinations, which name the queues and topics made above; problems and notes about them. */
export function readPublishing(build: Build): { subscriptions: Subscription[]; destinations: EventDestination[] } {
  const { template, resolver, physical } = build;
  const subscriptions = attempt(build, () => readSubscriptions(template, resolver)) ?? [];
  const destinations = attempt(build, () => readEventDestinations(template, resolver)) ?? [];
  for (const sub of subscriptions) {
    const queue = [...physical.values()].some((p) => p.attributes.QueueUrl && p.attributes.Arn === sub.endpoint);
    if (DEPLOY_ONLY_PROTOCOLS.has(sub.protocol)) build.notes.push(`${sub.logicalId}: an ${sub.protocol} subscription is deploy-only (SNS mails ${sub.endpoint} once it is confirmed); nothing is mailed offline`);
    else if (sub.protocol !== 'sqs') build.problems.push(`${sub.logicalId}: SNS subscriptions over ${sub.protocol} are not rehearsed`);
    else if (!queue) build.problems.push(`${sub.logicalId}: its Endpoint ${sub.endpoint} is not a queue of the template`);
    else if (!attempt(build, () => queuePolicyAdmits(template, resolver, sub.endpoint, sub.topicArn))) {
      build.problems.push(`${sub.logicalId}: no queue policy lets ${sub.topicArn} send to ${sub.endpoint}: SQS would refuse every notification`);
    }
  }
  for (const d of destinations) if (d.enabled && !d.topicArn) build.notes.push(`${d.logicalId}: only SNS event destinations are rehearsed`);
  return { subscriptions, destinations };
}

/** What s3rver does not play of the buckets' definitions, and how their policies are used. */
export function bucketNotes(build: Build): void {
  const unapplied = ['VersioningConfiguration', 'LifecycleConfiguration', 'LoggingConfiguration', 'BucketEncryption', 'PublicAccessBlockConfiguration', 'OwnershipControls'];
  for (const [id, resource] of resourcesOfType(build.template, 'AWS::S3::Bucket')) {
    const set = unapplied.filter((name) => resource.Properties?.[name] !== undefined);
    if (set.length) build.notes.push(`${id}: ${set.join(', ')} are not applied: s3rver keeps one version of each object, expires nothing and logs nothing`);
  }
  for (const [id] of resourcesOfType(build.template, 'AWS::S3::BucketPolicy')) {
    build.notes.push(`${id}: the bucket policy is evaluated only for SES receiving's writes (the functions' calls are checked against their roles; the front speaks plain HTTP on loopback)`);
  }
}

/** A function's definition as Lambda would run it: its asset, handler, limits, resolved environment and role. */
export function functionSpec(build: Build, id: string, resource: CfnResource, assetPaths: ReadonlyMap<string, string>): FunctionSpec | undefined {
  const { resolver, physical } = build;
  const props = resource.Properties ?? {};
  const code = props.Code as { S3Key?: unknown; ZipFile?: unknown } | undefined;
  if (code?.ZipFile !== undefined) {
    build.problems.push(`${id}: inline code (Code.ZipFile) is not rehearsed`);
    return undefined;
  }
  const key = attempt(build, () => resolver.string(code?.S3Key, `${id}.Code.S3Key`));
  const codeDirectory = key ? assetPaths.get(key) : undefined;
  if (key && !codeDirectory) build.problems.push(`${id}: Code.S3Key ${key} is no asset of the cloud assembly`);
  const variables = ((props.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {}) as Record<string, unknown>;
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) {
    const resolved = attempt(build, () => resolver.string(value, `${id}.Environment.Variables.${name}`));
    if (resolved !== undefined) environment[name] = resolved;
  }
  const roleArn = attempt(build, () => resolver.string(props.Role, `${id}.Role`));
  const roleLogicalId = [...physical.entries()].find(([, p]) => p.attributes.Arn === roleArn)?.[0];
  if (!roleLogicalId) build.problems.push(`${id}: its Role ${roleArn} is no role of the template`);
  const logGroup = (props.LoggingConfig as { LogGroup?: unknown } | undefined)?.LogGroup;
  const spec: FunctionSpec = {
    logicalId: id,
    name: physical.get(id)!.ref,
    description: typeof props.Description === 'string' ? props.Description : undefined,
    handler: String(props.Handler ?? ''),
    runtime: String(props.Runtime ?? ''),
    codeDirectory: codeDirectory ?? '',
    memoryMb: Number(props.MemorySize ?? 128),
    timeoutSeconds: Number(props.Timeout ?? 3),
    environment,
    roleLogicalId: roleLogicalId ?? '',
    logGroupName: (logGroup !== undefined ? attempt(build, () => resolver.string(logGroup, `${id}.LoggingConfig.LogGroup`)) : undefined) ?? `/aws/lambda/${physical.get(id)!.ref}`,
  };
  build.problems.push(...environmentProblems(spec));
  return spec;
}

/** The event source mappings, each from a queue of the template to one of its functions. */
export function readMappings(build: Build, functions: ReadonlyMap<string, RehearsedFunction>): MappingSpec[] {
  const { template, resolver, physical } = build;
  const mappings: MappingSpec[] = [];
  for (const [id, resource] of resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')) {
    const props = resource.Properties ?? {};
    const sourceArn = attempt(build, () => resolver.string(props.EventSourceArn, `${id}.EventSourceArn`));
    const queueId = [...physical.entries()].find(([, p]) => p.attributes.Arn === sourceArn && p.attributes.QueueUrl)?.[0];
    const functionName = attempt(build, () => resolver.string(props.FunctionName, `${id}.FunctionName`));
    const fnId = [...functions.values()].find((fn) => fn.spec.name === functionName || physical.get(fn.spec.logicalId)?.attributes.Arn === functionName)?.spec.logicalId;
    if (!queueId) {
      build.problems.push(`${id}: EventSourceArn ${sourceArn} is not a queue the rehearsal made`);
      continue;
    }
    if (!fnId) {
      build.problems.push(`${id}: FunctionName ${functionName} is no function of the template`);
      continue;
    }
    const responseTypes = (props.FunctionResponseTypes as string[] | undefined) ?? [];
    mappings.push({
      logicalId: id,
      functionLogicalId: fnId,
      queueUrl: physical.get(queueId)!.ref,
      queueArn: sourceArn!,
      batchSize: Number(props.BatchSize ?? 10),
      reportBatchItemFailures: responseTypes.includes('ReportBatchItemFailures'),
      enabled: props.Enabled !== false,
    });
  }
  return mappings;
}

const RATE_UNITS: Record<string, number> = { minute: 60_000, minutes: 60_000, hour: 3_600_000, hours: 3_600_000, day: 86_400_000, days: 86_400_000 };

/** EventBridge rate rules: each target a function that lets events.amazonaws.com invoke it for this rule. */
export function readRules(build: Build, byArn: ReadonlyMap<string, RehearsedFunction>): RuleSpec[] {
  const { template, resolver, physical } = build;
  const rules: RuleSpec[] = [];
  for (const [id, resource] of resourcesOfType(template, 'AWS::Events::Rule')) {
    const props = resource.Properties ?? {};
    if (props.State !== undefined && props.State !== 'ENABLED') continue;
    const rate = /^rate\((\d+) (\w+)\)$/.exec(String(props.ScheduleExpression ?? ''));
    if (!rate || !RATE_UNITS[rate[2]!]) {
      build.problems.push(`${id}: ScheduleExpression ${String(props.ScheduleExpression)} is not rehearsed (only rate(…))`);
      continue;
    }
    const ruleArn = physical.get(id)!.attributes.Arn!;
    for (const [i, target] of ((props.Targets as Array<{ Arn: unknown }> | undefined) ?? []).entries()) {
      const targetArn = attempt(build, () => resolver.string(target.Arn, `${id}.Targets[${i}].Arn`));
      const fn = targetArn ? byArn.get(targetArn) : undefined;
      if (!fn) {
        build.problems.push(`${id}: its target ${targetArn} is not a function of the template`);
        continue;
      }
      if (!eventsMayInvoke(build, fn, targetArn!, ruleArn)) build.problems.push(`${id}: no AWS::Lambda::Permission lets events.amazonaws.com invoke ${fn.spec.logicalId} for this rule`);
      else rules.push({ logicalId: id, arn: ruleArn, everyMs: Number(rate[1]) * RATE_UNITS[rate[2]!]!, functionLogicalId: fn.spec.logicalId });
    }
  }
  return rules;
}

function eventsMayInvoke(build: Build, fn: RehearsedFunction, targetArn: string, ruleArn: string): boolean {
  return resourcesOfType(build.template, 'AWS::Lambda::Permission').some(([pid, permission]) => {
    const p = permission.Properties ?? {};
    const names = attempt(build, () => [build.resolver.string(p.FunctionName, `${pid}.FunctionName`), p.SourceArn === undefined ? ruleArn : build.resolver.string(p.SourceArn, `${pid}.SourceArn`)]);
    return p.Principal === 'events.amazonaws.com' && p.Action === 'lambda:InvokeFunction' && names !== undefined && (names[0] === targetArn || names[0] === fn.spec.name) && names[1] === ruleArn;
  });
}

/** The resource types the rehearsal does not play (by logical id), and a note on the deploy-only ones. */
export function unplayedTypes(build: Build): Record<string, string[]> {
  const unplayed: Record<string, string[]> = {};
  const deployOnly: Record<string, number> = {};
  for (const [id, resource] of Object.entries(build.template.Resources)) {
    if (DEPLOY_ONLY_TYPES.has(resource.Type)) deployOnly[resource.Type] = (deployOnly[resource.Type] ?? 0) + 1;
    else if (!REHEARSED_TYPES.has(resource.Type)) (unplayed[resource.Type] ??= []).push(id);
  }
  const counts = Object.entries(deployOnly).map(([type, count]) => `${type} (${count})`);
  if (counts.length) build.notes.push(`deploy-only, nothing to run offline: ${counts.join(', ')}; they read metrics only AWS publishes`);
  return unplayed;
}
