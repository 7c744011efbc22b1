// The stack synthesized from the real manifest: resources, routes, environment and
// least-privilege IAM. Bundling is skipped here (see bundling.test.ts for one real bundle).
import { App, CfnResource, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../support/cdk';
import { functions, httpRoutes } from '../../functions/manifest';
import { gatewayRoutes, operatorSecrets, queues, routeKey, UNSET_SECRET, type FunctionDef } from '../../shared/platform';
import { AppStack, STACK_RESOURCE_BUDGET } from '../../lib/app-stack';
import { DEFAULT_API_THROTTLE } from '../../lib/constructs/api';
import { table as tableKeys } from '../../shared/db/schema';
import { envNames } from '../../shared/runtime/env-names';

type Resources = Record<string, { Type: string; Properties: Record<string, any>; DeletionPolicy?: string }>;

let stack: AppStack;
let template: Template;
let resources: Resources;

beforeAll(() => {
  const app = testApp();
  stack = new AppStack(app, 'Postbox-test', { stage: 'test', sharedEmailSender: 'sandbox@postbox.test' });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Resources;
});

const logicalId = (construct: IConstruct): string =>
  Stack.of(stack).getLogicalId((CfnResource.isCfnResource(construct) ? construct : construct.node.defaultChild) as CfnResource);

function functionId(def: FunctionDef): string {
  const target = stack.functions.get(def.name);
  if (!target) throw new Error(`no function construct for ${def.name}`);
  return logicalId(target.fn);
}

function environmentOf(def: FunctionDef): Record<string, unknown> {
  return resources[functionId(def)]!.Properties.Environment.Variables;
}

/** Every action the function's role is allowed, with the resources of each statement. */
function allowedActions(def: FunctionDef): string[] {
  const roleId = logicalId(stack.functions.get(def.name)!.role);
  return Object.values(resources)
    .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((r) => r.Properties.PolicyDocument.Statement)
    .filter((statement: { Effect: string }) => statement.Effect === 'Allow')
    .flatMap((statement: { Action: string | string[] }) => [statement.Action].flat());
}

describe('data table', () => {
  it('is one on-demand table with PITR, the TTL attribute and the GSIs of shared/db/keys.ts', () => {
    // Prepare
    const indexes = Object.values(tableKeys.indexes);

    // Act
    const tables = template.findResources('AWS::DynamoDB::Table');

    // Assess
    expect(Object.keys(tables)).toHaveLength(1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: tableKeys.ttlAttribute, Enabled: true },
        KeySchema: [
          { AttributeName: tableKeys.partitionKey, KeyType: 'HASH' },
          { AttributeName: tableKeys.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: indexes.map((index) =>
          Match.objectLike({
            IndexName: index.name,
            KeySchema: [
              { AttributeName: index.partitionKey, KeyType: 'HASH' },
              { AttributeName: index.sortKey, KeyType: 'RANGE' },
            ],
          }),
        ),
      }),
    });
  });
});

describe('queues', () => {
  it.each(queues.map((def) => [def.name, def] as const))('%s has its own DLQ and the manifest redrive count', (_, def) => {
    // Prepare
    const queue = stack.shared.queues.queue(def.name);

    // Act
    const properties = resources[logicalId(queue)]!.Properties;
    const dlqId = properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string;

    // Assess
    expect(properties).toMatchObject({
      VisibilityTimeout: def.visibilityTimeoutSeconds,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { maxReceiveCount: def.maxReceiveCount },
    });
    expect(resources[dlqId]!.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
  });

  it('are exactly the manifest queues plus one DLQ each, all refusing plain HTTP', () => {
    // Act
    const all = template.findResources('AWS::SQS::Queue');
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy'));

    // Assess
    expect(Object.keys(all)).toHaveLength(queues.length * 2);
    for (const id of Object.keys(all)) {
      const policy = policies.find((p) => JSON.stringify(p.Properties.Queues).includes(`"${id}"`));
      expect(JSON.stringify(policy?.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
    }
  });
});

describe('functions', () => {
  it('are one Node.js 24 ARM64 Lambda per manifest entry with its memory and timeout', () => {
    // Act
    const lambdas = template.findResources('AWS::Lambda::Function');

    // Assess
    expect(Object.keys(lambdas)).toHaveLength(functions.length);
    for (const def of functions) {
      expect(resources[functionId(def)]!.Properties).toMatchObject({
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: `index.${def.handler}`,
        MemorySize: def.memoryMb,
        Timeout: def.timeoutSeconds,
      });
    }
  });

  it('write to their own log group with a retention, and carry no managed policies', () => {
    // Act
    const roles = Object.values(template.findResources('AWS::IAM::Role'));

    // Assess
    for (const def of functions) {
      const logGroupId = resources[functionId(def)]!.Properties.LoggingConfig.LogGroup.Ref as string;
      expect(resources[logGroupId]!.Properties.RetentionInDays).toBeGreaterThan(0);
    }
    for (const role of roles) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it.each(functions.map((def) => [def.name, def] as const))('%s gets only the environment its needs imply', (_, def) => {
    // Act
    const env = environmentOf(def);

    // Assess
    expect(env).toMatchObject({
      [envNames.runtime]: 'aws',
      [envNames.logLevel]: 'info',
      [envNames.sharedEmailSender]: 'sandbox@postbox.test',
    });
    // Stack traces are mapped when logged (shared/adapters/stack-trace.ts), not by Node at every cold start.
    expect(env.NODE_OPTIONS).toBeUndefined();
    expect(envNames.tableName in env).toBe(Boolean(def.needs.table));
    for (const secret of def.needs.secrets ?? []) expect(env).toHaveProperty(envNames.secretArn(secret));
    const queueUrls = Object.keys(env).filter((name) => name.startsWith('QUEUE_URL_'));
    // A redrive sends to every source queue (needs.deadLetters), beside the DLQs' own URLs.
    const sendsTo = def.needs.deadLetters ? queues.map((q) => q.name) : (def.needs.sendTo ?? []);
    expect(queueUrls.sort()).toEqual(sendsTo.map(envNames.queueUrl).sort());
    const dlqUrls = Object.keys(env).filter((name) => name.startsWith('DLQ_URL_'));
    expect(dlqUrls.sort()).toEqual(def.needs.deadLetters ? queues.map((q) => envNames.dlqUrl(q.name)).sort() : []);
    expect(envNames.bucketName in env).toBe(Boolean(def.needs.bucket));
    expect(envNames.sesConfigurationSet in env).toBe(Boolean(def.needs.sesSend));
    expect(envNames.schedulerGroup in env).toBe(Boolean(def.needs.scheduler));
  });
});

describe('least privilege', () => {
  it.each(functions.map((def) => [def.name, def] as const))('%s may touch only what its needs list', (_, def) => {
    // Act
    const actions = allowedActions(def);
    const has = (prefix: string) => actions.some((action) => action.startsWith(prefix));

    // Assess
    expect(actions).toEqual(expect.arrayContaining(['logs:CreateLogStream', 'logs:PutLogEvents']));
    expect(has('dynamodb:')).toBe(Boolean(def.needs.table));
    expect(actions.includes('dynamodb:PutItem')).toBe(def.needs.table === 'readwrite');
    expect(actions).not.toContain('dynamodb:Scan');
    expect(actions.includes('sqs:SendMessage')).toBe((def.needs.sendTo ?? []).length > 0 || Boolean(def.needs.deadLetters));
    expect(actions.includes('sqs:ReceiveMessage')).toBe(Boolean(def.queue) || Boolean(def.needs.deadLetters));
    expect(has('secretsmanager:')).toBe((def.needs.secrets ?? []).length > 0);
    expect(actions.includes('ses:SendEmail')).toBe(Boolean(def.needs.sesSend));
    expect(actions.includes('ses:CreateEmailIdentity')).toBe(Boolean(def.needs.sesIdentities));
    expect(has('ses:')).toBe(Boolean(def.needs.sesSend || def.needs.sesIdentities));
    expect(has('scheduler:') || actions.includes('iam:PassRole')).toBe(Boolean(def.needs.scheduler));
    expect(has('s3:')).toBe(Boolean(def.needs.bucket));
  });

  it('lets the dead-letter routes receive and delete on the DLQs only, never on the queues themselves', () => {
    // Prepare
    const dlqIds = new Set(queues.map((q) => logicalId(stack.shared.queues.deadLetterQueue(q.name))));
    const roleId = logicalId(stack.functions.get('admin')!.role);

    // Act
    const receiving = Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(`"${roleId}"`))
      .flatMap((r) => r.Properties.PolicyDocument.Statement)
      .filter((statement: { Action: string | string[] }) => [statement.Action].flat().some((a) => a === 'sqs:ReceiveMessage' || a === 'sqs:DeleteMessage'));

    // Assess
    const targets = receiving.map((statement: { Resource: unknown }) => JSON.stringify(statement.Resource));
    expect(targets).toHaveLength(queues.length);
    for (const target of targets) expect([...dlqIds].some((id) => target.includes(`"${id}"`))).toBe(true);
  });

  it('gives the catch-all function no table access and keeps the keys function off the queues', () => {
    // Prepare
    const fallback = functions.find((def) => def.defaultRoute)!;
    const keysFn = functions.find((def) => def.name === 'keys')!;

    // Act
    const fallbackActions = allowedActions(fallback);
    const keysActions = allowedActions(keysFn);

    // Assess
    expect(fallbackActions.filter((action) => action.startsWith('dynamodb:'))).toEqual([]);
    expect(keysActions.filter((action) => action.startsWith('sqs:'))).toEqual([]);
  });

  it('reads only the secrets a function lists', () => {
    for (const def of functions) {
      // Prepare
      const roleId = logicalId(stack.functions.get(def.name)!.role);
      const allowed = new Set((def.needs.secrets ?? []).map((name) => logicalId(stack.shared.secrets.secret(name))));

      // Act
      const secretRefs = Object.values(resources)
        .filter((r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(`"${roleId}"`))
        .flatMap((r) => r.Properties.PolicyDocument.Statement)
        .filter((statement) => [statement.Action].flat().includes('secretsmanager:GetSecretValue'))
        .map((statement) => statement.Resource.Ref as string);

      // Assess
      expect(new Set(secretRefs)).toEqual(allowed);
    }
  });
});

describe('HTTP API', () => {
  function integrationTarget(routeProps: Record<string, any>): string {
    const integrationId = routeProps.Target['Fn::Join'][1][1].Ref as string;
    return resources[integrationId]!.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
  }

  it.each(httpRoutes().map((route) => [routeKey(route), route] as const))('routes %s to its function', (key, route) => {
    // Act: its own route, or the ANY route of a path its function alone serves
    const own = Object.values(template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: key } }));
    const any = Object.values(template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: `ANY ${route.path}` } }));

    // Assess
    expect(own.length + any.length).toBe(1);
    expect(integrationTarget([...own, ...any][0]!.Properties)).toBe(functionId(route.fn));
  });

  it('routes a path served by one function as one ANY route, and a shared path method by method (test/unit/gateway-routes.test.ts)', () => {
    const owners = new Map<string, Set<string>>();
    for (const r of httpRoutes()) owners.set(r.path, (owners.get(r.path) ?? new Set()).add(r.fn.name));
    const keys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map((r) => r.Properties.RouteKey as string);
    for (const [path, names] of owners) {
      if (names.size === 1) expect(keys.filter((k) => k.endsWith(` ${path}`)), path).toEqual([`ANY ${path}`]);
      else expect(keys, path).not.toContain(`ANY ${path}`);
    }
  });

  it('sends $default to the catch-all function and has no route the manifest lacks', () => {
    // Prepare
    const owner = functions.find((def) => def.defaultRoute)!;
    const expectedKeys = [...gatewayRoutes(functions).map((r) => `${r.method} ${r.path}`), '$default'].sort();

    // Act
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
    const defaultRoute = routes.find((route) => route.Properties.RouteKey === '$default');

    // Assess
    expect(integrationTarget(defaultRoute!.Properties)).toBe(functionId(owner));
    expect(routes.map((route) => route.Properties.RouteKey).sort()).toEqual(expectedKeys);
  });

  it('lets API Gateway invoke each function behind it through one permission for all its routes, so the stack stays well inside CloudFormation\'s 500 resources', () => {
    const apiFunctions = functions.filter((def) => (def.http?.length ?? 0) > 0 || def.defaultRoute);
    const apiPermissions = Object.values(template.findResources('AWS::Lambda::Permission', { Properties: { Principal: 'apigateway.amazonaws.com' } }));
    expect(apiPermissions).toHaveLength(apiFunctions.length);
    for (const def of apiFunctions) {
      expect(apiPermissions.filter((p) => p.Properties.FunctionName['Fn::GetAtt']?.[0] === functionId(def))).toHaveLength(1);
    }
    // Room for the routes and functions still to come: a stack past 500 resources cannot deploy.
    expect(Object.keys(resources).length).toBeLessThanOrEqual(STACK_RESOURCE_BUDGET);
  });

  it('uses payload v2 and logs access on its auto-deployed $default stage', () => {
    template.allResourcesProperties('AWS::ApiGatewayV2::Integration', { IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context\\.requestId') },
    });
  });

  it('throttles every route of the stage by default (API_THROTTLE_RATE, API_THROTTLE_BURST)', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: DEFAULT_API_THROTTLE.rateLimit, ThrottlingBurstLimit: DEFAULT_API_THROTTLE.burstLimit }),
    });
  });
});

describe('mail events', () => {
  it('publishes configuration-set events to SNS, which feeds the ses-events queue', () => {
    // Prepare
    const topicId = logicalId(stack.shared.mail.topic);
    const eventsQueueId = logicalId(stack.shared.queues.queue('ses-events'));

    // Assess
    // The default set and one per tracking choice: opens, clicks, both (test/cdk/tracking.test.ts).
    template.resourceCountIs('AWS::SES::ConfigurationSet', 4);
    template.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      ConfigurationSetName: { Ref: logicalId(stack.shared.mail.configurationSet) },
      EventDestination: {
        Enabled: true,
        MatchingEventTypes: Match.arrayWith(['send', 'bounce', 'complaint', 'delivery']),
        SnsDestination: { TopicARN: { Ref: topicId } },
      },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: { Ref: topicId },
      Endpoint: { 'Fn::GetAtt': [eventsQueueId, 'Arn'] },
      RawMessageDelivery: false,
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Allow', Action: 'sns:Publish', Principal: { Service: 'ses.amazonaws.com' } }),
        ]),
      },
    });
  });
});

describe('scheduler', () => {
  it('has a schedule group and a role the scheduler assumes to send to every queue', () => {
    // Prepare
    const roleId = logicalId(stack.shared.scheduler.role);

    // Act
    const role = resources[roleId]!.Properties;
    const policy = Object.values(resources).find(
      (r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes(`"${roleId}"`),
    )!;
    const targets = policy.Properties.PolicyDocument.Statement.filter((s: { Action: string[] }) => s.Action.includes('sqs:SendMessage'))
      .map((s: { Resource: { 'Fn::GetAtt': string[] } }) => s.Resource['Fn::GetAtt'][0]);

    // Assess
    template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    expect(role.AssumeRolePolicyDocument.Statement[0].Principal).toEqual({ Service: 'scheduler.amazonaws.com' });
    expect(targets.sort()).toEqual(queues.map((def) => logicalId(stack.shared.queues.queue(def.name))).sort());
  });
});

describe('timed functions', () => {
  it('invoke each manifest function with `every` from a rate rule, and nothing else on a timer', () => {
    const timed = functions.filter((f) => f.every);
    expect(timed.map((f) => f.name)).toContain('acceptance-sweep');
    const rules = template.findResources('AWS::Events::Rule');
    expect(Object.keys(rules)).toHaveLength(timed.length);
    for (const def of timed) {
      const minutes = def.every!.minutes;
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: `rate(${minutes} ${minutes === 1 ? 'minute' : 'minutes'})`,
        State: 'ENABLED',
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [functionId(def), 'Arn'] }, RetryPolicy: { MaximumRetryAttempts: 0 } })],
      });
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'events.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [functionId(def), 'Arn'] },
      });
    }
  });
});

describe('storage', () => {
  it('keeps the bucket encrypted, private, SSL-only and access-logged', () => {
    // Prepare
    const bucketId = logicalId(stack.shared.storage.bucket);

    // Act
    const bucket = resources[bucketId]!;
    const policy = Object.values(template.findResources('AWS::S3::BucketPolicy')).find(
      (p) => p.Properties.Bucket.Ref === bucketId,
    );

    // Assess
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LoggingConfiguration: { DestinationBucketName: { Ref: logicalId(stack.shared.storage.accessLogs) } },
    });
    expect(JSON.stringify(policy?.Properties.PolicyDocument)).toContain('"aws:SecureTransport":"false"');
  });
});

describe('secrets', () => {
  it('creates one secret per secret a function needs, generated, or holding the unset placeholder for an operator secret; no value in the template', () => {
    // Prepare
    const names = [...new Set(functions.flatMap((def) => def.needs.secrets ?? []))];

    // Act
    const secrets = template.findResources('AWS::SecretsManager::Secret');

    // Assess
    expect(Object.keys(secrets)).toHaveLength(names.length);
    for (const name of names) {
      const secret = secrets[logicalId(stack.shared.secrets.secret(name))]!;
      if (operatorSecrets.includes(name)) {
        // The Stripe keys: billing stays off until the operator puts Stripe's values in.
        expect(secret.Properties.SecretString).toBe(UNSET_SECRET);
        expect(secret.Properties.GenerateSecretString).toBeUndefined();
      } else {
        expect(secret.Properties.GenerateSecretString).toBeDefined();
        expect(secret.Properties.SecretString).toBeUndefined();
      }
    }
    const text = JSON.stringify(template.toJSON());
    expect(text.match(/"SecretString":"[^"]*"/g)).toEqual(operatorSecrets.map(() => `"SecretString":"${UNSET_SECRET}"`));
    expect(['sk_live_', 'sk_test_', 'whsec_'].filter((needle) => text.includes(needle))).toEqual([]);
  });

  it('hands the Stripe price ids given as context to the billing function only', () => {
    const priced = Template.fromStack(new AppStack(testApp(), 'Priced', { stage: 'test', stripePrices: { [envNames.stripePrice('pro', 'year')]: 'price_pro_year' } }));
    const withPrice = Object.values(priced.findResources('AWS::Lambda::Function')).filter((fn) => JSON.stringify(fn.Properties.Environment ?? {}).includes('price_pro_year'));
    expect(withPrice.map((fn) => fn.Properties.Description)).toEqual(['Postbox billing']);
  });

  it('hands the reputation levels given as context to the functions that judge or show reputation only', () => {
    const app = testApp();
    app.node.setContext(envNames.reputation.pauseBounceRate, '0.06');
    app.node.setContext(envNames.reputation.minSends, 500);
    const levelled = Template.fromStack(new AppStack(app, 'Levelled', { stage: 'test' }));
    const withLevels = Object.values(levelled.findResources('AWS::Lambda::Function')).filter((fn) => fn.Properties.Environment?.Variables?.[envNames.reputation.pauseBounceRate] !== undefined);
    expect(withLevels.map((fn) => fn.Properties.Description).sort()).toEqual(['Postbox account', 'Postbox send-worker', 'Postbox ses-events']);
    for (const fn of withLevels) expect(fn.Properties.Environment.Variables).toMatchObject({ REPUTATION_PAUSE_BOUNCE_RATE: '0.06', REPUTATION_MIN_SENDS: '500' });
    // Unset, the functions use the defaults: no function carries a level.
    expect(JSON.stringify(template.toJSON())).not.toContain('REPUTATION_');
  });

  it('refuses at synth the reputation levels every cold start would refuse', () => {
    const app = testApp();
    app.node.setContext(envNames.reputation.pauseBounceRate, '0.01');
    expect(() => new AppStack(app, 'Refused', { stage: 'test' })).toThrow(/invalid reputation configuration: REPUTATION_PAUSE_BOUNCE_RATE \(0\.01\) is below REPUTATION_WARN_BOUNCE_RATE/);
  });
});

describe('manifest guards', () => {
  it('refuses two owners of the $default route', () => {
    // Prepare
    const owner = functions.find((def) => def.defaultRoute)!;
    const twin: FunctionDef = { ...owner, name: `${owner.name}-twin` };

    // Act
    const act = () => new AppStack(testApp(), 'Twin', { stage: 'test', functions: [owner, twin] });

    // Assess
    expect(act).toThrow(/Only one function may own the \$default route/);
  });
});
