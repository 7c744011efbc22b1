// A rehearsal while it starts: what every step reads and fills (the options, the template, the
// records kept, what is to be closed), the credentials each caller signs with, and the first
// steps: the emulators, the HTTP API, the template's physical names, and who may call what.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { startDynalite, startSes, startSqs, type Running, type RunningSes } from '../local/emulators';
import type { Authorize, RecordedCall } from './aws-front';
import type { Delivery } from './event-sources';
import { startHttpApi, type ApiRoute, type HttpApi } from './http-api';
import type { iamCheck } from './iam';
import type { FunctionSpec, InvokeResult, LogLine, RehearsedFunction } from './lambda';
import { bucketPolicies, SES_SERVICE, servicePolicyRefusal } from './receiving';
import type { Build } from './resources';
import type { InvocationRecord, Notification, RehearsalOptions } from './rehearsal-types';
import { namedResource, REHEARSAL_ACCOUNT, REHEARSAL_REGION, Resolver, resourcesOfType, type CfnTemplate, type PhysicalResource } from './template';

export const DUMMY_SECRET_KEY = 'rehearsal-secret-access-key';
/** The access key id of the rehearsal's own calls (creating tables and queues, as CloudFormation does). */
export const ADMIN_KEY = 'AKIAREHEARSALSTACK';
/** The access key id SES receiving writes to the buckets with: the SES service principal, admitted only by bucket policies. */
export const SES_KEY = 'AKIAREHEARSALSESRCV';
/** The context SES calls the buckets and topics in: this account, TLS. */
export const SES_CONTEXT = { 'aws:SourceAccount': REHEARSAL_ACCOUNT, 'aws:SecureTransport': 'true' };

export const labelOf = (spec: Pick<FunctionSpec, 'description' | 'logicalId'>): string => spec.description?.replace(/^Postbox /, '') ?? spec.logicalId;

export interface Stage {
  options: RehearsalOptions;
  template: CfnTemplate;
  stackName: string;
  /** What closing the rehearsal undoes, in reverse order. */
  closers: Array<() => Promise<void>>;
  problems: string[];
  notes: string[];
  calls: RecordedCall[];
  logs: LogLine[];
  invocations: InvocationRecord[];
  deliveries: Delivery[];
  errors: string[];
  notifications: Notification[];
  physical: Map<string, PhysicalResource>;
  /** Who is calling: each role's access key id, which the fronts read from the request's signature. */
  roleOfKey: Map<string, string>;
  keyOfRole: Map<string, string>;
  /** Records a call the functions (or Scheduler as a role) made, with the role that made it. */
  record(call: RecordedCall): void;
}

export function newStage(options: RehearsalOptions): Stage {
  const { template, stackName } = options.assembly;
  const roleOfKey = new Map<string, string>();
  const keyOfRole = new Map<string, string>();
  for (const [id] of resourcesOfType(template, 'AWS::IAM::Role')) {
    const key = `ASIAREHEARSAL${String(keyOfRole.size).padStart(4, '0')}`;
    keyOfRole.set(id, key);
    roleOfKey.set(key, id);
  }
  const calls: RecordedCall[] = [];
  return {
    options,
    template,
    stackName,
    closers: [],
    problems: [],
    notes: [],
    calls,
    logs: [],
    invocations: [],
    deliveries: [],
    errors: [],
    notifications: [],
    physical: new Map(),
    roleOfKey,
    keyOfRole,
    record: (call) => {
      const role = call.accessKeyId ? roleOfKey.get(call.accessKeyId) : undefined;
      const recorded = role ? { ...call, roleLogicalId: role } : call;
      calls.push(recorded);
      if (recorded.denied) options.onDenied?.(recorded);
    },
  };
}

export async function closeStage(stage: Stage): Promise<void> {
  for (const closer of stage.closers.splice(0).reverse()) await closer().catch(() => undefined);
}

export interface Emulators {
  dynalite: Running;
  sqs: Running;
  ses: RunningSes;
  /** Clients with the credentials of the rehearsal itself (CloudFormation's, in effect). */
  dynamodb: DynamoDBClient;
  sqsAdmin: SQSClient;
}

export async function startEmulators(stage: Stage): Promise<Emulators> {
  const dynalite: Running = await startDynalite();
  stage.closers.push(() => dynalite.close());
  const sqs: Running = await startSqs();
  stage.closers.push(() => sqs.close());
  const ses = await startSes();
  stage.closers.push(() => ses.close());
  const admin = { region: REHEARSAL_REGION, credentials: { accessKeyId: ADMIN_KEY, secretAccessKey: DUMMY_SECRET_KEY } };
  return { dynalite, sqs, ses, dynamodb: new DynamoDBClient({ ...admin, endpoint: dynalite.endpoint }), sqsAdmin: new SQSClient({ ...admin, endpoint: sqs.endpoint }) };
}

export type Invoke = (fn: RehearsedFunction, event: unknown, trigger: InvocationRecord['trigger']) => Promise<InvokeResult>;

/** Invokes a function and records the invocation. */
export function invoker(stage: Stage): Invoke {
  return async (fn, event, trigger) => {
    const outcome = await fn.invoke(event);
    stage.invocations.push({ functionLogicalId: fn.spec.logicalId, label: labelOf(fn.spec), trigger, ok: outcome.ok, ...(outcome.ok ? {} : { error: { errorType: outcome.error.errorType, errorMessage: outcome.error.errorMessage } }) });
    return outcome;
  };
}

/** The HTTP API, over `routes` and the functions by ARN (both filled later: it listens first, since its endpoint is the ApiEndpoint the functions' PUBLIC_BASE_URL names). */
export async function startApi(stage: Stage, routes: ApiRoute[], byArn: ReadonlyMap<string, RehearsedFunction>, invoke: Invoke): Promise<HttpApi> {
  const api = await startHttpApi({
    routes,
    apiId: 'rehearsal',
    port: stage.options.port,
    invoke: (arn, event) => {
      const fn = byArn.get(arn);
      if (!fn) return Promise.resolve({ ok: false, error: { errorType: 'ResourceNotFoundException', errorMessage: `no function ${arn}` } });
      return invoke(fn, event, 'http');
    },
  });
  stage.closers.push(() => api.close());
  return api;
}

/** Names every resource of the template as CloudFormation would, and the resolver of its references over them. */
export function resolveTemplate(stage: Stage, apiEndpoint: string): Build {
  const { template, stackName, physical, problems, notes } = stage;
  for (const [id, resource] of Object.entries(template.Resources)) {
    const named = namedResource(stackName, id, resource, apiEndpoint);
    if (named) physical.set(id, named);
  }
  return { template, stackName, resolver: new Resolver(template, physical, stackName), physical, problems, notes };
}

export interface Access {
  authorize: Authorize;
  /** The IAM check of the functions' calls, once the roles' policies are read (none: every call allowed). */
  useCheck(check: ReturnType<typeof iamCheck>): void;
}

/** Who may call what: the rehearsal's own calls unchecked, SES's writes by the buckets' policies, the functions' by their roles'. */
export function access(stage: Stage, build: Build): Access {
  let check: ReturnType<typeof iamCheck> | undefined;
  const authorize: Authorize = (call) => {
    if (call.accessKeyId === ADMIN_KEY) return undefined;
    if (call.accessKeyId === SES_KEY) {
      return call.checks
        .map((k) => servicePolicyRefusal(bucketPolicies(stage.template, build.resolver, k.resource.split(':::')[1]!.split('/')[0]!), SES_SERVICE, k.action, k.resource, SES_CONTEXT))
        .find(Boolean);
    }
    return check?.(call.accessKeyId ? stage.roleOfKey.get(call.accessKeyId) : undefined, call);
  };
  return { authorize, useCheck: (c) => void (check = c) };
}
