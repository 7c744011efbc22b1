// An embedded dynalite with the real table, in memory, for tests that need a real store.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Store } from '../../shared/db/store';
import { startDynalite, type Running } from '../../local/emulators';
import { ensureTable } from '../../local/provision';

export interface TestStore {
  store: Store;
  client: DynamoDBClient;
  endpoint: string;
  close(): Promise<void>;
}

let counter = 0;

/** A fresh table on a shared in-memory dynalite; call close() in afterAll. */
export async function startTestStore(): Promise<TestStore> {
  const dynalite: Running = await startDynalite();
  const client = new DynamoDBClient({
    endpoint: dynalite.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  const tableName = `test-${process.pid}-${++counter}`;
  await ensureTable(client, tableName);
  return {
    store: new Store(client, tableName),
    client,
    endpoint: dynalite.endpoint,
    close: async () => {
      client.destroy();
      await dynalite.close();
    },
  };
}

/** A table another process started (startTestStore there), reached over its endpoint; close() only disconnects. */
export function connectTestStore(endpoint: string, tableName: string): TestStore {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  return { store: new Store(client, tableName), client, endpoint, close: async () => client.destroy() };
}
