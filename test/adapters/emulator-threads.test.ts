// The embedded store and queue emulator run in worker threads of their own: they answer while the
// main thread, where the API and the handlers run, is blocked. The probe is another process that
// calls the emulator while this thread waits for it synchronously; were the emulator on this
// thread, nothing would answer the probe until spawnSync gave up and killed it.
import { spawnSync } from 'node:child_process';
import { threadId } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDynalite, startSqs, type Running } from '../../local/emulators';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Runs `code` (an AWS SDK call, as ES module code) in a fresh node process while this thread blocks on it. */
function callFromAnotherProcessWhileBlocked(code: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: root,
    encoding: 'utf8',
    // Only a guard against a hang; an answer comes long before.
    timeout: 60_000,
    env: { PATH: process.env.PATH, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const client = (pkg: string, cls: string, endpoint: string): string =>
  `import { ${cls} } from '${pkg}'; const c = new ${cls}({ endpoint: '${endpoint}', region: 'us-east-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' }, maxAttempts: 1 });`;

describe('the embedded emulators in worker threads', () => {
  let store: Running;
  let sqs: Running;

  beforeAll(async () => {
    store = await startDynalite();
    sqs = await startSqs();
  });
  afterAll(async () => {
    await store?.close();
    await sqs?.close();
  });

  it('runs the store and the queue emulator off the calling thread', () => {
    expect(store.threadId).toBeGreaterThan(0);
    expect(sqs.threadId).toBeGreaterThan(0);
    expect([store.threadId, sqs.threadId]).not.toContain(threadId);
  });

  it('answers a DynamoDB call while the calling thread is blocked', () => {
    // Act
    const out = callFromAnotherProcessWhileBlocked(
      `${client('@aws-sdk/client-dynamodb', 'DynamoDBClient', store.endpoint)} const { ListTablesCommand } = await import('@aws-sdk/client-dynamodb'); const r = await c.send(new ListTablesCommand({})); console.log(JSON.stringify(r.TableNames));`,
    );

    // Assess
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout.trim()).toBe('[]');
  });

  it('answers an SQS call while the calling thread is blocked', () => {
    // Act
    const out = callFromAnotherProcessWhileBlocked(
      `${client('@aws-sdk/client-sqs', 'SQSClient', sqs.endpoint)} const { CreateQueueCommand } = await import('@aws-sdk/client-sqs'); const r = await c.send(new CreateQueueCommand({ QueueName: 'probe' })); console.log(r.QueueUrl ?? 'no url');`,
    );

    // Assess: the emulator bound a port of the kernel's choosing and builds its queue URLs with it
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(new URL(out.stdout.trim()).port).toBe(String(sqs.port));
  });
});
