// Builds every manifest function the way lib/constructs/manifest-function.ts has NodejsFunction
// build it, and measures bundle size and the cold import time of each bundle in a fresh `node`.
import { execFile } from 'node:child_process';
import { isBuiltin } from 'node:module';
import { mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import type { FunctionDef } from '../functions/manifest';
import { median } from './stats';

/**
 * Copy of ESM_REQUIRE_BANNER in lib/constructs/manifest-function.ts (not exported there).
 * `bannerMatchesStack` tells whether the stack still uses exactly this text.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __postboxCreateRequire } from 'node:module'; const require = __postboxCreateRequire(import.meta.url);";

/** esbuild's target for Lambda's Node.js 24 runtime, as NodejsFunction derives it (`nodejs24.x` → `node24`). */
export const TARGET = 'node24';

export type Variant = 'stack' | 'self';

export const variantNotes: Record<Variant, string> = {
  stack:
    'as the stack builds it: `@aws-sdk/*` external (NodejsFunction `bundleAwsSDK: false`), linked source map, ' +
    'imported with `NODE_OPTIONS=--enable-source-maps` as the stack sets it; the SDK resolves from the project node_modules',
  self: 'everything bundled (our pinned SDK clients included), no source map, no flags',
};

export interface ImportRun {
  ok: boolean;
  error: string | null;
  hasHandler: boolean;
  importMs: number;
  sinceStartMs: number;
}

export interface BundleRow {
  fn: string;
  variant: Variant;
  bytes: number;
  gzipBytes: number;
  mapBytes: number | null;
  /** Median ms of `await import(bundle)` in a fresh process. */
  importMs: number;
  /** Median ms from process start to the end of the import (Node's own boot included). */
  readyMs: number;
  runs: number;
  failures: string[];
  missingHandler: boolean;
  /** Largest contributors to the bundle, by package. */
  largest: Array<{ name: string; bytes: number }>;
  /** Bare imports left for the runtime to provide (stack variant). */
  externals: string[];
}

export function bannerMatchesStack(projectRoot: string): boolean {
  try {
    return readFileSync(join(projectRoot, 'lib/constructs/manifest-function.ts'), 'utf8').includes(JSON.stringify(ESM_REQUIRE_BANNER));
  } catch {
    return false;
  }
}

// Evaluated as an ES module in a fresh node; times only the import of the bundle.
const IMPORT_PROBE = `
const url = process.env.BENCH_BUNDLE_URL;
const exportName = process.env.BENCH_HANDLER_EXPORT;
let ok = true, error = null, hasHandler = false;
const t0 = performance.now();
try {
  const mod = await import(url);
  hasHandler = typeof mod[exportName] === 'function';
} catch (e) {
  ok = false;
  error = String((e && e.stack) || e).split('\\n').slice(0, 2).join(' | ');
}
const t1 = performance.now();
process.stdout.write(JSON.stringify({ ok, error, hasHandler, importMs: t1 - t0, sinceStartMs: t1 }) + '\\n');
`;

function probeImport(file: string, exportName: string, nodeOptions: string | undefined): Promise<ImportRun> {
  // A clean environment: importing a handler must need no configuration at all.
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    BENCH_BUNDLE_URL: pathToFileURL(file).href,
    BENCH_HANDLER_EXPORT: exportName,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  if (nodeOptions) env.NODE_OPTIONS = nodeOptions;
  return new Promise((resolvePromise) => {
    execFile(process.execPath, ['--input-type=module', '-e', IMPORT_PROBE], { env, timeout: 30_000, cwd: resolve(file, '..') }, (error, stdout, stderr) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolvePromise(JSON.parse(line) as ImportRun);
      } catch {
        const why = (error?.message ?? stderr ?? 'no output').split('\n').slice(0, 2).join(' | ');
        resolvePromise({ ok: false, error: `probe failed: ${why}`, hasHandler: false, importMs: Number.NaN, sinceStartMs: Number.NaN });
      }
    });
  });
}

function packageOf(inputPath: string): string {
  const parts = inputPath.split('node_modules/');
  if (parts.length < 2) return '(project code)';
  const rest = (parts[parts.length - 1] as string).split('/');
  return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] as string);
}

function largestParts(metafile: Metafile, outfileRel: string): Array<{ name: string; bytes: number }> {
  const output = Object.entries(metafile.outputs).find(([name]) => name.endsWith(outfileRel))?.[1];
  if (!output) return [];
  const byPackage = new Map<string, number>();
  for (const [path, info] of Object.entries(output.inputs)) {
    const name = packageOf(path);
    byPackage.set(name, (byPackage.get(name) ?? 0) + info.bytesInOutput);
  }
  return [...byPackage.entries()]
    .map(([name, bytes]) => ({ name, bytes }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 4);
}

function externalsOf(metafile: Metafile, outfileRel: string): string[] {
  const output = Object.entries(metafile.outputs).find(([name]) => name.endsWith(outfileRel))?.[1];
  return [...new Set((output?.imports ?? []).filter((i) => i.external && !isBuiltin(i.path)).map((i) => i.path))].sort();
}

async function timeImports(file: string, exportName: string, runs: number, nodeOptions?: string): Promise<ImportRun[]> {
  const out: ImportRun[] = [];
  for (let i = 0; i < runs; i++) out.push(await probeImport(file, exportName, nodeOptions)); // one at a time: 2 cores
  return out;
}

export async function measureBundles(options: {
  projectRoot: string;
  functions: readonly FunctionDef[];
  outDir: string;
  runs: number;
  /** The function whose stack bundle is also timed without --enable-source-maps. */
  sourceMapProbe?: string;
  log: (line: string) => void;
}): Promise<{ rows: BundleRow[]; sourceMaps: SourceMapEffect | null }> {
  let sourceMaps: SourceMapEffect | null = null;
  const rows: BundleRow[] = [];
  // The stack variant leaves @aws-sdk/* to the runtime; locally the project's copy stands in.
  const stackRoot = join(options.outDir, 'stack');
  mkdirSync(stackRoot, { recursive: true });
  symlinkSync(join(options.projectRoot, 'node_modules'), join(stackRoot, 'node_modules'), 'dir');
  const selfRoot = join(options.outDir, 'self');

  for (const fn of options.functions) {
    for (const variant of ['stack', 'self'] as const) {
      const dir = join(variant === 'stack' ? stackRoot : selfRoot, fn.name);
      const outfile = join(dir, 'index.mjs');
      let result: Awaited<ReturnType<typeof build<{ metafile: true }>>>;
      try {
        result = await build({
          entryPoints: [join(options.projectRoot, fn.entry)],
          outfile,
          bundle: true,
          platform: 'node',
          target: TARGET,
          format: 'esm',
          mainFields: ['module', 'main'],
          minify: true,
          sourcemap: variant === 'stack',
          banner: { js: ESM_REQUIRE_BANNER },
          external: variant === 'stack' ? ['@aws-sdk/*'] : [],
          metafile: true,
          logLevel: 'silent',
          absWorkingDir: options.projectRoot,
        });
      } catch (error) {
        const why = `BUILD FAILED: ${String((error as Error)?.message ?? error).split('\n').slice(0, 2).join(' ')}`;
        rows.push({ fn: fn.name, variant, bytes: Number.NaN, gzipBytes: Number.NaN, mapBytes: null, importMs: Number.NaN, readyMs: Number.NaN, runs: 0, failures: [why], missingHandler: false, largest: [], externals: [] });
        options.log(`  ${fn.name.padEnd(9)} ${variant.padEnd(5)} ${why}`);
        continue;
      }
      const code = readFileSync(outfile);
      const runs = await timeImports(outfile, fn.handler, options.runs, variant === 'stack' ? '--enable-source-maps' : undefined);
      const good = runs.filter((r) => r.ok);
      const failures = [...new Set(runs.filter((r) => !r.ok).map((r) => r.error ?? 'unknown error'))];
      const outRel = `${variant}/${fn.name}/index.mjs`;
      const row: BundleRow = {
        fn: fn.name,
        variant,
        bytes: code.length,
        gzipBytes: gzipSync(code).length,
        mapBytes: variant === 'stack' ? statSync(`${outfile}.map`).size : null,
        importMs: good.length ? median(good.map((r) => r.importMs)) : Number.NaN,
        readyMs: good.length ? median(good.map((r) => r.sinceStartMs)) : Number.NaN,
        runs: runs.length,
        failures,
        missingHandler: good.some((r) => !r.hasHandler),
        largest: largestParts(result.metafile, outRel),
        externals: externalsOf(result.metafile, outRel),
      };
      rows.push(row);
      if (variant === 'stack' && fn.name === options.sourceMapProbe && !failures.length) {
        sourceMaps = await measureSourceMapEffect(fn.name, outfile, fn.handler, options.runs);
      }
      options.log(
        `  ${fn.name.padEnd(9)} ${variant.padEnd(5)} ${String(row.bytes).padStart(8)} B  gzip ${String(row.gzipBytes).padStart(7)} B  import ${row.importMs.toFixed(1)} ms${failures.length ? `  FAILED: ${failures[0]}` : ''}`,
      );
    }
  }
  return { rows, sourceMaps };
}

export interface SourceMapEffect {
  fn: string;
  runs: number;
  withMs: number;
  withoutMs: number;
}

/** The stack sets NODE_OPTIONS=--enable-source-maps; runs with and without alternate so drift hits both. */
async function measureSourceMapEffect(fn: string, file: string, exportName: string, runs: number): Promise<SourceMapEffect> {
  const withFlag: number[] = [];
  const without: number[] = [];
  for (let i = 0; i < runs; i++) {
    const a = await probeImport(file, exportName, '--enable-source-maps');
    const b = await probeImport(file, exportName, undefined);
    if (a.ok) withFlag.push(a.importMs);
    if (b.ok) without.push(b.importMs);
  }
  return { fn, runs, withMs: withFlag.length ? median(withFlag) : Number.NaN, withoutMs: without.length ? median(without) : Number.NaN };
}
