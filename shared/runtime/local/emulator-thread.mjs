// The body of an emulator worker thread (plain JavaScript: tsx's loader does not reach worker
// threads). It starts the emulators it is given on loopback (the runtime puts the store and the
// queue emulator in one thread: a thread is a V8 heap of its own, tens of MiB, and the queue
// emulator needs little CPU), posts { ports } once they all listen, and closes them when told to. Being a thread of the runtime's process, it dies with the process, kill -9 included:
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

/** @type {Array<{ kind: string; options: any }>} */
const emulators = workerData.emulators;
const servers = [];
for (const { kind, options } of emulators) servers.push(await starters[kind](options));
parentPort.postMessage({ ports: servers.map((server) => server.address().port) });
parentPort.on('message', async (message) => {
  if (message !== 'close') return;
  await Promise.all(
    servers.map(
      (server) =>
        new Promise((resolve) => {
          server.closeAllConnections?.();
          server.close(() => resolve(undefined));
        }),
    ),
  );
  process.exit(0);
});
