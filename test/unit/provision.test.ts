// The local table is made from shared/db/keys.ts; a data directory made by an older Postbox,
// whose table lacks an index the code now queries, is refused at start with what to do, since
// dynalite cannot add an index to an existing table.
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { table } from '../../shared/db/schema';
import { ensureTable } from '../../local/provision';
import { startTestStore, type TestStore } from '../support/store';

let s: TestStore;
beforeAll(async () => {
  s = await startTestStore();
});
afterAll(() => s.close());

describe('ensureTable', () => {
  it('accepts a table it made itself, again', async () => {
    await expect(ensureTable(s.client, 'fresh-table')).resolves.toBeUndefined();
    await expect(ensureTable(s.client, 'fresh-table')).resolves.toBeUndefined();
  });

  it('refuses a table without an index the code queries, naming it and what to do', async () => {
    const [kept, ...dropped] = Object.values(table.indexes);
    await s.client.send(
      new CreateTableCommand({
        TableName: 'older-table',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [table.partitionKey, table.sortKey, kept!.partitionKey, kept!.sortKey].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        KeySchema: [
          { AttributeName: table.partitionKey, KeyType: 'HASH' },
          { AttributeName: table.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [{ IndexName: kept!.name, KeySchema: [{ AttributeName: kept!.partitionKey, KeyType: 'HASH' }, { AttributeName: kept!.sortKey, KeyType: 'RANGE' }], Projection: { ProjectionType: 'KEYS_ONLY' } }],
      }),
    );
    const refusal = ensureTable(s.client, 'older-table');
    await expect(refusal).rejects.toThrow(new RegExp(`lacks the ${dropped.map((i) => i.name).join(', ')} index.*move the directory aside or delete it`));
  });
});
