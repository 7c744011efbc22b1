// dynalite started in the test's own process (not the runtime's emulator thread) with one table
// `tbl` (pk, sk): for tests of what the runtime changes in dynalite itself (local/dynalite-expressions.mjs,
// local/level-iterators.mjs), which patch it in this process before it starts.
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { waitFor } from './wait';

const require = createRequire(import.meta.url);

export interface DynaliteTable {
  client: DynamoDBClient;
  close(): Promise<void>;
}

/** dynalite on loopback (in memory, or on LevelDB at `path`), its table `tbl` ACTIVE. */
export async function startDynaliteTable(options: { path?: string } = {}): Promise<DynaliteTable> {
  const dynalite = require('dynalite') as (o: Record<string, unknown>) => Server;
  const server = dynalite({ ...options, createTableMs: 0 });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as AddressInfo;
  const client = new DynamoDBClient({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' } });
  const close = async (): Promise<void> => {
    client.destroy();
    await new Promise<void>((ok) => server.close(() => ok()));
  };
  try {
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
  } catch (error) {
    await close();
    throw error;
  }
  return { client, close };
}
