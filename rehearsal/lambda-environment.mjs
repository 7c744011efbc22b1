// The body of one Lambda execution environment of the rehearsal (plain JavaScript: tsx's loader
// does not reach worker threads, and the bundle it loads is plain JavaScript anyway). It imports
// the function's bundle from the cloud assembly, as the Node.js runtime does at init, and runs one
// invocation at a time: { id, event, deadline } in, { id, ok, result | error } out. Its
// process.env is the function's alone (the Worker's `env`), so nothing of the rehearsal's own
// environment reaches the function. With `internet` (internet.mjs) the isolate's network reaches
// the public hosts the rehearsal plays, installed before the bundle loads, as the network is there
// before Lambda's init.
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const { file, exportName, context: base, internet } = workerData;
if (internet) (await import('./internet.mjs')).installInternet(internet);

/** An error as the Lambda runtime reports it: errorType, errorMessage, trace. */
const reported = (error, fallbackType) => ({
  errorType: (error && error.name) || fallbackType,
  errorMessage: String((error && error.message) || error),
  trace: String((error && error.stack) || '').split('\n'),
});

let handler;
try {
  const module = await import(pathToFileURL(file).href);
  handler = module[exportName];
  if (typeof handler !== 'function') {
    parentPort.postMessage({ kind: 'init', ok: false, error: { errorType: 'Runtime.HandlerNotFound', errorMessage: `${file} does not export ${exportName} as a function`, trace: [] } });
  } else {
    parentPort.postMessage({ kind: 'init', ok: true });
  }
} catch (error) {
  parentPort.postMessage({ kind: 'init', ok: false, error: reported(error, 'Runtime.ImportModuleError') });
}

parentPort.on('message', async ({ id, event, deadline }) => {
  const context = {
    ...base,
    awsRequestId: id,
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done() {},
    fail() {},
    succeed() {},
  };
  try {
    const result = await handler(event, context);
    parentPort.postMessage({ kind: 'result', id, ok: true, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) });
  } catch (error) {
    parentPort.postMessage({ kind: 'result', id, ok: false, error: reported(error, 'Error') });
  }
});
