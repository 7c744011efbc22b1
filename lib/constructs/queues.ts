// One SQS queue per manifest queue, each with its own dead-letter queue. Consumers report
// partial batch failures, so a poison message goes to the DLQ alone after maxReceiveCount.
import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { type QueueDef, type QueueName } from '../../shared/platform';
import { pascalCase } from './names';

const DLQ_RETENTION = Duration.days(14);

export interface QueuesProps {
  definitions: readonly QueueDef[];
}

export class Queues extends Construct {
  readonly definitions: readonly QueueDef[];
  private readonly byName = new Map<QueueName, sqs.Queue>();
  private readonly dlqByName = new Map<QueueName, sqs.Queue>();

  constructor(scope: Construct, id: string, props: QueuesProps) {
    super(scope, id);
    this.definitions = props.definitions;

    for (const def of props.definitions) {
      const group = new Construct(this, pascalCase(def.name));
      const dlq = new sqs.Queue(group, 'Dlq', {
        retentionPeriod: DLQ_RETENTION,
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      const queue = new sqs.Queue(group, 'Queue', {
        visibilityTimeout: Duration.seconds(def.visibilityTimeoutSeconds),
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        deadLetterQueue: { queue: dlq, maxReceiveCount: def.maxReceiveCount },
      });
      this.byName.set(def.name, queue);
      this.dlqByName.set(def.name, dlq);
    }
  }

  queue(name: QueueName): sqs.Queue {
    const queue = this.byName.get(name);
    if (!queue) throw new Error(`Queue "${name}" is used by a function but missing from the manifest's queues`);
    return queue;
  }

  deadLetterQueue(name: QueueName): sqs.Queue {
    const dlq = this.dlqByName.get(name);
    if (!dlq) throw new Error(`Queue "${name}" is used by a function but missing from the manifest's queues`);
    return dlq;
  }

  definition(name: QueueName): QueueDef {
    const def = this.definitions.find((candidate) => candidate.name === name);
    if (!def) throw new Error(`Queue "${name}" is used by a function but missing from the manifest's queues`);
    return def;
  }

  all(): sqs.Queue[] {
    return [...this.byName.values()];
  }

  entries(): Array<[QueueName, sqs.Queue]> {
    return [...this.byName.entries()];
  }
}
