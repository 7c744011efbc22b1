// The body of an emulator worker thread (plain JavaScript: tsx's loader does not reach worker
// threads). It starts the emulators it is given on loopback (the runtime puts the store and the
// queue emulator in one thread: a thread is a V8 heap of its own, tens of MiB, and the queue
// emulator needs little CPU), posts { ports } once they all listen, and closes them when told to. Being a thread of the runtime's process, it dies with the process, kill -9 included:
// no orphan is left behind and nothing else can keep writing to the store's LevelDB directory.
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { parseExpressionsOnce } from './dynalite-expressions.mjs';
import { closeLevelIteratorsOnReturn } from './level-iterators.mjs';

const require = createRequire(import.meta.url);
const LOOPBACK = '127.0.0.1';

/** @type {Record<string, (options: any) => Promise<import('node:http').Server>>} */
const starters = {
  async dynalite({ path, port }) {
    const dynalite = require('dynalite');
    // Else every Query and Scan leaves its LevelDB iterator open, and memory grows with the reads.
    closeLevelIteratorsOnReturn();
    // The same few expressions come again and again with other values: each is parsed once.
    parseExpressionsOnce();
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
    // local-aws-sqs listens as it is created; given port 0, it takes the port the kernel picks and
    // builds its queue URLs with it. A port probed free beforehand could be taken by another
    // process before the bind (CI saw EADDRINUSE that way), so none is probed.
    // A listen error (a configured port in use) is the thread's uncaught error, which its starter reports.
    return createSqsServer({ port: port ?? 0, hostname: LOOPBACK, emulateQueueCreationLifecycle: false });
  },
  async s3({ directory, port, buckets, accessKeys }) {
    const S3rver = require('s3rver');
    // s3rver knows one account's key pair (S3RVER); the callers' keys join it. It does not check
    // SigV4 signatures, only that the key is known and a presigned link has not expired.
    const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account');
    for (const { accessKeyId, secretAccessKey } of accessKeys ?? []) DUMMY_ACCOUNT.createKeyPair(accessKeyId, secretAccessKey);
    const s3 = new S3rver({ address: LOOPBACK, port: port ?? 0, directory, silent: true, configureBuckets: (buckets ?? []).map((name) => ({ name })) });
    await s3.run();
    return s3.httpServer;
  },
};

/**
 * Serves HTTP requests that come as messages on `port` with the server's own request listener,
 * through the smallest stand-ins of node:http's request and response that the emulator uses (it
 * reads method, url, headers and the body's events; it sets a status and headers and ends with a
 * body). What a loopback TCP connection costs both threads per call (a write and a read system call
 * each way, the HTTP parser twice) is left out; the emulator answers exactly as over HTTP.
 * Message in: { id, method, url, headers, body }; out: { id, statusCode, headers, body }.
 */
function serveChannel(server, port) {
  const [listener] = server.listeners('request');
  port.on('message', ({ id, method, url, headers, body }) => {
    const req = Object.assign(new EventEmitter(), { method, url, headers, httpVersion: '1.1' });
    const res = {
      statusCode: 200,
      headers: {},
      headersSent: false,
      setHeader(name, value) {
        this.headers[name.toLowerCase()] = String(value);
      },
      getHeader(name) {
        return this.headers[name.toLowerCase()];
      },
      writeHead(statusCode, extra) {
        this.statusCode = statusCode;
        for (const [name, value] of Object.entries(extra ?? {})) this.setHeader(name, value);
        return this;
      },
      end(chunk) {
        this.headersSent = true;
        const out = chunk === undefined ? '' : typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
        port.postMessage({ id, statusCode: this.statusCode, headers: this.headers, body: out });
      },
    };
    try {
      listener(req, res);
      if (body) req.emit('data', Buffer.from(body, 'utf8'));
      req.emit('end');
    } catch (error) {
      port.postMessage({ id, statusCode: 500, headers: {}, body: JSON.stringify({ __type: 'InternalFailure', message: String(error?.message ?? error) }) });
    }
  });
}

/** @type {Array<{ kind: string; options: any; channels?: import('node:worker_threads').MessagePort[] }>} */
const emulators = workerData.emulators;
const servers = [];
for (const { kind, options, channels } of emulators) {
  const server = await starters[kind](options);
  for (const channel of channels ?? []) serveChannel(server, channel);
  servers.push(server);
}
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
