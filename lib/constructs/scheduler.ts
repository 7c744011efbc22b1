// EventBridge Scheduler group for one-time `at()` schedules (scheduled sends, long webhook
// retries), and the role the scheduler assumes to drop the due message onto a queue.
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface SchedulerGroupProps {
  /** Queues that schedules may target. */
  targets: readonly sqs.IQueue[];
}

export class SchedulerGroup extends Construct {
  readonly group: scheduler.CfnScheduleGroup;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: SchedulerGroupProps) {
    super(scope, id);

    this.group = new scheduler.CfnScheduleGroup(this, 'Group', {});

    // Confused-deputy guard: only schedules of this account's group may assume the role.
    this.role = new iam.Role(this, 'Role', {
      description: 'Assumed by EventBridge Scheduler to deliver due schedules to Postbox queues',
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
          ArnLike: { 'aws:SourceArn': this.group.attrArn },
        },
      }),
    });
    for (const queue of props.targets) queue.grantSendMessages(this.role);
  }

  get groupName(): string {
    return this.group.ref;
  }

  /** ARN pattern of the schedules inside this group; names are generated per schedule at runtime. */
  get schedulesArn(): string {
    return Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.group.ref}/*`,
    });
  }
}
