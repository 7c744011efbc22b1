// Store against an in-memory dynalite, and against a mocked document client for the paths
// dynalite never takes (throttling, unprocessed batch items).
import { DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, GetCommand, PutCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../shared/db/store';
import { ConditionFailedError, RetryableError } from '../../shared/errors';
import { startTestStore, type TestStore } from '../support/store';

let t: TestStore;

beforeAll(async () => {
  t = await startTestStore();
});

afterAll(async () => {
  await t?.close();
});

/** A Store whose client points nowhere; its document client is replaced by a mock. */
function offlineStore(): { store: Store; client: DynamoDBClient } {
  const client = new DynamoDBClient({
    endpoint: 'http://127.0.0.1:9',
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
  return { store: new Store(client, 'mocked-table'), client };
}

describe('Store on dynalite', () => {
  it('rejects a second create of the same key with ConditionFailedError and keeps the first item', async () => {
    // Prepare
    const key = { pk: 'ACCT#create', sk: 'ACCOUNT' };
    await t.store.create({ ...key, name: 'first' });

    // Act
    const second = t.store.create({ ...key, name: 'second' });

    // Assess
    await expect(second).rejects.toBeInstanceOf(ConditionFailedError);
    await expect(second).rejects.toMatchObject({ cause: expect.objectContaining({ name: 'ConditionalCheckFailedException' }) });
    expect(await t.store.get(key)).toEqual({ ...key, name: 'first' });
  });

  it('rejects an update whose condition does not hold with ConditionFailedError and leaves the item unchanged', async () => {
    // Prepare
    const key = { pk: 'ACCT#update', sk: 'ACCOUNT' };
    await t.store.put({ ...key, version: 2, name: 'before' });
    const update = {
      expression: 'SET #name = :name, version = :next',
      names: { '#name': 'name' },
      values: { ':name': 'after', ':next': 2, ':expected': 1 },
      condition: 'version = :expected',
    };

    // Act
    const stale = t.store.update(key, update);

    // Assess
    await expect(stale).rejects.toBeInstanceOf(ConditionFailedError);
    expect(await t.store.get(key)).toEqual({ ...key, version: 2, name: 'before' });
  });

  it('applies an update whose condition holds and returns the new item', async () => {
    // Prepare
    const key = { pk: 'ACCT#update-ok', sk: 'ACCOUNT' };
    await t.store.put({ ...key, version: 1, name: 'before' });

    // Act
    const updated = await t.store.update(key, {
      expression: 'SET #name = :name, version = :next',
      names: { '#name': 'name' },
      values: { ':name': 'after', ':next': 2, ':expected': 1 },
      condition: 'version = :expected',
    });

    // Assess
    expect(updated).toEqual({ ...key, version: 2, name: 'after' });
    expect(await t.store.get(key)).toEqual(updated);
  });

  it('lists newest first by default and pages with lastKey/startKey without gaps or repeats', async () => {
    // Prepare
    const pk = 'ACCT#paging';
    const sks = Array.from({ length: 7 }, (_, i) => `MSG#2026-01-0${i + 1}`);
    for (const sk of sks) await t.store.put({ pk, sk, entity: 'message' });
    await t.store.put({ pk: 'ACCT#other', sk: 'MSG#2026-01-09', entity: 'message' });
    const request = { keyCondition: 'pk = :pk AND begins_with(sk, :prefix)', values: { ':pk': pk, ':prefix': 'MSG#' }, limit: 3 };

    // Act
    const pages: { sks: string[]; lastKey?: Record<string, unknown> }[] = [];
    let startKey: Record<string, unknown> | undefined;
    for (let i = 0; i < 5; i++) {
      const page = await t.store.query({ ...request, startKey });
      pages.push({ sks: page.items.map((item) => item.sk as string), lastKey: page.lastKey });
      startKey = page.lastKey;
      if (!startKey) break;
    }
    const ascending = await t.store.query({ ...request, limit: undefined, ascending: true });

    // Assess
    const newestFirst = [...sks].reverse();
    expect(pages.map((p) => p.sks)).toEqual([newestFirst.slice(0, 3), newestFirst.slice(3, 6), newestFirst.slice(6)]);
    expect(pages[0]?.lastKey).toEqual({ pk, sk: newestFirst[2] });
    expect(pages[2]?.lastKey).toBeUndefined();
    expect(ascending.items.map((item) => item.sk)).toEqual(sks);
  });

  it('writes 60 items with batchPut and reads them back with batchGet, leaving missing keys out', async () => {
    // Prepare
    const items = Array.from({ length: 60 }, (_, i) => ({ pk: `BATCH#${i}`, sk: 'ITEM', entity: 'batch', n: i }));
    // 110 keys in all, missing ones first, so the found items come from two requests of at most 100 keys.
    const missing = Array.from({ length: 50 }, (_, i) => ({ pk: `BATCH#missing-${i}`, sk: 'ITEM' }));

    // Act
    await t.store.batchPut(items);
    const found = await t.store.batchGet<{ pk: string; n: number }>([...missing, ...items.map(({ pk, sk }) => ({ pk, sk }))]);

    // Assess
    expect(found).toHaveLength(items.length);
    expect([...found].sort((a, b) => a.n - b.n)).toEqual(items);
  });
});

describe('Store error translation (mocked client)', () => {
  it('turns ProvisionedThroughputExceededException into RetryableError keeping the original as cause', async () => {
    // Prepare
    const { store, client } = offlineStore();
    const doc = mockClient(store.doc);
    const throttled = new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} });
    doc.on(GetCommand).rejects(throttled);

    // Act
    const result = store.get({ pk: 'A', sk: 'B' });

    // Assess
    await expect(result).rejects.toBeInstanceOf(RetryableError);
    await expect(result).rejects.toHaveProperty('cause', throttled);
    doc.restore();
    client.destroy();
  });

  it('passes other errors through unchanged', async () => {
    // Prepare
    const { store, client } = offlineStore();
    const doc = mockClient(store.doc);
    const invalid = Object.assign(new Error('bad expression'), { name: 'ValidationException' });
    doc.on(PutCommand).rejects(invalid);

    // Act
    const result = store.put({ pk: 'A', sk: 'B' });

    // Assess
    await expect(result).rejects.toBe(invalid);
    doc.restore();
    client.destroy();
  });

  it('retries UnprocessedItems until every item is written', async () => {
    // Prepare: the mock forwards to dynalite but holds back the last two items twice.
    const { store, client } = offlineStore();
    const doc = mockClient(store.doc);
    const table = t.store.tableName;
    const requests: string[][] = [];
    let holdBacks = 2;
    doc.on(BatchWriteCommand).callsFake(async (input: BatchWriteCommandInput) => {
      const writes = input.RequestItems?.['mocked-table'] ?? [];
      requests.push(writes.map((w) => w.PutRequest?.Item?.pk as string));
      const accepted = holdBacks-- > 0 ? writes.slice(0, -2) : writes;
      const unprocessed = writes.slice(accepted.length);
      if (accepted.length > 0) {
        await t.store.doc.send(new BatchWriteCommand({ RequestItems: { [table]: accepted } }));
      }
      return unprocessed.length > 0 ? { UnprocessedItems: { 'mocked-table': unprocessed } } : {};
    });
    const items = Array.from({ length: 5 }, (_, i) => ({ pk: `UNPROCESSED#${i}`, sk: 'ITEM', n: i }));

    // Act
    await store.batchPut(items);

    // Assess
    expect(requests).toEqual([
      items.map((i) => i.pk),
      ['UNPROCESSED#3', 'UNPROCESSED#4'],
      ['UNPROCESSED#3', 'UNPROCESSED#4'],
    ]);
    const written = await t.store.batchGet<{ n: number }>(items.map(({ pk, sk }) => ({ pk, sk })));
    expect(written.map((w) => w.n).sort()).toEqual([0, 1, 2, 3, 4]);
    doc.restore();
    client.destroy();
  });
});
