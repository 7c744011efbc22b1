// The store port: single-table DynamoDB through the document client. The same class serves AWS
// and the embedded store; only the client's endpoint differs.
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { ConditionFailedError, RetryableError } from '../errors';
import type { ItemKey } from './keys';

export type Item = Record<string, unknown>;

export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

export interface QueryRequest {
  index?: string;
  keyCondition: string;
  names?: Record<string, string>;
  values: Record<string, unknown>;
  filter?: string;
  /** Newest first when false (the default for lists). */
  ascending?: boolean;
  limit?: number;
  startKey?: Record<string, unknown>;
  consistent?: boolean;
}

export interface QueryResult<T extends object = Item> {
  items: T[];
  lastKey?: Record<string, unknown>;
}

const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
]);

const isConditionFailure = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException || (error as { name?: string })?.name === 'ConditionalCheckFailedException';

function translate(error: unknown, what: string): never {
  if (isConditionFailure(error)) {
    throw new ConditionFailedError(`${what}: condition failed`, { cause: error });
  }
  if (THROTTLING.has((error as { name?: string })?.name ?? '')) throw new RetryableError(`${what}: store busy`, { cause: error });
  throw error;
}

/**
 * The one translation of a failed write condition: runs a conditional write and throws
 * `conflict()`'s error (with the store's error as its cause) when the condition did not hold.
 */
export async function orConflict<T>(write: Promise<T>, conflict: () => Error): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof ConditionFailedError) throw Object.assign(conflict(), { cause: error });
    throw error;
  }
}

/** Runs a conditional write; false when its condition did not hold (another writer was first). */
export async function wrote(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionFailedError) return false;
    throw error;
  }
}

const chunk = <T>(list: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
};

export class Store {
  readonly doc: DynamoDBDocumentClient;

  constructor(client: DynamoDBClient, readonly tableName: string) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  async get<T extends object = Item>(key: ItemKey, consistent = true): Promise<T | undefined> {
    try {
      const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: consistent }));
      return out.Item as T | undefined;
    } catch (error) {
      translate(error, 'get');
    }
  }

  async put<T extends ItemKey>(item: T, condition?: Condition): Promise<void> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: item as Item,
          ConditionExpression: condition?.expression,
          ExpressionAttributeNames: condition?.names,
          ExpressionAttributeValues: condition?.values,
        }),
      );
    } catch (error) {
      translate(error, 'put');
    }
  }

  /** Put only when no item has this key yet; ConditionFailedError otherwise. */
  async create<T extends ItemKey>(item: T): Promise<void> {
    await this.put(item, { expression: 'attribute_not_exists(pk)' });
  }

  async update<T extends object = Item>(
    key: ItemKey,
    update: { expression: string; names?: Record<string, string>; values?: Record<string, unknown>; condition?: string },
  ): Promise<T> {
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: update.expression,
          ConditionExpression: update.condition,
          ExpressionAttributeNames: update.names,
          ExpressionAttributeValues: update.values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      return out.Attributes as T;
    } catch (error) {
      translate(error, 'update');
    }
  }

  async delete(key: ItemKey, condition?: Condition): Promise<void> {
    try {
      await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: key,
          ConditionExpression: condition?.expression,
          ExpressionAttributeNames: condition?.names,
          ExpressionAttributeValues: condition?.values,
        }),
      );
    } catch (error) {
      translate(error, 'delete');
    }
  }

  /**
   * Deletes an item and answers what it held; undefined when there was none or `condition` did
   * not hold. One round trip, so of two racing takes exactly one gets the item (one-time tokens).
   */
  async take<T extends object = Item>(key: ItemKey, condition: Condition = { expression: 'attribute_exists(pk)' }): Promise<T | undefined> {
    try {
      const out = await this.doc.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: key,
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: condition.names,
          ExpressionAttributeValues: condition.values,
          ReturnValues: 'ALL_OLD',
        }),
      );
      return out.Attributes as T | undefined;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      translate(error, 'take');
    }
  }

  /** `T` is what the repository that owns this access pattern stores under it. */
  async query<T extends object = Item>(request: QueryRequest): Promise<QueryResult<T>> {
    const input: QueryCommandInput = {
      TableName: this.tableName,
      IndexName: request.index,
      KeyConditionExpression: request.keyCondition,
      FilterExpression: request.filter,
      ExpressionAttributeNames: request.names,
      ExpressionAttributeValues: request.values,
      ScanIndexForward: request.ascending ?? false,
      Limit: request.limit,
      ExclusiveStartKey: request.startKey,
      ConsistentRead: request.index ? undefined : (request.consistent ?? true),
    };
    try {
      const out = await this.doc.send(new QueryCommand(input));
      return { items: (out.Items ?? []) as T[], lastKey: out.LastEvaluatedKey };
    } catch (error) {
      translate(error, 'query');
    }
  }

  /** Reads many keys; missing items are simply absent from the result. Unprocessed keys are retried. */
  async batchGet<T extends object = Item>(itemKeys: readonly ItemKey[], options: { consistent?: boolean } = {}): Promise<T[]> {
    const found: T[] = [];
    for (const part of chunk(itemKeys, 100)) {
      let pending: Record<string, unknown>[] = part.map((k) => ({ pk: k.pk, sk: k.sk }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 8) throw new RetryableError('batchGet: keys left unprocessed');
        try {
          const out = await this.doc.send(
            new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: pending, ConsistentRead: options.consistent ?? true } } }),
          );
          found.push(...((out.Responses?.[this.tableName] ?? []) as T[]));
          pending = (out.UnprocessedKeys?.[this.tableName]?.Keys ?? []) as Record<string, unknown>[];
        } catch (error) {
          translate(error, 'batchGet');
        }
        if (pending.length > 0) await backoff(attempt);
      }
    }
    return found;
  }

  /** Unconditional puts in groups of 25; unprocessed items are retried with backoff. */
  async batchPut<T extends ItemKey>(items: readonly T[]): Promise<void> {
    for (const part of chunk(items, 25)) {
      let pending = part.map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 8) throw new RetryableError('batchPut: items left unprocessed');
        try {
          const out = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }));
          pending = (out.UnprocessedItems?.[this.tableName] ?? []) as typeof pending;
        } catch (error) {
          translate(error, 'batchPut');
        }
        if (pending.length > 0) await backoff(attempt);
      }
    }
  }
}

const backoff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.min(1000, 20 * 2 ** attempt) * (0.5 + Math.random())));
