// The two Scheduler adapters: StoreScheduler over a real (dynalite) store, and
// EventBridgeScheduler against a mocked SchedulerClient.
import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  SchedulerClient,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type QueueName } from '../../shared/platform';
import { EventBridgeScheduler } from '../../shared/adapters/aws/event-bridge-scheduler';
import { FIRE_LEASE_MS, StoreScheduler } from '../../shared/adapters/local/store-scheduler';
import { keys } from '../../shared/db/keys';
import { ConditionFailedError } from '../../shared/errors';
import { ManualClock } from '../../shared/ports/clock';
import type { Queue } from '../../shared/ports/queue';
import { startTestStore, type TestStore } from '../support/store';

interface Sent {
  queue: QueueName;
  body: unknown;
}

/** A Queue that records what it was given; `failNext` makes the next sends throw. */
class RecordingQueue implements Queue {
  readonly sent: Sent[] = [];
  failNext = 0;

  async send(queue: QueueName, body: unknown): Promise<void> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('queue unavailable');
    }
    this.sent.push({ queue, body });
  }

  async sendBatch(queue: QueueName, bodies: readonly unknown[]): Promise<void> {
    for (const body of bodies) await this.send(queue, body);
  }
}

describe('StoreScheduler', () => {
  // A fresh store per test: fireDue delivers everything due in the one schedules partition.
  let t: TestStore;
  let clock: ManualClock;
  let queue: RecordingQueue;
  let scheduler: StoreScheduler;

  beforeEach(async () => {
    t = await startTestStore();
    clock = new ManualClock('2026-05-01T12:00:00.000Z');
    queue = new RecordingQueue();
    scheduler = new StoreScheduler(t.store);
  });

  afterEach(async () => {
    await t?.close();
  });

  const inSeconds = (s: number) => new Date(clock.now().getTime() + s * 1000);

  it('fires a schedule only once it is due, and only once', async () => {
    // Prepare
    await scheduler.schedule({ id: 'bc_1', at: inSeconds(60), queue: 'fanout', body: { broadcast_id: 'bc_1' } });

    // Act
    const early = await scheduler.fireDue(inSeconds(59.999), queue);
    const sentEarly = queue.sent.length;
    const due = await scheduler.fireDue(inSeconds(60), queue);
    const later = await scheduler.fireDue(inSeconds(3600), queue);

    // Assess
    expect(early).toBe(0);
    expect(sentEarly).toBe(0);
    expect(due).toBe(1);
    expect(later).toBe(0);
    expect(queue.sent).toEqual([{ queue: 'fanout', body: { broadcast_id: 'bc_1' } }]);
  });

  it('fires each due schedule exactly once when two schedulers on one store tick together', async () => {
    // Prepare
    const ids = Array.from({ length: 6 }, (_, i) => `msg_${i}`);
    for (const [i, id] of ids.entries()) {
      await scheduler.schedule({ id, at: inSeconds(i), queue: 'send', body: { message_id: id } });
    }
    const other = new StoreScheduler(t.store);

    // Act
    const [firedA, firedB] = await Promise.all([scheduler.fireDue(inSeconds(10), queue), other.fireDue(inSeconds(10), queue)]);

    // Assess
    expect(firedA + firedB).toBe(ids.length);
    expect(queue.sent.map((s) => (s.body as { message_id: string }).message_id).sort()).toEqual(ids);
    expect(await scheduler.fireDue(inSeconds(20), queue)).toBe(0);
  });

  it('cancels a pending schedule so it never fires', async () => {
    // Prepare
    await scheduler.schedule({ id: 'msg_cancel', at: inSeconds(30), queue: 'send', body: { message_id: 'msg_cancel' } });

    // Act
    const cancelled = await scheduler.cancel('msg_cancel');
    const fired = await scheduler.fireDue(inSeconds(3600), queue);
    const cancelledAgain = await scheduler.cancel('msg_cancel');

    // Assess
    expect(cancelled).toBe(true);
    expect(fired).toBe(0);
    expect(queue.sent).toEqual([]);
    expect(cancelledAgain).toBe(false);
  });

  it('answers false when cancelling a schedule that already fired', async () => {
    // Prepare
    await scheduler.schedule({ id: 'msg_fired', at: inSeconds(1), queue: 'send', body: { message_id: 'msg_fired' } });
    await scheduler.fireDue(inSeconds(1), queue);

    // Act
    const cancelled = await scheduler.cancel('msg_fired');

    // Assess
    expect(queue.sent).toHaveLength(1);
    expect(cancelled).toBe(false);
  });

  it('answers false when cancelling a schedule that is being delivered, and delivers it once', async () => {
    // Prepare
    await scheduler.schedule({ id: 'msg_inflight', at: inSeconds(1), queue: 'send', body: { message_id: 'msg_inflight' } });
    let release: () => void = () => {};
    let entered: () => void = () => {};
    const sendEntered = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const slowQueue: Queue = {
      send: async (name, body) => {
        entered();
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        await queue.send(name, body);
      },
      sendBatch: async () => {},
    };
    const firing = scheduler.fireDue(inSeconds(1), slowQueue);
    await sendEntered;

    // Act
    const cancelled = await scheduler.cancel('msg_inflight');
    release();
    const fired = await firing;

    // Assess
    expect(cancelled).toBe(false);
    expect(fired).toBe(1);
    expect(queue.sent).toEqual([{ queue: 'send', body: { message_id: 'msg_inflight' } }]);
    expect(await scheduler.fireDue(inSeconds(3600), queue)).toBe(0);
  });

  it('fires again once the lease is over when the process that fired it died before deleting it', async () => {
    // Prepare: a process takes the schedule and dies inside the send (its promise never settles).
    await scheduler.schedule({ id: 'msg_killed', at: inSeconds(1), queue: 'send', body: { message_id: 'msg_killed' } });
    let entered: () => void = () => {};
    const sendEntered = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const dying: Queue = { send: () => (entered(), new Promise<void>(() => {})), sendBatch: async () => {} };
    void scheduler.fireDue(inSeconds(1), dying);
    await sendEntered;
    const restarted = new StoreScheduler(t.store);

    // Act
    const withinLease = await restarted.fireDue(inSeconds(1 + FIRE_LEASE_MS / 1000), queue);
    const afterLease = await restarted.fireDue(inSeconds(2 + FIRE_LEASE_MS / 1000), queue);

    // Assess
    expect(withinLease).toBe(0);
    expect(afterLease).toBe(1);
    expect(queue.sent).toEqual([{ queue: 'send', body: { message_id: 'msg_killed' } }]);
    expect(await restarted.fireDue(inSeconds(3600), queue)).toBe(0);
  });

  it('answers false when cancelling an id that was never scheduled', async () => {
    // Act
    const cancelled = await scheduler.cancel('never_scheduled');

    // Assess
    expect(cancelled).toBe(false);
  });

  it('rejects scheduling the same id twice with ConditionFailedError and keeps the first schedule', async () => {
    // Prepare
    await scheduler.schedule({ id: 'msg_dup', at: inSeconds(10), queue: 'send', body: { version: 1 } });

    // Act
    const second = scheduler.schedule({ id: 'msg_dup', at: inSeconds(5), queue: 'send', body: { version: 2 } });

    // Assess
    await expect(second).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await scheduler.fireDue(inSeconds(9), queue)).toBe(0);
    expect(await scheduler.fireDue(inSeconds(10), queue)).toBe(1);
    expect(queue.sent).toEqual([{ queue: 'send', body: { version: 1 } }]);
  });

  it('takes over an id whose earlier schedule left its ref but no due item (a crash between the two writes)', async () => {
    // Prepare
    const lost = inSeconds(5);
    await scheduler.schedule({ id: 'msg_orphan', at: lost, queue: 'send', body: { version: 1 } });
    await t.store.delete(keys.scheduleDue(lost.toISOString(), 'msg_orphan'));

    // Act
    await scheduler.schedule({ id: 'msg_orphan', at: inSeconds(10), queue: 'send', body: { version: 2 } });

    // Assess
    expect(await scheduler.fireDue(inSeconds(9), queue)).toBe(0);
    expect(await scheduler.fireDue(inSeconds(10), queue)).toBe(1);
    expect(queue.sent).toEqual([{ queue: 'send', body: { version: 2 } }]);
    expect(await scheduler.cancel('msg_orphan')).toBe(false);
  });

  it('keeps a schedule whose delivery failed and fires it on the next tick', async () => {
    // Prepare
    await scheduler.schedule({ id: 'msg_retry', at: inSeconds(1), queue: 'send', body: { message_id: 'msg_retry' } });
    queue.failNext = 1;

    // Act
    const failedTick = scheduler.fireDue(inSeconds(1), queue);
    await expect(failedTick).rejects.toThrow('queue unavailable');
    const nextTick = await scheduler.fireDue(inSeconds(2), queue);

    // Assess
    expect(nextTick).toBe(1);
    expect(queue.sent).toEqual([{ queue: 'send', body: { message_id: 'msg_retry' } }]);
    expect(await scheduler.cancel('msg_retry')).toBe(false);
  });
});

const mockScheduler = (client: SchedulerClient) => mockClient(client);
/** The service's exceptions carry `Message` as well as `message`. */
const failure = (message: string) => ({ message, Message: message, $metadata: {} });

describe('EventBridgeScheduler', () => {
  const options = {
    groupName: 'postbox-schedules',
    roleArn: 'arn:aws:iam::123456789012:role/scheduler-to-sqs',
    queueArns: { send: 'arn:aws:sqs:us-east-1:123456789012:send' },
  };
  let client: SchedulerClient;
  let mock: ReturnType<typeof mockScheduler>;

  beforeEach(() => {
    client = new SchedulerClient({
      region: 'us-east-1',
      endpoint: 'http://127.0.0.1:9',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    mock = mockScheduler(client);
  });

  afterEach(() => {
    mock.restore();
    client.destroy();
  });

  it('creates a one-time at() schedule in UTC that deletes itself and targets the queue', async () => {
    // Prepare
    mock.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:::schedule/x' });
    const scheduler = new EventBridgeScheduler(client, options);
    // 09:06:07.890 at +04:00 is 05:06:07.890 UTC; at() has whole seconds, rounded up so it never fires early.
    const at = new Date('2026-03-04T09:06:07.890+04:00');

    // Act
    await scheduler.schedule({ id: 'msg_01J', at, queue: 'send', body: { message_id: 'msg_01J' } });

    // Assess
    const calls = mock.commandCalls(CreateScheduleCommand);
    expect(calls).toHaveLength(1);
    const input = calls[0]?.args[0].input;
    expect(input).toMatchObject({
      Name: 'msg_01J',
      GroupName: 'postbox-schedules',
      ScheduleExpression: 'at(2026-03-04T05:06:08)',
      ActionAfterCompletion: 'DELETE',
      FlexibleTimeWindow: { Mode: 'OFF' },
      Target: { Arn: options.queueArns.send, RoleArn: options.roleArn },
    });
    expect(input?.ScheduleExpressionTimezone ?? 'UTC').toBe('UTC');
    expect(JSON.parse(input?.Target?.Input ?? 'null')).toEqual({ message_id: 'msg_01J' });
  });

  it('turns ConflictException into ConditionFailedError keeping the cause', async () => {
    // Prepare
    const conflict = new ConflictException(failure('Schedule msg_dup already exists.'));
    mock.on(CreateScheduleCommand).rejects(conflict);
    const scheduler = new EventBridgeScheduler(client, options);

    // Act
    const result = scheduler.schedule({ id: 'msg_dup', at: new Date('2026-03-04T05:06:07Z'), queue: 'send', body: {} });

    // Assess
    await expect(result).rejects.toBeInstanceOf(ConditionFailedError);
    await expect(result).rejects.toHaveProperty('cause', conflict);
  });

  it('passes other CreateSchedule errors through unchanged', async () => {
    // Prepare
    const invalid = new ValidationException(failure('bad expression'));
    mock.on(CreateScheduleCommand).rejects(invalid);
    const scheduler = new EventBridgeScheduler(client, options);

    // Act
    const result = scheduler.schedule({ id: 'msg_bad', at: new Date('2026-03-04T05:06:07Z'), queue: 'send', body: {} });

    // Assess
    await expect(result).rejects.toBe(invalid);
  });

  it('throws for a queue without a configured ARN, without calling the service', async () => {
    // Prepare
    const scheduler = new EventBridgeScheduler(client, options);

    // Act
    const result = scheduler.schedule({ id: 'msg_x', at: new Date('2026-03-04T05:06:07Z'), queue: 'webhooks', body: {} });

    // Assess
    await expect(result).rejects.toThrow(/webhooks/);
    expect(mock.calls()).toHaveLength(0);
  });

  it('cancels by deleting the schedule in its group and answers true', async () => {
    // Prepare
    mock.on(DeleteScheduleCommand).resolves({});
    const scheduler = new EventBridgeScheduler(client, options);

    // Act
    const cancelled = await scheduler.cancel('msg_01J');

    // Assess
    expect(cancelled).toBe(true);
    expect(mock.commandCalls(DeleteScheduleCommand).map((c) => c.args[0].input)).toEqual([
      { Name: 'msg_01J', GroupName: 'postbox-schedules' },
    ]);
  });

  it('answers false when the schedule does not exist (already fired or never made)', async () => {
    // Prepare
    mock.on(DeleteScheduleCommand).rejects(new ResourceNotFoundException(failure('not found')));
    const scheduler = new EventBridgeScheduler(client, options);

    // Act
    const cancelled = await scheduler.cancel('msg_gone');

    // Assess
    expect(cancelled).toBe(false);
  });

  it('rethrows other DeleteSchedule errors', async () => {
    // Prepare
    const invalid = new ValidationException(failure('bad name'));
    mock.on(DeleteScheduleCommand).rejects(invalid);
    const scheduler = new EventBridgeScheduler(client, options);

    // Act
    const result = scheduler.cancel('bad name');

    // Assess
    await expect(result).rejects.toBe(invalid);
  });
});
