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
//
// The parts: rehearsal-types.ts (what a rehearsal is), stage.ts (the state of one starting, the
// emulators, the HTTP API, who may call what), fronts.ts (the fronts, SNS and SES publishing),
// stand-ins.ts (Secrets Manager, Scheduler, S3, SES receiving), functions.ts (the functions and
// their triggers); resources.ts makes the template's resources in the emulators.
import { iamCheck, rolePolicies } from './iam';
import type { RehearsedFunction } from './lambda';
import { attempt, bucketNotes, createQueues, createSecrets, createTables, expireItems, readMappings, readPublishing, readRules, unplayedTypes } from './resources';
import { readRoutes, type ApiRoute } from './http-api';
import { createFunctions, ruleFirer, startTriggers, visibilityTimeouts } from './functions';
import { snsPublishing, startFronts, startUnrehearsed } from './fronts';
import type { Rehearsal, RehearsalOptions } from './rehearsal-types';
import { sesReceiving, startStandIns } from './stand-ins';
import { access, closeStage, invoker, labelOf, newStage, resolveTemplate, startApi, startEmulators, type Stage } from './stage';

export type { InvocationRecord, Notification, Rehearsal, RehearsalOptions } from './rehearsal-types';

/** Deploy-time failures the rehearsal found: what CloudFormation or Lambda would refuse, or what it cannot resolve. */
export class RehearsalError extends Error {
  constructor(readonly problems: string[]) {
    super(`the stack cannot be rehearsed:\n- ${problems.join('\n- ')}`);
    this.name = 'RehearsalError';
  }
}

export async function startRehearsal(options: RehearsalOptions): Promise<Rehearsal> {
  const stage = newStage(options);
  try {
    return await start(stage);
  } catch (error) {
    await closeStage(stage);
    throw error;
  }
}

/** Makes what CloudFormation would, in the order it would (each part's closer pushed as it starts), and starts the triggers once nothing is amiss. */
async function start(stage: Stage): Promise<Rehearsal> {
  const { options, template, problems, notes } = stage;
  const emulators = await startEmulators(stage);
  const routes: ApiRoute[] = [];
  const byArn = new Map<string, RehearsedFunction>();
  const invoke = invoker(stage);
  const api = await startApi(stage, routes, byArn, invoke);
  const build = resolveTemplate(stage, api.endpoint);
  const { authorize, useCheck } = access(stage, build);
  const queueArns = new Map<string, string>();
  const publishing = snsPublishing(stage, emulators.sqsAdmin);
  const fronts = await startFronts(stage, emulators, authorize, queueArns, publishing);

  const expiring = await createTables(build, emulators.dynamodb);
  await createQueues(build, emulators.sqsAdmin, fronts.sqs.endpoint, queueArns);
  const secrets = createSecrets(build);
  publishing.use(readPublishing(build));
  const standIns = await startStandIns(stage, build, authorize, fronts, secrets);
  bucketNotes(build);
  const receiving = sesReceiving(stage, build, standIns, publishing);
  const unrehearsed = await startUnrehearsed(stage.record);
  stage.closers.push(() => new Promise((resolve) => unrehearsed.server.close(() => resolve())));

  const functions = createFunctions(stage, build, { fronts, standIns, unrehearsed: unrehearsed.endpoint }, byArn);
  const found = attempt(build, () => readRoutes(template, build.resolver));
  if (found) routes.push(...found);
  for (const route of routes) if (!byArn.has(route.functionArn)) problems.push(`route ${route.routeKey}: its integration invokes ${route.functionArn}, no function of the template`);
  const mappings = readMappings(build, functions);
  const rules = readRules(build, byArn);
  const fireRule = ruleFirer(rules, functions, invoke);
  if (options.iam !== false) {
    const roles = attempt(build, () => rolePolicies(template, build.resolver));
    if (roles) {
      for (const [id, role] of roles) if (role.managed.length) notes.push(`${id}: managed policies ${role.managed.join(', ')} are not in the template; the IAM check counts them as granting nothing`);
      useCheck(iamCheck(roles));
    }
  }
  if (problems.length) throw new RehearsalError(problems);
  startTriggers(stage, mappings, fronts, functions, invoke, rules, fireRule);

  return {
    url: api.endpoint,
    assembly: options.assembly,
    functions,
    routes,
    secrets,
    invocations: stage.invocations,
    deliveries: stage.deliveries,
    notifications: stage.notifications,
    calls: stage.calls,
    logs: stage.logs,
    errors: stage.errors,
    unrehearsed: unplayedTypes(build),
    notes,
    ses: emulators.ses,
    s3: { endpoint: standIns.s3.endpoint, upstream: standIns.s3.upstream },
    dynamodb: { endpoint: emulators.dynalite.endpoint },
    expireItems: (now = new Date()) => expireItems(emulators.dynamodb, expiring, now),
    ...receiving,
    withVisibilityTimeout: visibilityTimeouts(emulators.sqsAdmin),
    sqs: { endpoint: emulators.sqs.endpoint },
    putSecretValue(nameOrArn, value) {
      const secret = secrets.find((s) => s.arn === nameOrArn || s.name === nameOrArn);
      if (!secret) throw new Error(`no secret ${nameOrArn} in the template`);
      secret.value = value;
    },
    scheduler: standIns.scheduler,
    rules: rules.map(({ logicalId, everyMs, functionLogicalId }) => ({ logicalId, everyMs, functionLogicalId })),
    fireRule,
    functionNamed(label) {
      const fn = [...functions.values()].find((f) => labelOf(f.spec) === label);
      if (!fn) throw new Error(`no function "Postbox ${label}" in the template`);
      return fn;
    },
    close: () => closeStage(stage),
  };
}
