// Runs in a worker thread so that generating load does not share the event loop of the server
// under test (the local runtime serves HTTP, runs the handlers and the embedded store on the main
// thread). Answers each LoadTask with { ok, result } or { ok, error }.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Agent, request } from 'node:http';
import { parentPort } from 'node:worker_threads';
import { keys } from '../../shared/db/keys';
import { Store } from '../../shared/db/store';
import { closedLoop, type LoopOptions, type LoopResult } from './measure';

export type LoadTask =
  | (LoopOptions &
      (
        | { kind: 'http'; url: string; path: string; /** Bearer tokens used round-robin. */ tokens: string[] }
        | { kind: 'store'; endpoint: string; tableName: string; region: string; /** ACCOUNT items read round-robin. */ accountIds: string[] }
      ))
  /** `count` PutItems of fresh `itemBytes`-byte items, one after the other; windowMs is their total. */
  | { kind: 'puts'; endpoint: string; tableName: string; region: string; count: number; itemBytes: number };

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

async function sequentialPuts(store: Store, count: number, itemBytes: number): Promise<LoopResult> {
  const run = `${Date.now()}`;
  const item = (i: number) => ({ pk: `BENCHPUT#${run}#${i}`, sk: 'PUT', entity: 'bench_put', pad: '' });
  // The pad brings the item, as DynamoDB sizes it (names and values), to itemBytes.
  const bare = Object.entries(item(0)).reduce((n, [k, v]) => n + k.length + String(v).length, 0);
  const pad = 'x'.repeat(Math.max(0, itemBytes - bare));
  const out: LoopResult = { latenciesMs: [], windowMs: 0, outcomes: { ok: 0 } };
  await store.put({ ...item(-1), pad }); // the connection is open before the clock starts
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    const t = performance.now();
    await store.put({ ...item(i), pad });
    out.latenciesMs.push(performance.now() - t);
  }
  out.windowMs = performance.now() - t0;
  out.outcomes.ok = count;
  return out;
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
    if (task.kind === 'puts') return await sequentialPuts(store, task.count, task.itemBytes);
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
