// dynalite on LevelDB, as the runtime runs it, closes the LevelDB iterators its reads open: the
// number left open after many Queries and Scans is bounded, not one per read (issue 31: each one
// left open kept native memory, and the runtime grew with the reads it served).
import { PutItemCommand, QueryCommand, ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeLevelIteratorsOnReturn } from '../../local/level-iterators.mjs';
import { startDynaliteTable, type DynaliteTable } from '../support/dynalite-table';
import { waitFor } from '../support/wait';

const require = createRequire(import.meta.url);
const fromLevel = createRequire(createRequire(require.resolve('dynalite')).resolve('level'));
const abstractLevel = createRequire(fromLevel.resolve('classic-level'))('abstract-level') as {
  AbstractLevel: { prototype: { attachResource(r: unknown): void; detachResource(r: unknown): void } };
  AbstractIterator: abstract new () => object;
  AbstractKeyIterator: abstract new () => object;
  AbstractValueIterator: abstract new () => object;
};

/** Iterators attached to a database and not yet detached (closed), counted at abstract-level. */
const open = new Set<unknown>();
const isIterator = (r: unknown): boolean => [abstractLevel.AbstractIterator, abstractLevel.AbstractKeyIterator, abstractLevel.AbstractValueIterator].some((C) => r instanceof C);

let dir: string;
let table: DynaliteTable | undefined;
let client: DynamoDBClient;

beforeAll(async () => {
  const proto = abstractLevel.AbstractLevel.prototype;
  const attach = proto.attachResource;
  const detach = proto.detachResource;
  proto.attachResource = function (this: unknown, r: unknown) {
    if (isIterator(r)) open.add(r);
    return attach.call(this, r);
  };
  proto.detachResource = function (this: unknown, r: unknown) {
    open.delete(r);
    return detach.call(this, r);
  };
  closeLevelIteratorsOnReturn();
  dir = mkdtempSync(join(tmpdir(), 'postbox-level-'));
  table = await startDynaliteTable({ path: join(dir, 'db') });
  client = table.client;
  for (let i = 0; i < 20; i++) await client.send(new PutItemCommand({ TableName: 'tbl', Item: { pk: { S: 'p' }, sk: { S: `s${String(i).padStart(2, '0')}` } } }));
});

afterAll(async () => {
  await table?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('closes the iterators of Queries and Scans, read to the end or stopped at a Limit', async () => {
  // Arrange
  const reads = 120;

  // Act
  for (let i = 0; i < reads; i++) {
    if (i % 3 === 0) await client.send(new QueryCommand({ TableName: 'tbl', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } } }));
    else if (i % 3 === 1) await client.send(new QueryCommand({ TableName: 'tbl', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } }, Limit: 2 }));
    else await client.send(new ScanCommand({ TableName: 'tbl', Limit: 5 }));
  }

  // Assert: a handful may still be closing; without the fix every read leaves one (120 and more).
  await waitFor(() => open.size <= 4, { what: () => `the reads' iterators to close (${open.size} open)` });
  expect(open.size).toBeLessThanOrEqual(4);
});
