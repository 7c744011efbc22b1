// The template's functions, each run from its asset with what Lambda gives it and the rehearsal's
// network, and what triggers them besides the HTTP API: the event source mappings' pollers and the
// rate rules' timers.
import { GetQueueAttributesCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { startPoller, type MappingSpec, type Poller } from './event-sources';
import type { Fronts } from './fronts';
import { RehearsedFunction, type FunctionSpec, type InvokeResult } from './lambda';
import { functionSpec, type Build, type RuleSpec } from './resources';
import type { Rehearsal } from './rehearsal-types';
import type { StandIns } from './stand-ins';
import { DUMMY_SECRET_KEY, type Invoke, type Stage } from './stage';
import { REHEARSAL_ACCOUNT, REHEARSAL_REGION, resourcesOfType } from './template';

/** Where a function's SDK calls go: the fronts and stand-ins, and the endpoint of what is not rehearsed. */
export interface Network {
  fronts: Fronts;
  standIns: StandIns;
  unrehearsed: string;
}

function platformVariables(spec: FunctionSpec, accessKeyId: string, network: Network): Record<string, string> {
  const { fronts, standIns } = network;
  return {
    AWS_REGION: REHEARSAL_REGION,
    AWS_DEFAULT_REGION: REHEARSAL_REGION,
    AWS_ACCESS_KEY_ID: accessKeyId,
    AWS_SECRET_ACCESS_KEY: DUMMY_SECRET_KEY,
    AWS_SESSION_TOKEN: `rehearsal-session-${spec.roleLogicalId}`,
    // The rehearsal's network: the SDK's standard endpoint variables, and nothing else.
    AWS_ENDPOINT_URL_DYNAMODB: fronts.dynamodb.endpoint,
    AWS_ENDPOINT_URL_SQS: fronts.sqs.endpoint,
    AWS_ENDPOINT_URL_SESV2: fronts.sesv2.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: standIns.secretsManager.endpoint,
    AWS_ENDPOINT_URL_SCHEDULER: standIns.scheduler.endpoint,
    AWS_ENDPOINT_URL_S3: standIns.s3.endpoint,
    // s3rver stores an aws-chunked upload (the SDK's default trailing checksum) verbatim:
    // the SDK's own variables keep checksums to what S3 requires, as the local runtime does.
    AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
    AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    AWS_ENDPOINT_URL: network.unrehearsed,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}

/** Every AWS::Lambda::Function of the template, by logical id; `byArn` gets each by its ARN. */
export function createFunctions(stage: Stage, build: Build, network: Network, byArn: Map<string, RehearsedFunction>): Map<string, RehearsedFunction> {
  const { options } = stage;
  const functions = new Map<string, RehearsedFunction>();
  for (const [id, resource] of resourcesOfType(stage.template, 'AWS::Lambda::Function')) {
    const spec = functionSpec(build, id, resource, options.assembly.assetPaths);
    if (!spec) continue;
    const accessKeyId = stage.keyOfRole.get(spec.roleLogicalId) ?? 'ASIAREHEARSALNOROLE';
    const fn = new RehearsedFunction(spec, {
      platformVariables: platformVariables(spec, accessKeyId, network),
      internet: options.internet,
      onLog: (line) => {
        stage.logs.push(line);
        options.onLog?.(line);
      },
    });
    functions.set(id, fn);
    byArn.set(stage.physical.get(id)!.attributes.Arn!, fn);
    stage.closers.push(() => fn.stop());
  }
  return functions;
}

/** Runs a rule's target now, as EventBridge does when the rate comes round. */
export function ruleFirer(rules: readonly RuleSpec[], functions: ReadonlyMap<string, RehearsedFunction>, invoke: Invoke): (logicalId: string) => Promise<InvokeResult> {
  return (logicalId) => {
    const rule = rules.find((r) => r.logicalId === logicalId);
    if (!rule) throw new Error(`no rate rule ${logicalId} in the template`);
    const event = {
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: REHEARSAL_ACCOUNT,
      time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
      region: REHEARSAL_REGION,
      resources: [rule.arn],
      detail: {},
    };
    return invoke(functions.get(rule.functionLogicalId)!, event, 'schedule');
  };
}

/** The queue's visibility timeout shortened while `during` runs, then the template's again (ChangeMessageVisibility would count a receive in local-aws-sqs). */
export function visibilityTimeouts(sqsAdmin: SQSClient): Rehearsal['withVisibilityTimeout'] {
  return async <T>(queueUrl: string, seconds: number, during: () => Promise<T>): Promise<T> => {
    const { Attributes } = await sqsAdmin.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout'] }));
    await sqsAdmin.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { VisibilityTimeout: String(seconds) } }));
    try {
      return await during();
    } finally {
      await sqsAdmin.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { VisibilityTimeout: Attributes!.VisibilityTimeout! } }));
    }
  };
}

/** The event source mappings' pollers, each receiving as its function's role, and the rate rules' timers. */
export function startTriggers(
  stage: Stage,
  mappings: readonly MappingSpec[],
  fronts: Fronts,
  functions: ReadonlyMap<string, RehearsedFunction>,
  invoke: Invoke,
  rules: readonly RuleSpec[],
  fireRule: (logicalId: string) => Promise<InvokeResult>,
): void {
  const pollers: Poller[] = [];
  for (const spec of mappings.filter((m) => m.enabled)) {
    const fn = functions.get(spec.functionLogicalId)!;
    const client = new SQSClient({
      region: REHEARSAL_REGION,
      endpoint: fronts.sqs.endpoint,
      credentials: { accessKeyId: stage.keyOfRole.get(fn.spec.roleLogicalId)!, secretAccessKey: DUMMY_SECRET_KEY },
    });
    pollers.push(
      startPoller({
        spec,
        client,
        invoke: (event) => invoke(fn, event, 'sqs'),
        onDelivery: (delivery) => stage.deliveries.push(delivery),
        onError: (error) => stage.errors.push(`${spec.logicalId}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`),
      }),
    );
  }
  for (const rule of rules) {
    const timer = setInterval(() => void fireRule(rule.logicalId).catch((error: unknown) => stage.errors.push(`${rule.logicalId}: ${String(error)}`)), rule.everyMs);
    timer.unref();
    stage.closers.push(async () => clearInterval(timer));
  }
  // Pollers stop before the functions and emulators they use.
  stage.closers.push(async () => {
    await Promise.all(pollers.map((p) => p.stop()));
  });
}
