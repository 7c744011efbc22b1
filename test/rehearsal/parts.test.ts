// The rules the rehearsal plays AWS by, one at a time: IAM's evaluation of a role's statements,
// API Gateway's choice of a route, Lambda's reading of a partial batch answer, CloudFormation's
// intrinsic functions, Lambda's refusals of an environment and its lookup of a handler, SES event
// publishing and SNS's delivery to queues.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failedIds } from '../../rehearsal/event-sources';
import { matchRoute, type ApiRoute } from '../../rehearsal/http-api';
import { evaluate } from '../../rehearsal/iam';
import { environmentProblems, handlerFile } from '../../rehearsal/lambda';
import { deliveryEvent, queuePolicyAdmits, readEventDestinations, readSubscriptions, snsEnvelope } from '../../rehearsal/sns';
import { ruleTakes, servicePolicyRefusal } from '../../rehearsal/receiving';
import { Resolver, tableResource, type CfnTemplate, type PhysicalResource } from '../../rehearsal/template';

describe('the IAM check', () => {
  const table = 'arn:aws:dynamodb:us-east-1:123456789012:table/Data';
  const statements = [
    { Effect: 'Allow' as const, Action: ['dynamodb:GetItem', 'dynamodb:Query'], Resource: [table, `${table}/index/*`] },
    { Effect: 'Allow' as const, Action: 'sqs:Send*', Resource: 'arn:aws:sqs:us-east-1:123456789012:send-?' },
    { Effect: 'Deny' as const, Action: 'dynamodb:*', Resource: `${table}/index/secret` },
    { Effect: 'Allow' as const, Action: 'ses:SendEmail', Resource: '*', Condition: { StringEquals: { 'ses:FromAddress': 'a@b.c' } } },
  ];

  it('allows an action a statement grants on the resource, with wildcards, case-insensitive in the action only', () => {
    expect(evaluate(statements, { action: 'dynamodb:GetItem', resource: table })).toBeUndefined();
    expect(evaluate(statements, { action: 'DynamoDB:getitem', resource: table })).toBeUndefined();
    expect(evaluate(statements, { action: 'dynamodb:Query', resource: `${table}/index/by-lookup` })).toBeUndefined();
    expect(evaluate(statements, { action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:123456789012:send-1' })).toBeUndefined();
  });

  it('refuses what no statement grants, and what a Deny names even where an Allow grants it', () => {
    expect(evaluate(statements, { action: 'dynamodb:PutItem', resource: table })).toMatch(/no statement allows dynamodb:PutItem/);
    expect(evaluate(statements, { action: 'dynamodb:GetItem', resource: table.replace('Data', 'data') })).toMatch(/no statement allows/);
    expect(evaluate(statements, { action: 'sqs:SendMessage', resource: 'arn:aws:sqs:us-east-1:123456789012:send-10' })).toMatch(/no statement allows/);
    expect(evaluate(statements, { action: 'dynamodb:Query', resource: `${table}/index/secret` })).toMatch(/explicitly denied/);
  });

  it('lets no statement with a Condition allow, and says why', () => {
    expect(evaluate(statements, { action: 'ses:SendEmail', resource: 'arn:aws:ses:us-east-1:123456789012:identity/b.c' })).toMatch(/Condition/);
  });
});

describe("API Gateway's choice of route", () => {
  const route = (routeKey: string): ApiRoute => {
    const [method, path] = routeKey === '$default' ? [null, ''] : (routeKey.split(' ') as [string, string]);
    return { routeKey, method, segments: path.split('/').filter(Boolean), functionArn: routeKey, payloadFormatVersion: '2.0' };
  };
  const routes = ['ANY /v1/webhooks', 'ANY /v1/webhooks/{id}', 'GET /v1/webhooks/{id}', 'POST /v1/webhooks/{id}/rotate-secret', 'ANY /v1/files/{proxy+}', 'GET /', '$default'].map(route);
  const pick = (method: string, path: string) => {
    const found = matchRoute(routes, method, path);
    return found && { key: found.route.routeKey, params: found.params };
  };

  it('takes the most specific path, a method over ANY, and $default last', () => {
    expect(pick('POST', '/v1/webhooks')).toEqual({ key: 'ANY /v1/webhooks', params: {} });
    expect(pick('GET', '/v1/webhooks/whk_1')).toEqual({ key: 'GET /v1/webhooks/{id}', params: { id: 'whk_1' } });
    expect(pick('DELETE', '/v1/webhooks/whk_1')).toEqual({ key: 'ANY /v1/webhooks/{id}', params: { id: 'whk_1' } });
    expect(pick('POST', '/v1/webhooks/whk_1/rotate-secret')).toEqual({ key: 'POST /v1/webhooks/{id}/rotate-secret', params: { id: 'whk_1' } });
    expect(pick('GET', '/v1/files/a/b%20c')).toEqual({ key: 'ANY /v1/files/{proxy+}', params: { proxy: 'a/b c' } });
    expect(pick('GET', '/')).toEqual({ key: 'GET /', params: {} });
    expect(pick('GET', '/v1/webhooks/whk_1/other')).toEqual({ key: '$default', params: {} });
    expect(pick('GET', '/v1/files')).toEqual({ key: '$default', params: {} });
    expect(matchRoute(routes.slice(0, 2), 'GET', '/nothing')).toBeUndefined();
  });
});

describe("Lambda's reading of an SQS batch answer", () => {
  const ids = ['m1', 'm2', 'm3'];
  const report = { reportBatchItemFailures: true };

  it('leaves exactly the reported failures on the queue', () => {
    expect(failedIds(report, ids, { ok: true, result: { batchItemFailures: [{ itemIdentifier: 'm2' }] } })).toEqual(['m2']);
    expect(failedIds(report, ids, { ok: true, result: { batchItemFailures: [] } })).toEqual([]);
    expect(failedIds(report, ids, { ok: true, result: null })).toEqual([]);
  });

  it('fails the whole batch on an error, or an answer that is not a valid report', () => {
    expect(failedIds(report, ids, { ok: false, error: { errorType: 'Error', errorMessage: 'x' } })).toEqual(ids);
    expect(failedIds(report, ids, { ok: true, result: { batchItemFailures: [{ itemIdentifier: 'm9' }] } })).toEqual(ids);
    expect(failedIds(report, ids, { ok: true, result: { batchItemFailures: [{ itemIdentifier: '' }] } })).toEqual(ids);
    expect(failedIds(report, ids, { ok: true, result: { batchItemFailures: 'm1' } })).toEqual(ids);
  });

  it('ignores a report where the mapping does not ask for one', () => {
    expect(failedIds({ reportBatchItemFailures: false }, ids, { ok: true, result: { batchItemFailures: [{ itemIdentifier: 'm2' }] } })).toEqual([]);
  });
});

describe("CloudFormation's intrinsic functions", () => {
  const template: CfnTemplate = { Resources: { Data: { Type: 'AWS::DynamoDB::Table' }, Bucket: { Type: 'AWS::S3::Bucket' } } };
  const resolver = new Resolver(template, new Map<string, PhysicalResource>([['Data', tableResource('data-table')]]), 'Postbox-test');

  it('resolves Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select and Fn::Split against what was made', () => {
    expect(resolver.resolve({ Ref: 'Data' }, 'x')).toBe('data-table');
    expect(resolver.resolve({ 'Fn::GetAtt': ['Data', 'Arn'] }, 'x')).toBe('arn:aws:dynamodb:us-east-1:123456789012:table/data-table');
    expect(resolver.resolve({ 'Fn::Join': ['', [{ 'Fn::GetAtt': 'Data.Arn' }, '/index/*']] }, 'x')).toBe('arn:aws:dynamodb:us-east-1:123456789012:table/data-table/index/*');
    expect(resolver.resolve({ 'Fn::Sub': 'arn:${AWS::Partition}:x:${AWS::Region}:${Data}:${Data.Arn}:${!Literal}' }, 'x')).toBe(
      'arn:aws:x:us-east-1:data-table:arn:aws:dynamodb:us-east-1:123456789012:table/data-table:${Literal}',
    );
    expect(resolver.resolve({ 'Fn::Sub': ['${A}-${AWS::AccountId}', { A: { Ref: 'Data' } }] }, 'x')).toBe('data-table-123456789012');
    expect(resolver.resolve({ 'Fn::Select': [1, { 'Fn::Split': ['/', 'a/b/c'] }] }, 'x')).toBe('b');
  });

  it('refuses what it did not make, naming the place in the template', () => {
    expect(() => resolver.resolve({ Ref: 'Bucket' }, 'Fn.Environment.Variables.BUCKET_NAME')).toThrow('Fn.Environment.Variables.BUCKET_NAME: Ref to Bucket (AWS::S3::Bucket), which the rehearsal does not create');
    expect(() => resolver.resolve({ 'Fn::GetAtt': ['Data', 'StreamArn'] }, 'y')).toThrow('y: Fn::GetAtt Data.StreamArn (AWS::DynamoDB::Table) is not known to the rehearsal');
    expect(() => resolver.resolve({ Ref: 'Nothing' }, 'z')).toThrow('z: Ref to Nothing, which is not in the template');
    expect(() => resolver.resolve({ 'Fn::ImportValue': 'x' }, 'w')).toThrow('w: Fn::ImportValue is not rehearsed');
  });
});

describe("Lambda's rules for a function", () => {
  const dir = mkdtempSync(join(tmpdir(), 'postbox-rehearsal-parts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses reserved variables and an environment past 4 KB', () => {
    expect(environmentProblems({ logicalId: 'Fn', environment: { AWS_REGION: 'x', TABLE_NAME: 't' } })).toEqual(["Fn: the environment sets Lambda's reserved AWS_REGION"]);
    expect(environmentProblems({ logicalId: 'Fn', environment: { BIG: 'x'.repeat(4096) } })[0]).toMatch(/past Lambda's 4 KB/);
    expect(environmentProblems({ logicalId: 'Fn', environment: { TABLE_NAME: 't' } })).toEqual([]);
  });

  it('finds the handler as the Node.js runtime does: .js, then .mjs, then .cjs', () => {
    writeFileSync(join(dir, 'index.mjs'), 'export const handler = async () => 1;');
    expect(handlerFile(dir, 'index.handler')).toEqual({ file: join(dir, 'index.mjs'), exportName: 'handler' });
    writeFileSync(join(dir, 'index.js'), '');
    expect(handlerFile(dir, 'index.handler')).toEqual({ file: join(dir, 'index.js'), exportName: 'handler' });
    expect(handlerFile(dir, 'main.handler')).toMatchObject({ errorType: 'Runtime.ImportModuleError' });
    expect(handlerFile(dir, 'handler')).toMatchObject({ errorType: 'Runtime.MalformedHandlerName' });
  });
});

describe('SES event publishing and SNS', () => {
  const topic = 'arn:aws:sns:us-east-1:123456789012:Events';
  const queueArn = 'arn:aws:sqs:us-east-1:123456789012:ses-events';
  const policyTemplate = (statement: Record<string, unknown>): CfnTemplate => ({
    Resources: {
      Q: { Type: 'AWS::SQS::QueuePolicy', Properties: { Queues: ['http://127.0.0.1:1/123456789012/ses-events'], PolicyDocument: { Statement: [statement] } } },
    },
  });
  const resolverOf = (t: CfnTemplate): Resolver => new Resolver(t, new Map(), 'Stack');
  const allow = { Effect: 'Allow', Principal: { Service: 'sns.amazonaws.com' }, Action: 'sqs:SendMessage', Resource: queueArn };

  it('lets the topic send to a queue only through a policy that admits SNS for that topic', () => {
    const admits = (statement: Record<string, unknown>): boolean => queuePolicyAdmits(policyTemplate(statement), resolverOf(policyTemplate(statement)), queueArn, topic);
    expect(admits({ ...allow, Condition: { ArnEquals: { 'aws:SourceArn': topic } } })).toBe(true);
    expect(admits(allow)).toBe(true);
    expect(admits({ ...allow, Condition: { ArnEquals: { 'aws:SourceArn': `${topic}-other` } } })).toBe(false);
    expect(admits({ ...allow, Principal: { Service: 'events.amazonaws.com' } })).toBe(false);
    expect(admits({ ...allow, Effect: 'Deny' })).toBe(false);
    // A condition the rehearsal does not evaluate makes the statement not count.
    expect(admits({ ...allow, Condition: { Bool: { 'aws:SecureTransport': 'true' } } })).toBe(false);
  });

  it('reports a send as SES event publishing does: the tags of the send, the configuration set, every recipient', () => {
    const event = deliveryEvent({
      request: {
        FromEmailAddress: 'Shop <news@shop.example>',
        Destination: { ToAddresses: ['a@x.example'], CcAddresses: ['b@x.example'] },
        Content: { Simple: { Subject: { Data: 'Hi' } } },
        ConfigurationSetName: 'set-1',
        EmailTags: [{ Name: 'postbox-message-id', Value: 'msg_1' }],
      },
      providerMessageId: 'ses-1',
      timestamp: '2026-01-01T00:00:00.000Z',
    }) as { eventType: string; mail: { messageId: string; tags: Record<string, string[]>; destination: string[] }; delivery: { timestamp: string; recipients: string[] } };
    expect(event.eventType).toBe('Delivery');
    expect(event.mail.messageId).toBe('ses-1');
    expect(event.mail.tags).toMatchObject({ 'postbox-message-id': ['msg_1'], 'ses:configuration-set': ['set-1'], 'ses:from-domain': ['shop.example'] });
    expect(event.delivery.recipients).toEqual(['a@x.example', 'b@x.example']);
    expect(Date.parse(event.delivery.timestamp)).toBeGreaterThan(Date.parse('2026-01-01T00:00:00.000Z'));
  });

  it('wraps a notification in the SNS envelope, naming the topic', () => {
    expect(snsEnvelope(topic, '{"a":1}', 'id-1', '2026-01-01T00:00:00.000Z')).toMatchObject({ Type: 'Notification', MessageId: 'id-1', TopicArn: topic, Message: '{"a":1}' });
  });

  it('reads subscriptions with their delivery mode, and event destinations as CloudFormation spells them', () => {
    const template: CfnTemplate = {
      Resources: {
        S: { Type: 'AWS::SNS::Subscription', Properties: { TopicArn: topic, Protocol: 'sqs', Endpoint: queueArn, RawMessageDelivery: 'true' } },
        D: { Type: 'AWS::SES::ConfigurationSetEventDestination', Properties: { ConfigurationSetName: 'set-1', EventDestination: { Enabled: true, MatchingEventTypes: ['DELIVERY', 'bounce'], SnsDestination: { TopicARN: topic } } } },
      },
    };
    expect(readSubscriptions(template, resolverOf(template))).toEqual([{ logicalId: 'S', topicArn: topic, protocol: 'sqs', endpoint: queueArn, raw: true }]);
    expect(readEventDestinations(template, resolverOf(template))).toEqual([{ logicalId: 'D', configurationSet: 'set-1', enabled: true, eventTypes: ['delivery', 'bounce'], topicArn: topic }]);
  });
});

describe('SES receiving under resource policies', () => {
  const object = 'arn:aws:s3:::data/inbound/raw/abc';
  const context = { 'aws:SourceAccount': '123456789012', 'aws:SecureTransport': 'true' };
  const policy = {
    Statement: [
      { Effect: 'Deny', Principal: { AWS: '*' }, Action: 's3:*', Resource: ['arn:aws:s3:::data', 'arn:aws:s3:::data/*'], Condition: { Bool: { 'aws:SecureTransport': 'false' } } },
      { Effect: 'Allow', Principal: { Service: 'ses.amazonaws.com' }, Action: 's3:PutObject', Resource: 'arn:aws:s3:::data/inbound/raw/*', Condition: { StringEquals: { 'aws:SourceAccount': '123456789012' } } },
    ],
  };

  it('lets SES write under the prefix the policy names, in its own account and over TLS', () => {
    expect(servicePolicyRefusal([policy], 'ses.amazonaws.com', 's3:PutObject', object, context)).toBeUndefined();
  });

  it('refuses another prefix, another account, a Deny whose condition holds, and a statement leaning on a condition it does not know', () => {
    expect(servicePolicyRefusal([policy], 'ses.amazonaws.com', 's3:PutObject', 'arn:aws:s3:::data/uploads/x', context)).toMatch(/no resource policy lets ses.amazonaws.com/);
    expect(servicePolicyRefusal([policy], 'ses.amazonaws.com', 's3:PutObject', object, { ...context, 'aws:SourceAccount': '999999999999' })).toMatch(/no resource policy/);
    expect(servicePolicyRefusal([policy], 'ses.amazonaws.com', 's3:PutObject', object, { ...context, 'aws:SecureTransport': 'false' })).toMatch(/denies/);
    const leaning = { Statement: [{ ...policy.Statement[1]!, Condition: { StringEquals: { 'aws:SourceArn': 'arn:aws:ses:…' } } }] };
    expect(servicePolicyRefusal([leaning], 'ses.amazonaws.com', 's3:PutObject', object, context)).toMatch(/no resource policy/);
  });

  it('takes a recipient as a receipt rule does: every address without recipients, else the address, its domain or a parent domain with a leading dot', () => {
    expect(ruleTakes([], 'a@example.com')).toBe(true);
    expect(ruleTakes(['example.com'], 'A@Example.com')).toBe(true);
    expect(ruleTakes(['.example.com'], 'a@mail.example.com')).toBe(true);
    expect(ruleTakes(['b@example.com'], 'a@example.com')).toBe(false);
  });
});
