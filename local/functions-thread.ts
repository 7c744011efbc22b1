// The local runtime's functions thread, seen from the API thread: a worker thread that runs the
// queue consumers, the timed functions, the scheduler's tick and the SES emulator with its
// simulated feedback (functions-worker.ts), so that their work never holds up the API's event loop,
// as Lambda runs each function apart. One thread for all of them: a thread is a V8 heap of its own.
//
// Being a thread of the runtime's process, it dies with it (kill -9 included). An uncaught error
// in it ends the runtime, as an emulator's does: an API without its consumers would accept work it
// never finishes. Closing stops the pollers (their last acknowledgements reach the journal) before
// the emulators close.
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { JournaledQueue } from '../shared/adapters/local/journaled-queue';
import type { Mailer } from '../shared/ports/mailer';
import type { RuntimeConfig } from '../shared/runtime/config';
import type { AdmissionOptions } from './admission';
import type { ConsumerDef } from './consumers';
import { bundleFunctionsThread } from './functions-build';
import { LinkedMailer, serveJournal } from './journal-link';
import { PortRpc } from './port-rpc';
import type { SmtpListenerOptions } from './smtp-listener';

/** What the thread is started with (workerData): plain data and its two ports. */
export interface FunctionsThreadData {
  /** The API thread's config; the thread fills in the SES emulator's endpoint. */
  config: RuntimeConfig;
  functions: ConsumerDef[];
  /** Each consumer's bundled module by function name (functions-build.ts), imported on its first batch. */
  modules: Record<string, string>;
  /** Import every consumer's module at load, not on its first batch (a test of a module's failure). */
  eager?: boolean;
  dataDir: string;
  sesPort: number;
  retryDelaySeconds: number;
  schedulerTickMs: number;
  admission?: Pick<AdmissionOptions, 'maxConsumerBatches'>;
  /** A store the user pointed us at (DYNAMODB_ENDPOINT): the SDK's own client, over HTTP. */
  externalStore: boolean;
  /** The embedded store's port for this thread (emulators.ts startStoreAndQueues). */
  storeChannel?: MessagePort;
  /** The queue emulator's port for this thread (emulators.ts startStoreAndQueues). */
  sqsChannel?: MessagePort;
  /** The link to the API thread (port-rpc.ts). */
  link: MessagePort;
}

/** The SMTP listener's settings, when it runs on the functions thread (smtp-listener.ts). */
export type SmtpOptions = Omit<SmtpListenerOptions, 'container' | 'logger'>;

export interface FunctionsThread {
  sesEndpoint: string;
  sesPort: number;
  threadId: number;
  /** The API thread's mailer: its mail goes through the thread's SES feedback. */
  mailer: Mailer;
  /** Starts the pollers and timers, once the API listens (its address is the links' origin). */
  startConsumers(publicBaseUrl: string, claimsExpiredBy: number): Promise<void>;
  /** Starts the SMTP listener on the thread; closing the thread closes it. */
  startSmtp(options: SmtpOptions): Promise<{ url: string; port: number }>;
  close(): Promise<void>;
}

/**
 * The thread's young generation held to 8 MiB, as the main thread's (heap.ts) and the emulators'
 * (emulators.ts): V8 would let it grow to 32 MiB and more under the consumers' allocation rate,
 * while they keep little; more frequent, shorter scavenges instead. The old generation keeps V8's
 * default limit: running out would end the runtime.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 8 };

type Loaded = Pick<FunctionsThreadData, 'functions' | 'modules' | 'eager'>;
type StartOptions = Omit<FunctionsThreadData, keyof Loaded | 'link'> & { journal: JournaledQueue };

/**
 * Bundles the thread's code (functions-build.ts; a consumer that does not build rejects here) and
 * starts it; resolves once its body is loaded (each consumer's module is imported on its first
 * batch), with `start`, which gives it its config and ports and resolves
 * once its SES emulator listens and its feedback has queued what a kill left owed. Start the store
 * after this resolves: see functions-worker.ts. `onFailure` is called if the thread ends unasked
 * once started; before that, the promise of the step under way rejects.
 */
export async function loadFunctionsThread(
  functions: ConsumerDef[],
  onFailure: (error: Error) => void,
  options: { eager?: boolean } = {},
): Promise<{ start(options: StartOptions): Promise<FunctionsThread>; stop(): Promise<void> }> {
  const bundle = await bundleFunctionsThread(functions);
  const workerData: Loaded = { functions, modules: bundle.modules, eager: options.eager };
  const worker = new Worker(bundle.worker, { workerData, name: 'postbox-functions', resourceLimits: THREAD_LIMITS });
  let closing = false;
  let step: { reject: (error: Error) => void } | undefined;
  let rpc: PortRpc | undefined;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve())).finally(() => bundle.remove());
  const failed = (error: Error): void => {
    if (closing) return;
    rpc?.close();
    if (step) step.reject(error);
    else onFailure(error);
  };
  worker.once('error', failed);
  worker.once('exit', (code) => failed(new Error(`the functions thread exited (code ${code})`)));
  const next = <T>(): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      step = { reject };
      worker.once('message', (message: T) => {
        step = undefined;
        resolve(message);
      });
    });
  const stopEarly = async (): Promise<void> => {
    if (!closing) {
      closing = true;
      await worker.terminate();
    }
    await exited;
  };
  await next<{ loaded: true }>();
  return {
    stop: stopEarly,
    async start({ journal, ...data }) {
      const link = new MessageChannel();
      rpc = new PortRpc(link.port1);
      serveJournal(rpc, journal);
      const transferList = [link.port2, ...[data.storeChannel, data.sqsChannel].filter((port) => port !== undefined)];
      const readyNow = next<{ ready: { sesEndpoint: string; sesPort: number } }>();
      worker.postMessage({ ...data, link: link.port2 } satisfies Omit<FunctionsThreadData, keyof Loaded>, transferList);
      const { ready } = await readyNow.catch(async (error: Error) => {
        await stopEarly();
        throw error;
      });
      const linked = rpc;
      return {
        ...ready,
        threadId: worker.threadId,
        mailer: new LinkedMailer(linked),
        startConsumers: (publicBaseUrl, claimsExpiredBy) => linked.call('consumers.start', { publicBaseUrl, claimsExpiredBy }),
        startSmtp: (smtp) => linked.call('smtp.start', smtp),
        close: async () => {
          if (!closing) {
            closing = true;
            await linked.call('close').catch(() => undefined);
            linked.close();
            await worker.terminate();
          }
          await exited;
        },
      };
    },
  };
}
