// Runs in a worker thread so that generating load does not share the event loop of the server
// under test (the local runtime serves HTTP, runs the handlers and the embedded store on the main
// thread). Answers each LoadTask with { ok, result } or { ok, error }.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Agent, request } from 'node:http';
import { parentPort } from 'node:worker_threads';
import { keys } from '../../shared/db/keys';
import { Store } from '../../shared/db/store';
import { closedLoop, type LoopOptions } from './measure';

export type LoadTask = LoopOptions &
  (
    | { kind: 'http'; url: string; path: string; /** Bearer tokens used round-robin. */ tokens: string[] }
    | { kind: 'store'; endpoint: string; tableName: string; region: string; /** ACCOUNT items read round-robin. */ accountIds: string[] }
  );

function get(agent: Agent, url: URL, token: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { authorization: `Bearer ${token}` }, timeout: 10_000 }, (res) => {
      res.resume(); // the response counts once its body is read
      res.on('end', () => resolve(String(res.statusCode)));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('request timed out'), { code: 'TIMEOUT' })));
    req.on('error', reject);
    req.end();
  });
}

async function run(task: LoadTask) {
  if (task.kind === 'http') {
    const agent = new Agent({ keepAlive: true, maxSockets: task.concurrency });
    const url = new URL(task.path, task.url);
    try {
      return await closedLoop((i) => get(agent, url, task.tokens[i % task.tokens.length] as string), task);
    } finally {
      agent.destroy();
    }
  }
  // The composition root's client settings (shared/runtime/container.ts).
  const client = new DynamoDBClient({ region: task.region, endpoint: task.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 5 });
  const store = new Store(client, task.tableName);
  try {
    return await closedLoop(async (i) => ((await store.get(keys.account(task.accountIds[i % task.accountIds.length] as string))) ? 'found' : 'missing'), task);
  } finally {
    client.destroy();
  }
}

parentPort?.on('message', (task: LoadTask) => {
  run(task).then(
    (result) => parentPort?.postMessage({ ok: true, result }),
    (error: unknown) => parentPort?.postMessage({ ok: false, error: String((error as Error)?.stack ?? error) }),
  );
});
