// dynalite on LevelDB, as the runtime runs it, closes the LevelDB iterators its reads open: the
// number left open after many Queries and Scans is bounded, not one per read (issue 31: each one
// left open kept native memory, and the runtime grew with the reads it served).
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand, QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { closeLevelIteratorsOnReturn } from '../../local/level-iterators.mjs';
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
let server: Server;
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
  const dynalite = require('dynalite') as (o: Record<string, unknown>) => Server;
  server = dynalite({ path: join(dir, 'db'), createTableMs: 0 });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as AddressInfo;
  client = new DynamoDBClient({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });
  await client.send(
    new CreateTableCommand({
      TableName: 'tbl',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }, { AttributeName: 'sk', KeyType: 'RANGE' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }, { AttributeName: 'sk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  // A new table is CREATING for a moment, even with createTableMs 0; a write before it is ACTIVE is refused.
  await waitFor(async () => (await client.send(new DescribeTableCommand({ TableName: 'tbl' }))).Table?.TableStatus === 'ACTIVE', { what: 'the table to be ACTIVE' });
  for (let i = 0; i < 20; i++) await client.send(new PutItemCommand({ TableName: 'tbl', Item: { pk: { S: 'p' }, sk: { S: `s${String(i).padStart(2, '0')}` } } }));
});

afterAll(async () => {
  client?.destroy();
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
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
