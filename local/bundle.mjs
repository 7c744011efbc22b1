// The local runtime's own code as plain JavaScript, for a thread that runs it without a TypeScript
// loader. tsx's loader keeps its hooks on a thread of its own with esbuild beside it (tens of MiB
// per thread that registers it), so `npm start` (bin/local.mjs) and its functions thread
// (functions-build.ts) each run a bundle instead: the project's modules bundled by esbuild with
// every entry a function may need (one shared copy of each module: the container a handler reads
// is the one its thread installed), packages kept as imports and resolved from the project's
// node_modules, written to a folder of their own under the project's .tmp/. Plain JavaScript
// (this file) so that the launcher can use it before any TypeScript runs.
import { build, stop } from 'esbuild';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
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

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code !== 'ESRCH';
  }
};

/**
 * The cache's folders that no live process uses and that are not the current build: a build's
 * folder holds a mark per process that loaded it (`users/<pid>`), since a process imports a
 * function's module only on its first request, long after it started. A folder a killed process
 * left is removed here too: its mark names a process that is gone.
 */
function prune(cache, current) {
  for (const name of readdirSync(cache)) {
    const dir = join(cache, name);
    if (name === current || !statSync(dir).isDirectory()) continue;
    const users = join(dir, 'users');
    const live = existsSync(users) && readdirSync(users).some((pid) => Number(pid) === process.pid || alive(Number(pid)));
    const builder = Number(name.split('-')[0]);
    if (!live && !(Number.isInteger(builder) && builder !== process.pid && alive(builder) && !existsSync(join(dir, 'inputs.json')))) rmSync(dir, { recursive: true, force: true });
  }
}

/** The current build of `cache`, when every file it was built from is as it was then. */
function freshBuild(root, cache) {
  try {
    const { dir, inputs } = JSON.parse(readFileSync(join(cache, 'current.json'), 'utf8'));
    if (!existsSync(join(cache, dir))) return undefined;
    for (const [file, mtimeMs, size] of inputs) {
      const stat = statSync(join(root, file));
      if (stat.mtimeMs !== mtimeMs || stat.size !== size) return undefined;
    }
    return dir;
  } catch {
    return undefined; // no build yet, or one being written: build
  }
}

const safe = (name) => name.replace(/[^A-Za-z0-9_-]/g, '_');

/** Marks `dir` as used by this process until `release()`; the folder itself stays for the next start. */
function use(cache, dir, names) {
  const users = join(cache, dir, 'users');
  mkdirSync(users, { recursive: true });
  writeFileSync(join(users, String(process.pid)), '');
  return {
    urls: Object.fromEntries(names.map((name) => [name, pathToFileURL(join(cache, dir, `${safe(name)}.mjs`)).href])),
    remove: () => rmSync(join(users, String(process.pid)), { force: true }),
  };
}

/**
 * Bundles `entries` ({ name: project-relative source }) under `root`'s `.tmp/<kind>/`, or reuses
 * the last build of the same entries when none of the files it was built from has changed since
 * (their modification time and size, from esbuild's metafile): a start after the first builds
 * nothing. Resolves with each entry's file URL by name and a `remove()` that releases this
 * process's use of the build (the folder stays as the cache). Rejects (naming the file) when one
 * does not build. esbuild's process has ended when it settles.
 */
export async function bundle(root, kind, entries) {
  // This file's own text is part of the key: a change to how it builds is a new build.
  const key = createHash('sha256').update(JSON.stringify([entries, process.version, readFileSync(fileURLToPath(import.meta.url), 'utf8')])).digest('hex').slice(0, 16);
  const cache = join(root, '.tmp', kind, key);
  mkdirSync(cache, { recursive: true });
  const names = Object.keys(entries);
  const fresh = freshBuild(root, cache);
  if (fresh) {
    const reused = use(cache, fresh, names);
    // Pruned by another start between the look and the mark (a newer build replaced it): build.
    if (existsSync(join(cache, fresh, 'inputs.json'))) return reused;
    reused.remove();
  }
  const dir = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const outdir = join(cache, dir);
  mkdirSync(outdir, { recursive: true });
  let metafile;
  try {
    ({ metafile } = await build({
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
      metafile: true,
      logLevel: 'silent',
      plugins: [packageFiles(root)],
    }));
  } catch (error) {
    rmSync(outdir, { recursive: true, force: true });
    throw error;
  } finally {
    await stop();
  }
  const inputs = Object.keys(metafile.inputs)
    .filter((file) => !file.includes(':') && existsSync(join(root, file)))
    .map((file) => {
      const stat = statSync(join(root, file));
      return [file, stat.mtimeMs, stat.size];
    });
  const built = use(cache, dir, names);
  writeFileSync(join(outdir, 'inputs.json'), JSON.stringify(inputs));
  // The pointer is replaced whole (a rename), so a start that reads it meanwhile sees one build or the other.
  const pointer = join(cache, `current.${process.pid}.json`);
  writeFileSync(pointer, JSON.stringify({ dir, inputs }));
  renameSync(pointer, join(cache, 'current.json'));
  prune(cache, dir);
  return built;
}
