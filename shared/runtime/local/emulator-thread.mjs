// The body of an emulator's worker thread (plain JavaScript: tsx's loader does not reach worker
// threads). It starts one emulator on loopback, posts { port } once it listens, and closes it when
// told to. Being a thread of the runtime's process, it dies with the process, kill -9 included:
// no orphan is left behind and nothing else can keep writing to the store's LevelDB directory.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const LOOPBACK = '127.0.0.1';

/** @type {Record<string, (options: any) => Promise<import('node:http').Server>>} */
const starters = {
  async dynalite({ path, port }) {
    const dynalite = require('dynalite');
    const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port ?? 0, LOOPBACK, () => {
        server.off('error', reject);
        resolve(undefined);
      });
    });
    return server;
  },
  async sqs({ port }) {
    const { createSqsServer } = await import('local-aws-sqs');
    // local-aws-sqs listens as it is created, on the port it is given (the caller picked a free one).
    return createSqsServer({ port, hostname: LOOPBACK, emulateQueueCreationLifecycle: false });
  },
};

const { kind, options } = workerData;
const server = await starters[kind](options);
parentPort.postMessage({ port: server.address().port });
parentPort.on('message', (message) => {
  if (message !== 'close') return;
  server.closeAllConnections?.();
  server.close(() => process.exit(0));
});
