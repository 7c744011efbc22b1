// The functions thread's code as plain JavaScript (functions-thread.ts). The main thread runs
// TypeScript through tsx's loader, whose hooks live on a thread of their own with esbuild beside
// them (tens of MiB); a worker thread does not inherit them and would need its own. Instead the
// thread's body and every consumer it may run are bundled once at start with esbuild (the
// project's own code; packages stay imports, resolved from the project's node_modules), into a
// folder of their own under the project's .tmp/, with one shared copy of every module (the
// container the consumers read is the one the thread installs). The thread then imports a
// consumer only when it first has work for it. esbuild's process ends before the store opens its
// files (it would inherit them otherwise: kill-leaves-nothing.test.ts).
import { build, stop, type Plugin } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { projectRoot, type ConsumerDef } from './consumers';

export interface FunctionsBundle {
  /** The thread's body (functions-worker.ts, bundled). */
  worker: URL;
  /** Each consumer's bundled module, by function name (file URLs). */
  modules: Record<string, string>;
  /** Removes the folder (once the thread has ended). */
  remove(): void;
}

const BUILDS = join(projectRoot, '.tmp', 'functions-thread');

/**
 * A file inside a package that has no `exports` map, imported without its extension
 * ('juice/client'): tsx finds the file, Node's own resolver does not. Such an import is kept as an
 * import of the file's absolute path; every other package import stays as written.
 */
const packageFiles: Plugin = {
  name: 'package-files',
  setup(b) {
    const require = createRequire(join(projectRoot, 'package.json'));
    b.onResolve({ filter: /^(@[^/]+\/)?[^./@][^/]*\/./ }, (args) => {
      const name = args.path.split('/').slice(0, args.path.startsWith('@') ? 2 : 1).join('/');
      try {
        const manifest = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { exports?: unknown };
        if (manifest.exports !== undefined) return undefined;
        return { path: require.resolve(args.path), external: true };
      } catch {
        return undefined; // its package.json is not exported: it has an exports map
      }
    });
  },
};

/** Folders of runtimes that ended without removing theirs (kill -9): their process is gone. */
function removeStale(): void {
  let names: string[] = [];
  try {
    names = readdirSync(BUILDS);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.split('-')[0]);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') rmSync(join(BUILDS, name), { recursive: true, force: true });
    }
  }
}

/** Bundles functions-worker.ts and `functions`' modules; rejects (naming the file) when one does not build. */
export async function bundleFunctionsThread(functions: readonly ConsumerDef[]): Promise<FunctionsBundle> {
  removeStale();
  const outdir = join(BUILDS, `${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(outdir, { recursive: true });
  const out = (name: string) => `fn/${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  try {
    await build({
      absWorkingDir: projectRoot,
      entryPoints: [{ in: 'shared/runtime/local/functions-worker.ts', out: 'functions-worker' }, ...functions.map((fn) => ({ in: fn.entry, out: out(fn.name) }))],
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      outdir,
      outExtension: { '.js': '.mjs' },
      // Read only when an error is logged (stack-trace.ts), never at load.
      sourcemap: 'linked',
      logLevel: 'silent',
      plugins: [packageFiles],
    });
  } catch (error) {
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  } finally {
    await stop();
  }
  const url = (name: string) => pathToFileURL(join(outdir, `${name}.mjs`)).href;
  return {
    worker: new URL(url('functions-worker')),
    modules: Object.fromEntries(functions.map((fn) => [fn.name, url(out(fn.name))])),
    remove: () => rmSync(outdir, { recursive: true, force: true }),
  };
}
