// Creates the table, queues and bucket the stack would create, from the same definitions.
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { CreateBucketCommand, HeadBucketCommand, NotFound, type S3Client } from '@aws-sdk/client-s3';
import { queues, type QueueName } from '../shared/platform';
import { table } from '../shared/db/schema';

/**
 * Waits for the table to be ACTIVE: dynalite answers CreateTable before the table takes writes
 * (with createTableMs 0 a moment later), and a write in between finds no table.
 */
async function untilActive(client: DynamoDBClient, tableName: string): Promise<string[]> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return (Table.GlobalSecondaryIndexes ?? []).map((i) => i.IndexName ?? '');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`table ${tableName} did not become ACTIVE`);
}

export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    const present = await untilActive(client, tableName);
    // dynalite cannot add an index to a table (UpdateTable only changes throughput), so a data
    // directory made before an index existed cannot be upgraded in place: say so at start rather
    // than fail on the first query that needs it.
    const missing = Object.values(table.indexes).filter((i) => !present.includes(i.name)).map((i) => i.name);
    if (missing.length > 0) {
      throw new Error(`the table in this data directory lacks the ${missing.join(', ')} index (it was made by an older Postbox); move the directory aside or delete it, then start again`);
    }
    return;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const indexes = Object.values(table.indexes);
  const attributes = [table.partitionKey, table.sortKey, ...indexes.flatMap((i) => [i.partitionKey, i.sortKey])];
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: attributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: [
        { AttributeName: table.partitionKey, KeyType: 'HASH' },
        { AttributeName: table.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: indexes.map((i) => ({
        IndexName: i.name,
        KeySchema: [
          { AttributeName: i.partitionKey, KeyType: 'HASH' },
          { AttributeName: i.sortKey, KeyType: 'RANGE' },
        ],
        Projection: i.projection.length > 0 ? { ProjectionType: 'INCLUDE', NonKeyAttributes: [...i.projection] } : { ProjectionType: 'KEYS_ONLY' },
      })),
    }),
  );
  await untilActive(client, tableName);
}

export interface ProvisionedQueues {
  urls: Record<QueueName, string>;
  arns: Record<QueueName, string>;
  dlqUrls: Record<QueueName, string>;
}

export async function ensureQueues(client: SQSClient): Promise<ProvisionedQueues> {
  const out = { urls: {}, arns: {}, dlqUrls: {} } as ProvisionedQueues;
  for (const q of queues) {
    const dlq = await client.send(new CreateQueueCommand({ QueueName: `${q.name}-dlq`, Attributes: { MessageRetentionPeriod: '1209600' } }));
    const main = await client.send(
      new CreateQueueCommand({
        QueueName: q.name,
        // No RedrivePolicy: the local poller counts attempts and moves a message to `dlq` after
        // q.maxReceiveCount of them itself. local-aws-sqs would count every receive, including
        // those of a message another lane is still handling, and dead-letter it behind that
        // handler's back (queue-poller.ts).
        Attributes: { VisibilityTimeout: String(q.visibilityTimeoutSeconds) },
      }),
    );
    out.urls[q.name] = main.QueueUrl as string;
    out.arns[q.name] = await queueArn(client, main.QueueUrl as string);
    out.dlqUrls[q.name] = dlq.QueueUrl as string;
  }
  return out;
}

async function queueArn(client: SQSClient, url: string): Promise<string> {
  const attrs = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return attrs.Attributes?.QueueArn as string;
}

/** The bucket, made on first start; s3rver keeps it, with its objects, under DATA_DIR/s3 after that. */
export async function ensureBucket(client: S3Client, bucket: string): Promise<void> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
    return;
  } catch (error) {
    if (!(error instanceof NotFound)) throw error;
  }
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
}
