// The store of a local runtime started as its own process (test/support/local-process.ts), read
// directly: crash tests watch how far the runtime got (to kill it at a chosen point) and read back
// what it left, without going through the API they are testing.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, paginateQuery, paginateScan } from '@aws-sdk/lib-dynamodb';
import { keys, type ItemKey } from '../../shared/db/keys';
import { table } from '../../shared/db/schema';
import { timelineOf, type MessageItem, type TimelineEventItem } from '../../shared/sending/messages/model';
import { LOCAL_TABLE } from '../../local/runtime';
import type { RuntimeProcess } from './local-process';

/** The DynamoDB endpoint the runtime printed at start. */
export function storeEndpoint(r: RuntimeProcess): string {
  const found = /store \(DynamoDB endpoint\):\s+(\S+)/.exec(r.output())?.[1];
  if (!found) throw new Error(`no store endpoint in the runtime's output:\n${r.output()}`);
  return found;
}

/** A document client on the runtime's store; destroy it when done. */
export function storeOf(r: RuntimeProcess): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: storeEndpoint(r), region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  );
}

/** Every item of one entity (a Scan: fine for a test's few thousand items). */
export async function scanEntity(db: DynamoDBDocumentClient, entity: string): Promise<Array<Record<string, any>>> {
  const items: Array<Record<string, any>> = [];
  for await (const page of paginateScan({ client: db }, { TableName: LOCAL_TABLE, FilterExpression: 'entity = :e', ExpressionAttributeValues: { ':e': entity } })) {
    items.push(...(page.Items ?? []));
  }
  return items;
}

/**
 * Every timeline event in the store: the event items and the events kept on message items
 * (shared/sending/messages/model.ts timelineOf), each once, as the API reads a message's timeline.
 */
export async function scanTimelineEvents(db: DynamoDBDocumentClient): Promise<TimelineEventItem[]> {
  const messages: MessageItem[] = [];
  const items: TimelineEventItem[] = [];
  const filter = { FilterExpression: 'entity IN (:m, :e)', ExpressionAttributeValues: { ':m': 'message', ':e': 'message_event' } };
  for await (const page of paginateScan({ client: db }, { TableName: LOCAL_TABLE, ...filter })) {
    for (const item of page.Items ?? []) (item.entity === 'message' ? messages : items).push(item as never);
  }
  const byMessage = new Map<string, TimelineEventItem[]>();
  for (const e of items) byMessage.set(e.message_id, [...(byMessage.get(e.message_id) ?? []), e]);
  const withMessage = messages.flatMap((m) => timelineOf(m, byMessage.get(m.id) ?? []));
  const ids = new Set(messages.map((m) => m.id));
  return [...withMessage, ...items.filter((e) => !ids.has(e.message_id))];
}

/**
 * How many of an account's messages match `filter` (a condition on the message item's attributes,
 * with its own values): a Scan that answers a count, not the items, so a test can poll it while
 * the runtime works without taking the store's time from it. Read the items once it holds.
 */
export async function countMessagesWhere(
  db: DynamoDBDocumentClient,
  accountId: string,
  filter: { expression: string; values: Record<string, unknown>; names?: Record<string, string> },
): Promise<number> {
  let count = 0;
  const input = {
    TableName: LOCAL_TABLE,
    FilterExpression: `entity = :entity AND account_id = :account AND (${filter.expression})`,
    ExpressionAttributeValues: { ':entity': 'message', ':account': accountId, ...filter.values },
    ...(filter.names ? { ExpressionAttributeNames: filter.names } : {}),
    Select: 'COUNT' as const,
  };
  for await (const page of paginateScan({ client: db }, input)) count += page.Count ?? 0;
  return count;
}

export async function getItem(db: DynamoDBDocumentClient, key: ItemKey): Promise<Record<string, any> | undefined> {
  return (await db.send(new GetCommand({ TableName: LOCAL_TABLE, Key: { pk: key.pk, sk: key.sk }, ConsistentRead: true }))).Item;
}

/**
 * How many messages an account has, counted on its message list index (one partition): cheap
 * enough to poll while a batch stores its messages, where a Scan of the whole table would see the
 * batch only after it is done.
 */
export async function countAccountMessages(db: DynamoDBDocumentClient, accountId: string): Promise<number> {
  let count = 0;
  const input = { TableName: LOCAL_TABLE, IndexName: table.indexes.byMessage.name, KeyConditionExpression: 'gsi3pk = :pk', ExpressionAttributeValues: { ':pk': keys.messageListPartition(accountId) }, Select: 'COUNT' as const };
  for await (const page of paginateQuery({ client: db }, input)) count += page.Count ?? 0;
  return count;
}
