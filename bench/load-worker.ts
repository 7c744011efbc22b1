// Runs in a worker thread, so that generating load does not share the event loop of the server
// under test (the local runtime serves HTTP, runs the handlers and the embedded store on the main
// thread). Started by run.ts through tsx's tsImport; answers each LoadTask message with a WorkerReply.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Agent, request } from 'node:http';
import { parentPort } from 'node:worker_threads';
import { keys } from '../shared/db/keys';
import { Store } from '../shared/db/store';
import { runClosedLoop, type LoopOptions, type LoopResult } from './closed-loop';

export type LoadTask = LoopOptions &
  (
    | {
        kind: 'http';
        /** Base URL of the local runtime, e.g. http://127.0.0.1:41234 */
        url: string;
        path: string;
        /** Bearer tokens used round-robin, one request after the other. */
        tokens: string[];
        requestTimeoutMs: number;
      }
    | {
        kind: 'store';
        endpoint: string;
        tableName: string;
        region: string;
        /** Accounts whose ACCOUNT item is read round-robin. */
        accountIds: string[];
      }
  );

function httpGet(agent: Agent, base: URL, path: string, token: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        path,
        method: 'GET',
        agent,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        timeout: timeoutMs,
      },
      (res) => {
        res.on('data', () => undefined); // drain the body: the response counts once it is all read
        res.on('end', () => resolve(String(res.statusCode ?? 0)));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('request timed out'), { code: 'TIMEOUT' })));
    req.on('error', reject);
    req.end();
  });
}

async function run(task: LoadTask): Promise<LoopResult> {
  if (task.kind === 'http') {
    const agent = new Agent({ keepAlive: true, maxSockets: task.concurrency });
    const base = new URL(task.url);
    const tokens = task.tokens;
    try {
      return await runClosedLoop((i) => httpGet(agent, base, task.path, tokens[i % tokens.length] as string, task.requestTimeoutMs), task);
    } finally {
      agent.destroy();
    }
  }
  // Same client settings as the composition root (shared/runtime/container.ts) uses locally.
  const client = new DynamoDBClient({
    region: task.region,
    endpoint: task.endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 5,
  });
  const store = new Store(client, task.tableName);
  const ids = task.accountIds;
  try {
    return await runClosedLoop(async (i) => ((await store.get(keys.account(ids[i % ids.length] as string))) ? 'found' : 'missing'), task);
  } finally {
    client.destroy();
  }
}

export type WorkerReply = { ok: true; result: LoopResult } | { ok: false; error: string };

// One worker serves every load task of a run, one task at a time, so each task starts warm.
if (parentPort) {
  const port = parentPort;
  port.on('message', (task: LoadTask) => {
    run(task).then(
      (result) => port.postMessage({ ok: true, result } satisfies WorkerReply),
      (error: unknown) => port.postMessage({ ok: false, error: String((error as Error)?.stack ?? error) } satisfies WorkerReply),
    );
  });
  port.postMessage('ready');
}
