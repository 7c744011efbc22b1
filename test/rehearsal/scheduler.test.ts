// The rehearsal's EventBridge Scheduler (rehearsal/scheduler.ts) on its own: the protocol as the
// functions' adapter and SDK client speak it, the IAM checks of each call, the firing of at()
// schedules when due, and what Scheduler checks before it sends as the schedule's role (the role's
// trust policy). The stack's flows through it are in flows.test.ts.
import { CreateScheduleCommand, GetScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterEach, describe, expect, it } from 'vitest';
import { evaluate, trustRefusal } from '../../rehearsal/iam';
import { sqsTarget, startScheduler, type SchedulerOptions, type SchedulerStandIn, type StoredSchedule } from '../../rehearsal/scheduler';
import { EventBridgeScheduler } from '../../shared/adapters/aws/event-bridge-scheduler';
import { ConditionFailedError } from '../../shared/errors';
import type { AwsCall } from '../../rehearsal/aws-front';

const ACCOUNT = '123456789012';
const GROUP = { name: 'Postbox-Group-ABC', arn: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule-group/Postbox-Group-ABC` };
const ROLE_ARN = `arn:aws:iam::${ACCOUNT}:role/SchedulerRole`;
const QUEUE_ARN = `arn:aws:sqs:us-east-1:${ACCOUNT}:send`;
const schedulesArn = `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/${GROUP.name}/*`;

/** The send function's grants, as the stack writes them (lib/constructs/needs.ts). */
const functionStatements = [
  { Effect: 'Allow' as const, Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'], Resource: schedulesArn },
  { Effect: 'Allow' as const, Action: 'iam:PassRole', Resource: ROLE_ARN },
];

let running: SchedulerStandIn | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function start(overrides: Partial<SchedulerOptions> = {}) {
  const calls: Array<AwsCall & { denied?: string }> = [];
  const invoked: StoredSchedule[] = [];
  running = await startScheduler({
    groups: [GROUP],
    tickMs: 0,
    authorize: (call) => {
      const denied = call.checks.map((c) => evaluate(functionStatements, c)).find(Boolean);
      calls.push({ ...call, ...(denied ? { denied } : {}) });
      return denied;
    },
    invokeTarget: async (schedule) => {
      invoked.push(schedule);
    },
    ...overrides,
  });
  const client = new SchedulerClient({ region: 'us-east-1', endpoint: running.endpoint, credentials: { accessKeyId: 'ASIAREHEARSAL0001', secretAccessKey: 'x' }, maxAttempts: 1 });
  const adapter = (roleArn = ROLE_ARN) => new EventBridgeScheduler(client, { groupName: GROUP.name, roleArn, queueArns: { send: QUEUE_ARN } });
  return { stand: running, calls, invoked, client, adapter };
}

describe("the rehearsal's EventBridge Scheduler, as the functions' adapter calls it", () => {
  it('creates an at() schedule in the group, refuses the same name again (the adapter\'s ConditionFailedError), and deletes it once', async () => {
    // Prepare
    const { stand, adapter, client, calls } = await start();
    const at = new Date('2030-01-02T03:04:05.250Z');
    // Act
    await adapter().schedule({ id: 'msg_1', at, queue: 'send', body: { message_id: 'msg_1' } });
    // Assert: stored as the adapter asked, rounded up to the second, and read back over the protocol.
    expect(stand.schedule('msg_1')).toMatchObject({ groupName: GROUP.name, expression: 'at(2030-01-02T03:04:06)', actionAfterCompletion: 'DELETE', target: { Arn: QUEUE_ARN, RoleArn: ROLE_ARN, Input: '{"message_id":"msg_1"}' } });
    const read = await client.send(new GetScheduleCommand({ Name: 'msg_1', GroupName: GROUP.name })).catch((error: Error) => error);
    expect(read).toMatchObject({ name: 'AccessDeniedException' }); // the function's role may create and delete only
    await expect(adapter().schedule({ id: 'msg_1', at, queue: 'send', body: {} })).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await adapter().cancel('msg_1')).toBe(true);
    expect(await adapter().cancel('msg_1')).toBe(false);
    expect(stand.schedules()).toEqual([]);
    expect(calls[0]!.checks).toEqual([
      { action: 'scheduler:CreateSchedule', resource: `arn:aws:scheduler:us-east-1:${ACCOUNT}:schedule/${GROUP.name}/msg_1` },
      { action: 'iam:PassRole', resource: ROLE_ARN },
    ]);
  });

  it('denies passing a role the caller may not pass, naming iam:PassRole and the role', async () => {
    const { stand, adapter } = await start();
    const other = `arn:aws:iam::${ACCOUNT}:role/Other`;
    await expect(adapter(other).schedule({ id: 'msg_2', at: new Date('2030-01-01T00:00:00Z'), queue: 'send', body: {} })).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringContaining(`no statement allows iam:PassRole on ${other}`),
    });
    expect(stand.schedules()).toEqual([]);
  });

  it('answers as the service for a group that does not exist, a name it refuses, and an expression the rehearsal does not fire', async () => {
    const { client } = await start({ authorize: () => undefined });
    const create = (Name: string, GroupName: string, ScheduleExpression = 'at(2030-01-01T00:00:00)') =>
      client
        .send(new CreateScheduleCommand({ Name, GroupName, ScheduleExpression, FlexibleTimeWindow: { Mode: 'OFF' }, Target: { Arn: QUEUE_ARN, RoleArn: ROLE_ARN, Input: '{}' } }))
        .catch((error: Error) => error);
    expect(await create('x', 'nope')).toMatchObject({ name: 'ResourceNotFoundException', message: 'Schedule group nope does not exist.' });
    expect(await create('bad name', GROUP.name)).toMatchObject({ name: 'ValidationException' });
    expect(await create('y', GROUP.name, 'at(2030-02-30T00:00:00)')).toMatchObject({ name: 'ValidationException' });
    expect(await create('z', GROUP.name, 'rate(5 minutes)')).toMatchObject({ message: expect.stringContaining('one-time at() schedules only') });
  });
});

describe('firing', () => {
  it('fires an at() schedule only once it is due, then deletes it (ActionAfterCompletion DELETE) or keeps it done (NONE)', async () => {
    // Prepare
    const { stand, adapter, invoked } = await start();
    const at = new Date('2030-01-01T00:00:00Z');
    await adapter().schedule({ id: 'msg_3', at, queue: 'send', body: { n: 3 } });
    // Act + Assert: not a second early, then once.
    expect(await stand.fireDue(new Date(at.getTime() - 1000))).toEqual([]);
    const [firing] = await stand.fireDue(at);
    expect(firing).toMatchObject({ name: 'msg_3', ok: true, attempt: 1, targetArn: QUEUE_ARN, roleArn: ROLE_ARN, due: at.toISOString() });
    expect(invoked.map((s) => s.target.Input)).toEqual(['{"n":3}']);
    expect(stand.schedule('msg_3')).toBeUndefined();
    expect(await stand.fireDue(new Date(at.getTime() + 3_600_000))).toEqual([]);
  });

  it('retries a failed firing no sooner than a minute later, telling onFailure each time', async () => {
    // Prepare
    const failures: string[] = [];
    let refuse = true;
    const { stand, adapter } = await start({
      invokeTarget: async () => {
        if (refuse) throw new Error('AccessDenied: sqs:SendMessage');
      },
      onFailure: (f) => failures.push(`${f.name}#${f.attempt}: ${f.error}`),
    });
    const at = new Date('2030-01-01T00:00:00Z');
    await adapter().schedule({ id: 'msg_4', at, queue: 'send', body: {} });
    // Act
    const [first] = await stand.fireDue(at);
    const early = await stand.fireDue(new Date(at.getTime() + 59_000));
    refuse = false;
    const [second] = await stand.fireDue(new Date(at.getTime() + 60_000));
    // Assert
    expect(first).toMatchObject({ ok: false, error: 'AccessDenied: sqs:SendMessage' });
    expect(early).toEqual([]);
    expect(second).toMatchObject({ ok: true, attempt: 2 });
    expect(failures).toEqual(['msg_4#1: AccessDenied: sqs:SendMessage']);
    expect(stand.firings).toHaveLength(2);
  });
});

describe('what Scheduler checks before it sends as the schedule\'s role', () => {
  const trust = {
    Statement: [
      {
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Action: 'sts:AssumeRole',
        Condition: { StringEquals: { 'aws:SourceAccount': ACCOUNT }, ArnLike: { 'aws:SourceArn': GROUP.arn } },
      },
    ],
  };
  const context = { 'aws:SourceAccount': ACCOUNT, 'aws:SourceArn': GROUP.arn };

  it('lets the service assume the role only as its trust policy says: principal, action, and every condition holding', () => {
    expect(trustRefusal(trust, 'scheduler.amazonaws.com', context)).toBeUndefined();
    expect(trustRefusal(trust, 'events.amazonaws.com', context)).toMatch(/no statement of its trust policy lets events.amazonaws.com sts:AssumeRole/);
    expect(trustRefusal(trust, 'scheduler.amazonaws.com', { ...context, 'aws:SourceArn': `${GROUP.arn}-other` })).toMatch(/conditions that do not hold: .*ArnLike aws:SourceArn/);
    expect(trustRefusal(trust, 'scheduler.amazonaws.com', { 'aws:SourceArn': GROUP.arn })).toMatch(/StringEquals aws:SourceAccount .* an absent key/);
    const unknown = { Statement: [{ ...trust.Statement[0], Condition: { IpAddress: { 'aws:SourceIp': '10.0.0.0/8' } } }] };
    expect(trustRefusal(unknown, 'scheduler.amazonaws.com', context)).toMatch(/IpAddress is not evaluated/);
    const denied = { Statement: [...trust.Statement, { Effect: 'Deny', Principal: '*', Action: 'sts:*' }] };
    expect(trustRefusal(denied, 'scheduler.amazonaws.com', context)).toMatch(/denies/);
  });

  it('sends the Input to the target queue as the role it assumed; refuses a role that does not trust Scheduler, or a target that is no queue', async () => {
    // Prepare
    const sent: string[] = [];
    const deps = (trustPolicy: unknown) => ({
      role: (arn: string) => (arn === ROLE_ARN ? { logicalId: 'SchedulerRole', trustPolicy } : undefined),
      queueUrl: (arn: string) => (arn === QUEUE_ARN ? 'http://127.0.0.1:1/123456789012/send' : undefined),
      send: async (role: string, url: string, body: string) => void sent.push(`${role} ${url} ${body}`),
    });
    const schedule = (target: Partial<StoredSchedule['target']>) => ({ arn: `${GROUP.arn}/s`, target: { Arn: QUEUE_ARN, RoleArn: ROLE_ARN, Input: '{"a":1}', ...target } }) as StoredSchedule;
    // Act + Assert
    await sqsTarget(deps(trust))(schedule({}), GROUP);
    expect(sent).toEqual(['SchedulerRole http://127.0.0.1:1/123456789012/send {"a":1}']);
    await expect(sqsTarget(deps({ Statement: [] }))(schedule({}), GROUP)).rejects.toThrow(/Scheduler cannot assume .*SchedulerRole.*no statement of its trust policy/);
    await expect(sqsTarget(deps(trust))(schedule({ RoleArn: `${ROLE_ARN}2` }), GROUP)).rejects.toThrow(/no role of the template has that ARN/);
    await expect(sqsTarget(deps(trust))(schedule({ Arn: `${QUEUE_ARN}-gone` }), GROUP)).rejects.toThrow(/no queue of the template/);
  });
});
