// The functions thread's code as plain JavaScript (functions-thread.ts): its body and every
// consumer it may run, bundled once at start (bundle.mjs) instead of a TypeScript loader thread of
// its own. The thread imports a consumer only when it first has work for it: a bundled module is
// plain JavaScript, so importing it later starts no process. esbuild's process ends before the
// store opens its files (it would inherit them otherwise: kill-leaves-nothing.test.ts).
import { bundle } from './bundle.mjs';
import { projectRoot, type ConsumerDef } from './consumers';

export interface FunctionsBundle {
  /** The thread's body (functions-worker.ts, bundled). */
  worker: URL;
  /** Each consumer's bundled module, by function name (file URLs). */
  modules: Record<string, string>;
  /** Releases this process's use of the build (once the thread has ended); the build stays as the cache. */
  remove(): void;
}

const WORKER = ' worker'; // not a function name (they have no spaces)

/** Bundles functions-worker.ts and `functions`' modules; rejects (naming the file) when one does not build. */
export async function bundleFunctionsThread(functions: readonly ConsumerDef[]): Promise<FunctionsBundle> {
  const entries = { [WORKER]: 'local/functions-worker.ts', ...Object.fromEntries(functions.map((fn) => [fn.name, fn.entry])) };
  const built = await bundle(projectRoot, 'functions-thread', entries);
  const { [WORKER]: worker, ...modules } = built.urls;
  return { worker: new URL(worker as string), modules, remove: built.remove };
}
