// The local runtime's own code as plain JavaScript, for a thread that runs it without a TypeScript
// loader. tsx's loader keeps its hooks on a thread of its own with esbuild beside it (tens of MiB
// per thread that registers it), so `npm start` (bin/local.mjs) and its functions thread
// (functions-build.ts) each run a bundle instead: the project's modules bundled by esbuild with
// every entry a function may need (one shared copy of each module: the container a handler reads
// is the one its thread installed), packages kept as imports and resolved from the project's
// node_modules, written to a folder of their own under the project's .tmp/. Plain JavaScript
// (this file) so that the launcher can use it before any TypeScript runs.
import { build, stop } from 'esbuild';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The folder of the first package.json above `from` (a source file, or a bundle under .tmp/). */
export function projectRootOf(from) {
  let dir = dirname(fileURLToPath(from));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
  return dir;
}

/**
 * A file inside a package that has no `exports` map, imported without its extension
 * ('juice/client'): tsx finds the file, Node's own resolver does not. Such an import is kept as an
 * import of the file's absolute path; every other package import stays as written.
 */
function packageFiles(root) {
  const require = createRequire(join(root, 'package.json'));
  return {
    name: 'package-files',
    setup(b) {
      b.onResolve({ filter: /^(@[^/]+\/)?[^./@][^/]*\/./ }, (args) => {
        const name = args.path.split('/').slice(0, args.path.startsWith('@') ? 2 : 1).join('/');
        try {
          const manifest = JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8'));
          if (manifest.exports !== undefined) return undefined;
          return { path: require.resolve(args.path), external: true };
        } catch {
          return undefined; // its package.json is not exported: it has an exports map
        }
      });
    },
  };
}

/** Folders of processes that ended without removing theirs (kill -9): their process is gone. */
function removeStale(folder) {
  if (!existsSync(folder)) return;
  for (const name of readdirSync(folder)) {
    const pid = Number(name.split('-')[0]);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if (error.code === 'ESRCH') rmSync(join(folder, name), { recursive: true, force: true });
    }
  }
}

const safe = (name) => name.replace(/[^A-Za-z0-9_-]/g, '_');

/**
 * Bundles `entries` ({ name: project-relative source }) into `.tmp/<kind>/<pid>-<random>/` under
 * `root`; resolves with each entry's file URL by name and a `remove()` of the folder. Rejects
 * (naming the file) when one does not build. esbuild's process has ended when it settles.
 */
export async function bundle(root, kind, entries) {
  const folder = join(root, '.tmp', kind);
  removeStale(folder);
  const outdir = join(folder, `${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(outdir, { recursive: true });
  try {
    await build({
      absWorkingDir: root,
      entryPoints: Object.entries(entries).map(([name, file]) => ({ in: file, out: safe(name) })),
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
      plugins: [packageFiles(root)],
    });
  } catch (error) {
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  } finally {
    await stop();
  }
  return {
    urls: Object.fromEntries(Object.keys(entries).map((name) => [name, pathToFileURL(join(outdir, `${safe(name)}.mjs`)).href])),
    remove: () => rmSync(outdir, { recursive: true, force: true }),
  };
}
