import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ResourceNotFoundException,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { type QueueName } from '../../platform';
import { ConditionFailedError } from '../../errors';
import type { ScheduleRequest, Scheduler } from '../../ports/scheduler';

/** EventBridge Scheduler one-time `at()` schedules that deliver a message to an SQS queue. */
export class EventBridgeScheduler implements Scheduler {
  constructor(
    private readonly client: SchedulerClient,
    private readonly options: { groupName: string; roleArn: string; queueArns: Partial<Record<QueueName, string>> },
  ) {}

  async schedule(request: ScheduleRequest): Promise<void> {
    const arn = this.options.queueArns[request.queue];
    if (!arn) throw new Error(`queue ${request.queue} has no ARN configured for schedules`);
    // at() takes UTC wall time to the second; round up so a schedule never fires early.
    const at = new Date(Math.ceil(request.at.getTime() / 1000) * 1000).toISOString().slice(0, 19);
    try {
      await this.client.send(
        new CreateScheduleCommand({
          Name: request.id,
          GroupName: this.options.groupName,
          ScheduleExpression: `at(${at})`,
          ScheduleExpressionTimezone: 'UTC',
          FlexibleTimeWindow: { Mode: 'OFF' },
          ActionAfterCompletion: 'DELETE',
          Target: { Arn: arn, RoleArn: this.options.roleArn, Input: JSON.stringify(request.body) },
        }),
      );
    } catch (error) {
      if (error instanceof ConflictException) throw new ConditionFailedError(`schedule ${request.id} already exists`, { cause: error });
      throw error;
    }
  }

  async cancel(id: string): Promise<boolean> {
    try {
      await this.client.send(new DeleteScheduleCommand({ Name: id, GroupName: this.options.groupName }));
      return true;
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return false;
      throw error;
    }
  }
}
