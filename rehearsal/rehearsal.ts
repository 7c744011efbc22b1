// The stack run offline as deployed (issue 30). From a synthesized cloud assembly it makes what
// CloudFormation would make, in emulators, from the template's own definitions: the DynamoDB table
// (dynalite), the SQS queues with their redrive policies (local-aws-sqs), every secret as Secrets
// Manager creates it; then it runs every AWS::Lambda::Function from its asset with its Handler and
// its template Environment resolved (rehearsal/lambda.ts), serves the HTTP API from the template's
// routes and integrations (http-api.ts) and polls the queues for the event source mappings
// (event-sources.ts). SES event publishing and SNS play from inside (sns.ts): a send SES accepts
// under the configuration set is reported to its event destination's topic, and SNS puts it on
// each subscribed queue, in its envelope or raw. The functions reach AWS only through the SDK's standard endpoint variables
// (AWS_ENDPOINT_URL_<SERVICE>), which here name the rehearsal's fronts: the one thing it adds to
// what a function would see in Lambda, as DNS would point the service hostnames at AWS. Beyond
// loopback the functions reach only the public hosts a rehearsal is told to play (`internet`: a
// webhook receiver at a public address, rehearsal/internet.mjs), their address guard left on.
//
// EventBridge rate rules run their target function on a timer (and on `fireRule`), if a Lambda
// permission lets events.amazonaws.com invoke it for the rule. EventBridge Scheduler is a stand-in
// behind the functions' endpoint (scheduler.ts): schedules in the template's schedule group, each
// call IAM-checked, and each at() schedule fired when due (`scheduler.fireDue(now)`, or the wall
// clock) by assuming its role under the role's trust policy and sending to the target queue as it.
//
// The S3 buckets are s3rver behind a front that IAM-checks each call (s3.ts), which the functions
// reach through AWS_ENDPOINT_URL_S3; presigned links they make point at the same front.
//
// SES receiving (a stack synthesized with inbound): `receiveMail` plays the receipt rules' S3
// actions as SES does for an arriving message, as the SES service principal under the bucket's and
// the topic's policies (receiving.ts). SES identities, which the SES emulator lacks, are answered
// in its front after the IAM check (ses-identities.ts). A record a function failed waits out its
// queue's visibility timeout (`withVisibilityTimeout` shortens it for a test); the RedrivePolicy moves it
// to its DLQ after maxReceiveCount, as SQS does.
//
// Not rehearsed yet (listed by `unrehearsed`): log groups. A function that calls one of those
// services reaches an endpoint that answers that it is not rehearsed.
// Deploy-only (a note, not `unrehearsed`): the CloudWatch alarms and dashboard, and SNS email
// subscriptions, which have nothing to do offline.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, SendMessageCommand, SetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDynalite, startSes, startSqs, type Running, type RunningSes } from '../shared/runtime/local/emulators';
import type { Assembly } from './assembly';
import { startFront, type Authorize, type Front, type RecordedCall } from './aws-front';
import { startPoller, type Delivery, type Poller } from './event-sources';
import { readRoutes, startHttpApi, type ApiRoute, type HttpApi } from './http-api';
import { RehearsedFunction, type FunctionSpec, type Internet, type InvokeResult, type LogLine } from './lambda';
import { iamCheck, rolePolicies } from './iam';
import { deliveryEvent, snsEnvelope, type AcceptedSend, type EventDestination, type Subscription } from './sns';
import { startS3StandIn, type S3StandIn } from './s3';
import { sesIdentities } from './ses-identities';
import { sqsTarget, startScheduler, type SchedulerStandIn } from './scheduler';
import { bucketPolicies, playReceipt, readReceiptRules, SES_SERVICE, servicePolicyRefusal, topicPolicies, type ReceivedMail, type ReceiptRuleS3Action } from './receiving';
import { receivedNotification } from '../shared/runtime/local/smtp-listener';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startSecretsManager, type SecretsManagerStandIn, type StoredSecret } from './secrets';
import { attempt as attemptIn, bucketNotes, createQueues, createSecrets, createTables, functionSpec, readMappings, readPublishing, readRules, unplayedTypes, type Build } from './resources';
import {
  namedResource,
  REHEARSAL_ACCOUNT,
  REHEARSAL_REGION,
  Resolver,
  resourcesOfType,
  type PhysicalResource,
} from './template';

/** A notification SNS handed to a subscription's queue (or could not). */
export interface Notification {
  topicArn: string;
  subscription: string;
  queueArn: string;
  message: string;
  error?: string;
}

/** One invocation of a function, however it was triggered. */
export interface InvocationRecord {
  functionLogicalId: string;
  /** The manifest name, from the function's Description ("Postbox <name>"), else the logical id. */
  label: string;
  trigger: 'http' | 'sqs' | 'schedule';
  ok: boolean;
  error?: { errorType: string; errorMessage: string };
}

export interface RehearsalOptions {
  assembly: Assembly;
  /** Port of the HTTP API; 0 (default) picks a free one. */
  port?: number;
  /**
   * The IAM check of every call the functions make (rehearsal/iam.ts): on by default; off, every
   * call is allowed (and still recorded).
   */
  iam?: boolean;
  onLog?: (line: LogLine) => void;
  /** Called with each call the IAM check refused (they are in `calls` too). */
  onDenied?: (call: RecordedCall) => void;
  /** How often the wall clock fires due schedules (1000 ms by default; 0: only `scheduler.fireDue`). */
  schedulerTickMs?: number;
  /**
   * The public hosts the functions may reach, each served on loopback (a webhook receiver): the
   * functions' network carries a connection to one to its server, after the product's own address
   * guard passed the public address (rehearsal/internet.mjs). Every other public address is unreachable.
   */
  internet?: Internet;
}

export interface Rehearsal {
  /** The HTTP API's base URL. */
  url: string;
  assembly: Assembly;
  functions: ReadonlyMap<string, RehearsedFunction>;
  routes: readonly ApiRoute[];
  secrets: readonly StoredSecret[];
  invocations: InvocationRecord[];
  deliveries: Delivery[];
  /** Every notification SNS delivered to a subscription, SES's events among them. */
  notifications: Notification[];
  /** Every call the functions made to DynamoDB, SQS, SES, S3, Secrets Manager and Scheduler (and Scheduler's sends as its role), with its IAM outcome. */
  calls: RecordedCall[];
  logs: LogLine[];
  /** Problems found in the poller loops (a receive that failed, …). */
  errors: string[];
  /** Resources of the template the rehearsal does not play, by type. */
  unrehearsed: Record<string, string[]>;
  /** Properties the emulators cannot apply (e.g. DynamoDB TTL in dynalite). */
  notes: string[];
  ses: RunningSes;
  /** The buckets' front (what AWS_ENDPOINT_URL_S3 names) and s3rver behind it. */
  s3: Pick<S3StandIn, 'endpoint' | 'upstream'>;
  /** The rate rules, by logical id, and the function each invokes. */
  rules: ReadonlyArray<{ logicalId: string; everyMs: number; functionLogicalId: string }>;
  /** EventBridge Scheduler: the schedules the functions made, the firings, and `fireDue(now)` to fire what is due. */
  scheduler: Omit<SchedulerStandIn, 'close'>;
  /** The DynamoDB emulator itself (no IAM front): for a flow's setup the API cannot make offline (a domain verified by DNS). */
  dynamodb: { endpoint: string };
  /** The receipt rules' S3 actions (a stack synthesized with inbound), and what SES did with each message. */
  receiptRules: readonly ReceiptRuleS3Action[];
  received: ReceivedMail[];
  /** A message arriving at SES for these recipients: each rule that takes one stores it and notifies its topic, as SES does. */
  receiveMail(mail: { from: string; to: string[]; raw: string | Buffer }): Promise<ReceivedMail>;
  /**
   * Runs `during` with the queue's VisibilityTimeout (the template's are minutes) set to `seconds`,
   * then sets the template's back: a record a function fails in the meantime is received again
   * that much later, and past the RedrivePolicy's maxReceiveCount SQS moves it to the DLQ.
   */
  withVisibilityTimeout<T>(queueUrl: string, seconds: number, during: () => Promise<T>): Promise<T>;
  /** What an operator's `aws secretsmanager put-secret-value` does (the Stripe keys, the OAuth client secrets): a function reads it on its next cold start. */
  putSecretValue(nameOrArn: string, value: string): void;
  /** The SQS emulator itself (no IAM front): for a flow to put a message on a queue as an AWS service would, or to read a queue no function consumes here. */
  sqs: { endpoint: string };
  /** Runs a rule's target now, as EventBridge does when the rate comes round. */
  fireRule(logicalId: string): Promise<InvokeResult>;
  /** The function whose Description is "Postbox <label>". */
  functionNamed(label: string): RehearsedFunction;
  close(): Promise<void>;
}

/** Deploy-time failures the rehearsal found: what CloudFormation or Lambda would refuse, or what it cannot resolve. */
export class RehearsalError extends Error {
  constructor(readonly problems: string[]) {
    super(`the stack cannot be rehearsed:\n- ${problems.join('\n- ')}`);
    this.name = 'RehearsalError';
  }
}

const DUMMY_SECRET_KEY = 'rehearsal-secret-access-key';
/** The access key id of the rehearsal's own calls (creating tables and queues, as CloudFormation does). */
const ADMIN_KEY = 'AKIAREHEARSALSTACK';
/** The access key id SES receiving writes to the buckets with: the SES service principal, admitted only by bucket policies. */
const SES_KEY = 'AKIAREHEARSALSESRCV';
const labelOf = (spec: Pick<FunctionSpec, 'description' | 'logicalId'>): string => spec.description?.replace(/^Postbox /, '') ?? spec.logicalId;

/** A loopback endpoint for services the rehearsal does not play: every call is answered with an error naming the service. */
async function startUnrehearsed(record: (call: RecordedCall) => void): Promise<{ endpoint: string; server: Server }> {
  const server = createServer((req, res) => {
    const host = String(req.headers.authorization ?? '').match(/Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//)?.[1] ?? 'unknown';
    record({ service: host, operation: `${req.method} ${req.url}`, checks: [], denied: `the rehearsal does not play the ${host} service yet` });
    req.resume();
    req.on('end', () => {
      res.writeHead(501, { 'content-type': 'application/json', 'x-amzn-errortype': 'NotRehearsed' });
      res.end(JSON.stringify({ __type: 'NotRehearsed', message: `the rehearsal does not play the ${host} service yet` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

export async function startRehearsal(options: RehearsalOptions): Promise<Rehearsal> {
  const { assembly } = options;
  const { template, stackName } = assembly;
  const closers: Array<() => Promise<void>> = [];
  const close = async (): Promise<void> => {
    for (const closer of closers.splice(0).reverse()) await closer().catch(() => undefined);
  };
  try {
    return await start();
  } catch (error) {
    await close();
    throw error;
  }

  async function start(): Promise<Rehearsal> {
    const problems: string[] = [];
    const notes: string[] = [];
    const calls: RecordedCall[] = [];
    const logs: LogLine[] = [];
    const invocations: InvocationRecord[] = [];
    const deliveries: Delivery[] = [];
    const errors: string[] = [];
    const notifications: Notification[] = [];
    let subscriptions: Subscription[] = [];
    let destinations: EventDestination[] = [];
    const physical = new Map<string, PhysicalResource>();
    const record = (call: RecordedCall): void => {
      // Which role made it (roleOfKey is filled before any front or stand-in starts recording).
      const role = call.accessKeyId ? roleOfKey.get(call.accessKeyId) : undefined;
      const recorded = role ? { ...call, roleLogicalId: role } : call;
      calls.push(recorded);
      if (recorded.denied) options.onDenied?.(recorded);
    };

    // The emulators, and the credentials of the rehearsal itself (CloudFormation's, in effect).
    const dynalite: Running = await startDynalite();
    closers.push(() => dynalite.close());
    const sqs: Running = await startSqs();
    closers.push(() => sqs.close());
    const ses = await startSes();
    closers.push(() => ses.close());
    const admin = { region: REHEARSAL_REGION, credentials: { accessKeyId: ADMIN_KEY, secretAccessKey: DUMMY_SECRET_KEY } };
    const dynamodb = new DynamoDBClient({ ...admin, endpoint: dynalite.endpoint });
    const sqsAdmin = new SQSClient({ ...admin, endpoint: sqs.endpoint });

    // The HTTP API listens first: its endpoint is the ApiEndpoint the functions' PUBLIC_BASE_URL names.
    const routes: ApiRoute[] = [];
    const functions = new Map<string, RehearsedFunction>();
    const byArn = new Map<string, RehearsedFunction>();
    const invoke = async (fn: RehearsedFunction, event: unknown, trigger: InvocationRecord['trigger']): Promise<InvokeResult> => {
      const outcome = await fn.invoke(event);
      invocations.push({ functionLogicalId: fn.spec.logicalId, label: labelOf(fn.spec), trigger, ok: outcome.ok, ...(outcome.ok ? {} : { error: { errorType: outcome.error.errorType, errorMessage: outcome.error.errorMessage } }) });
      return outcome;
    };
    const apiId = 'rehearsal';
    const api: HttpApi = await startHttpApi({
      routes,
      apiId,
      port: options.port,
      invoke: (arn, event) => {
        const fn = byArn.get(arn);
        if (!fn) return Promise.resolve({ ok: false, error: { errorType: 'ResourceNotFoundException', errorMessage: `no function ${arn}` } });
        return invoke(fn, event, 'http');
      },
    });
    closers.push(() => api.close());

    for (const [id, resource] of Object.entries(template.Resources)) {
      const named = namedResource(stackName, id, resource, api.endpoint);
      if (named) physical.set(id, named);
    }
    const resolver = new Resolver(template, physical, stackName);
    const build: Build = { template, stackName, resolver, physical, problems, notes };
    const attempt = <T>(what: () => T): T | undefined => attemptIn(build, what);

    // Who is calling: each role's access key id, which the fronts read from the request's signature.
    const roleOfKey = new Map<string, string>();
    const keyOfRole = new Map<string, string>();
    for (const [id] of resourcesOfType(template, 'AWS::IAM::Role')) {
      const key = `ASIAREHEARSAL${String(keyOfRole.size).padStart(4, '0')}`;
      keyOfRole.set(id, key);
      roleOfKey.set(key, id);
    }
    // The rehearsal's own calls (CloudFormation's, in effect) are not the functions' and are not checked.
    let check: ReturnType<typeof iamCheck> | undefined;
    const authorize: Authorize = (call) => {
      if (call.accessKeyId === ADMIN_KEY) return undefined;
      // SES's writes: only the bucket's policies speak for a service principal (the context SES calls in: this account, TLS).
      if (call.accessKeyId === SES_KEY) return call.checks.map((k) => servicePolicyRefusal(bucketPolicies(template, resolver, k.resource.split(':::')[1]!.split('/')[0]!), SES_SERVICE, k.action, k.resource, sesContext)).find(Boolean);
      return check?.(call.accessKeyId ? roleOfKey.get(call.accessKeyId) : undefined, call);
    };
    const sesContext = { 'aws:SourceAccount': REHEARSAL_ACCOUNT, 'aws:SecureTransport': 'true' };
    const queueArns = new Map<string, string>();

    // The fronts the functions call, each before its emulator.
    const fronts: Record<'dynamodb' | 'sqs' | 'sesv2', Front> = {
      dynamodb: await startFront('dynamodb', dynalite.endpoint, authorize, record),
      sqs: await startFront('sqs', sqs.endpoint, authorize, record, (name) => queueArns.get(name) ?? `arn:aws:sqs:${REHEARSAL_REGION}:unknown:${name}`),
      sesv2: await startFront('sesv2', ses.endpoint, authorize, record, undefined, (call, status, request, answer) => {
        if (call.operation !== 'SendEmail' || status !== 200) return;
        void publishSesEvents(JSON.parse(request.toString('utf8')) as AcceptedSend['request'], JSON.parse(answer.toString('utf8')) as { MessageId?: string });
      }, sesIdentities()),
    };
    for (const front of Object.values(fronts)) closers.push(() => front.close());

    /** What Scheduler's firings reach: the template's roles and queues, and the SQS front as the assumed role. */
    const senders = new Map<string, SQSClient>();
    const schedulerTargets = (): Parameters<typeof sqsTarget>[0] => ({
      checkTrust: options.iam !== false,
      role: (arn) => {
        const id = [...physical.entries()].find(([rid, p]) => template.Resources[rid]?.Type === 'AWS::IAM::Role' && p.attributes.Arn === arn)?.[0];
        return id ? { logicalId: id, trustPolicy: resolver.resolve(template.Resources[id]!.Properties?.AssumeRolePolicyDocument, `${id}.AssumeRolePolicyDocument`) } : undefined;
      },
      queueUrl: (arn) => [...physical.values()].find((p) => p.attributes.QueueUrl && p.attributes.Arn === arn)?.ref,
      send: async (roleId, queueUrl, body, groupId) => {
        let client = senders.get(roleId);
        if (!client) senders.set(roleId, (client = new SQSClient({ region: REHEARSAL_REGION, endpoint: fronts.sqs.endpoint, credentials: { accessKeyId: keyOfRole.get(roleId)!, secretAccessKey: DUMMY_SECRET_KEY } })));
        await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, ...(groupId ? { MessageGroupId: groupId } : {}) }));
      },
    });

    /** SNS: the notification to every subscription of the topic (only SQS ones are made: the others are problems at start). */
    const publish = async (topicArn: string, message: string): Promise<void> => {
      const messageId = randomUUID();
      for (const sub of subscriptions.filter((s) => s.topicArn === topicArn)) {
        const queue = [...physical.values()].find((p) => p.attributes.QueueUrl && p.attributes.Arn === sub.endpoint);
        const body = sub.raw ? message : JSON.stringify(snsEnvelope(topicArn, message, messageId));
        const note: Notification = { topicArn, subscription: sub.logicalId, queueArn: sub.endpoint, message };
        try {
          await sqsAdmin.send(new SendMessageCommand({ QueueUrl: queue!.ref, MessageBody: body }));
        } catch (error) {
          note.error = error instanceof Error ? error.message : String(error);
          errors.push(`${sub.logicalId}: SNS could not deliver to ${sub.endpoint}: ${note.error}`);
        }
        notifications.push(note);
      }
    };
    /** SES event publishing: a send under a configuration set is reported to its destinations' topics. */
    const publishSesEvents = async (request: AcceptedSend['request'], answer: { MessageId?: string }): Promise<void> => {
      const set = request.ConfigurationSetName;
      if (!set || !answer.MessageId) return;
      const matching = destinations.filter((d) => d.configurationSet === set);
      if (!matching.length) errors.push(`SES: a send named the configuration set ${set}, which the template has no event destination for`);
      const event = JSON.stringify(deliveryEvent({ request, providerMessageId: answer.MessageId, timestamp: new Date().toISOString() }));
      for (const destination of matching) if (destination.enabled && destination.topicArn && destination.eventTypes.includes('delivery')) await publish(destination.topicArn, event);
    };

    await createTables(build, dynamodb);
    await createQueues(build, sqsAdmin, fronts.sqs.endpoint, queueArns);
    const secrets = createSecrets(build);
    ({ subscriptions, destinations } = readPublishing(build));

    const secretsManager: SecretsManagerStandIn = await startSecretsManager(secrets, ({ action, resource, accessKeyId }) => {
      const call = { service: 'secretsmanager', operation: action.split(':')[1]!, checks: [{ action, resource }], accessKeyId };
      const denied = authorize(call);
      record({ ...call, ...(denied ? { denied } : {}) });
      return denied;
    });
    closers.push(() => secretsManager.close());
    const scheduler = await startScheduler({
      groups: resourcesOfType(template, 'AWS::Scheduler::ScheduleGroup').map(([id]) => ({ name: physical.get(id)!.ref, arn: physical.get(id)!.attributes.Arn! })),
      authorize: (call) => {
        const denied = authorize(call);
        record({ ...call, ...(denied ? { denied } : {}) });
        return denied;
      },
      invokeTarget: sqsTarget(schedulerTargets()),
      onFailure: (firing) => errors.push(`${firing.scheduleArn}: Scheduler could not deliver to ${firing.targetArn}: ${firing.error}`),
      tickMs: options.schedulerTickMs,
    });
    closers.push(() => scheduler.close());
    // The buckets, in s3rver, each caller's key known to it; the front checks every call.
    const buckets = resourcesOfType(template, 'AWS::S3::Bucket').map(([id]) => physical.get(id)!.ref);
    const s3: S3StandIn = await startS3StandIn({
      buckets,
      accessKeys: [ADMIN_KEY, SES_KEY, ...keyOfRole.values()].map((accessKeyId) => ({ accessKeyId, secretAccessKey: DUMMY_SECRET_KEY })),
      authorize,
      record,
    });
    closers.push(() => s3.close());
    bucketNotes(build);
    const receiptRules = attempt(() => readReceiptRules(template, resolver)) ?? [];
    for (const rule of receiptRules) {
      if (!buckets.includes(rule.bucket)) problems.push(`${rule.ruleLogicalId}: its S3 action names the bucket ${rule.bucket}, which is no bucket of the template`);
      if (rule.topicArn && !subscriptions.some((sub) => sub.topicArn === rule.topicArn)) problems.push(`${rule.ruleLogicalId}: its topic ${rule.topicArn} has no subscription: SES's notifications would reach nothing`);
    }
    const received: ReceivedMail[] = [];
    const sesWriter = new S3Client({ region: REHEARSAL_REGION, endpoint: s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: SES_KEY, secretAccessKey: DUMMY_SECRET_KEY }, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
    closers.push(async () => sesWriter.destroy());
    const receiveMail = async (mail: { from: string; to: string[]; raw: string | Buffer }): Promise<ReceivedMail> => {
      const outcome = await playReceipt(
        {
          rules: receiptRules,
          bucketPolicies: (bucket) => bucketPolicies(template, resolver, bucket),
          topicPolicies: (topicArn) => topicPolicies(template, resolver, topicArn),
          putObject: async (bucket, key, body) => void (await sesWriter.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'message/rfc822' }))),
          publish,
          notification: ({ sesMessageId, timestamp, source, recipients, bucket, objectKey, topicArn }) => {
            // SES has no scanner to play: every verdict GRAY. Its action names the topic it notified, too.
            const built = receivedNotification({ timestamp, source, sesMessageId, recipients, verdicts: { spf: 'GRAY', dkim: 'GRAY', dmarc: 'GRAY' }, bucketName: bucket, objectKey });
            return { ...built, receipt: { ...built.receipt, action: { ...built.receipt.action, topicArn } } };
          },
          context: sesContext,
        },
        { sesMessageId: randomUUID().replace(/-/g, '').slice(0, 20), from: mail.from, to: mail.to, raw: Buffer.from(mail.raw) },
      );
      for (const refusal of outcome.refused) errors.push(`SES receiving: ${refusal}`);
      received.push(outcome);
      return outcome;
    };
    const unrehearsed = await startUnrehearsed(record);
    closers.push(() => new Promise((resolve) => unrehearsed.server.close(() => resolve())));

    // The functions.
    for (const [id, resource] of resourcesOfType(template, 'AWS::Lambda::Function')) {
      const spec = functionSpec(build, id, resource, assembly.assetPaths);
      if (!spec) continue;
      const accessKeyId = keyOfRole.get(spec.roleLogicalId) ?? 'ASIAREHEARSALNOROLE';
      const fn = new RehearsedFunction(spec, {
        platformVariables: {
          AWS_REGION: REHEARSAL_REGION,
          AWS_DEFAULT_REGION: REHEARSAL_REGION,
          AWS_ACCESS_KEY_ID: accessKeyId,
          AWS_SECRET_ACCESS_KEY: DUMMY_SECRET_KEY,
          AWS_SESSION_TOKEN: `rehearsal-session-${spec.roleLogicalId}`,
          // The rehearsal's network: the SDK's standard endpoint variables, and nothing else.
          AWS_ENDPOINT_URL_DYNAMODB: fronts.dynamodb.endpoint,
          AWS_ENDPOINT_URL_SQS: fronts.sqs.endpoint,
          AWS_ENDPOINT_URL_SESV2: fronts.sesv2.endpoint,
          AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint,
          AWS_ENDPOINT_URL_SCHEDULER: scheduler.endpoint,
          AWS_ENDPOINT_URL_S3: s3.endpoint,
          // s3rver stores an aws-chunked upload (the SDK's default trailing checksum) verbatim:
          // the SDK's own variables keep checksums to what S3 requires, as the local runtime does.
          AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
          AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
          AWS_ENDPOINT_URL: unrehearsed.endpoint,
          AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        },
        internet: options.internet,
        onLog: (line) => {
          logs.push(line);
          options.onLog?.(line);
        },
      });
      functions.set(id, fn);
      byArn.set(physical.get(id)!.attributes.Arn!, fn);
      closers.push(() => fn.stop());
    }

    const found = attempt(() => readRoutes(template, resolver));
    if (found) routes.push(...found);
    for (const route of routes) if (!byArn.has(route.functionArn)) problems.push(`route ${route.routeKey}: its integration invokes ${route.functionArn}, no function of the template`);

    const mappings = readMappings(build, functions);
    const rules = readRules(build, byArn);
    const fireRule = (logicalId: string): Promise<InvokeResult> => {
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

    if (options.iam !== false) {
      const roles = attempt(() => rolePolicies(template, resolver));
      if (roles) {
        for (const [id, role] of roles) if (role.managed.length) notes.push(`${id}: managed policies ${role.managed.join(', ')} are not in the template; the IAM check counts them as granting nothing`);
        check = iamCheck(roles);
      }
    }
    if (problems.length) throw new RehearsalError(problems);

    const pollers: Poller[] = [];
    /** The queue's visibility timeout shortened while `during` runs, then the template's again (ChangeMessageVisibility would count a receive in local-aws-sqs). */
    const withVisibilityTimeout = async <T>(queueUrl: string, seconds: number, during: () => Promise<T>): Promise<T> => {
      const { Attributes } = await sqsAdmin.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['VisibilityTimeout'] }));
      await sqsAdmin.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { VisibilityTimeout: String(seconds) } }));
      try {
        return await during();
      } finally {
        await sqsAdmin.send(new SetQueueAttributesCommand({ QueueUrl: queueUrl, Attributes: { VisibilityTimeout: Attributes!.VisibilityTimeout! } }));
      }
    };
    for (const spec of mappings.filter((m) => m.enabled)) {
      const fn = functions.get(spec.functionLogicalId)!;
      const client = new SQSClient({
        region: REHEARSAL_REGION,
        endpoint: fronts.sqs.endpoint,
        credentials: { accessKeyId: keyOfRole.get(fn.spec.roleLogicalId)!, secretAccessKey: DUMMY_SECRET_KEY },
      });
      pollers.push(
        startPoller({
          spec,
          client,
          invoke: (event) => invoke(fn, event, 'sqs'),
          onDelivery: (delivery) => deliveries.push(delivery),
          onError: (error) => errors.push(`${spec.logicalId}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`),
        }),
      );
    }
    for (const rule of rules) {
      const timer = setInterval(() => void fireRule(rule.logicalId).catch((error: unknown) => errors.push(`${rule.logicalId}: ${String(error)}`)), rule.everyMs);
      timer.unref();
      closers.push(async () => clearInterval(timer));
    }
    // Pollers stop before the functions and emulators they use.
    closers.push(async () => {
      await Promise.all(pollers.map((p) => p.stop()));
    });

    const unplayed = unplayedTypes(build);

    return {
      url: api.endpoint,
      assembly,
      functions,
      routes,
      secrets,
      invocations,
      deliveries,
      notifications,
      calls,
      logs,
      errors,
      unrehearsed: unplayed,
      notes,
      ses,
      s3: { endpoint: s3.endpoint, upstream: s3.upstream },
      dynamodb: { endpoint: dynalite.endpoint },
      receiptRules,
      received,
      receiveMail,
      withVisibilityTimeout,
      sqs: { endpoint: sqs.endpoint },
      putSecretValue(nameOrArn, value) {
        const secret = secrets.find((s) => s.arn === nameOrArn || s.name === nameOrArn);
        if (!secret) throw new Error(`no secret ${nameOrArn} in the template`);
        secret.value = value;
      },
      scheduler,
      rules: rules.map(({ logicalId, everyMs, functionLogicalId }) => ({ logicalId, everyMs, functionLogicalId })),
      fireRule,
      functionNamed(label) {
        const fn = [...functions.values()].find((f) => labelOf(f.spec) === label);
        if (!fn) throw new Error(`no function "Postbox ${label}" in the template`);
        return fn;
      },
      close,
    };
  }
}
