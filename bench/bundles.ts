// Builds every manifest function with the settings the stack uses (lib/bundling.ts, which
// lib/constructs/manifest-function.ts turns into NodejsFunction props) and measures bundle size
// and the cold import time of each bundle in a fresh `node`.
import { execFile } from 'node:child_process';
import { isBuiltin } from 'node:module';
import { mkdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, version as esbuildVersion, type BuildOptions, type Metafile } from 'esbuild';
import { type FunctionDef } from '../shared/platform';
import { lambdaBundling } from '../lib/bundling';
import { fmt, fmtInt, median } from './stats';

export const TARGET = lambdaBundling.target;

/**
 * `stack`: exactly what deploys. `sdk-external`: the alternative the stack rejected (the AWS SDK
 * left to the Lambda runtime), kept so the reason for the choice stays measured.
 */
export type Variant = 'stack' | 'sdk-external';
export const variants: readonly Variant[] = ['stack', 'sdk-external'];

export const variantNotes: Record<Variant, string> = {
  stack:
    `what deploys: lib/bundling.ts as it stands (${lambdaBundling.bundleAwsSdk ? 'the pinned AWS SDK clients bundled' : '`@aws-sdk/*` left external'}, ` +
    `externals: ${lambdaBundling.externalModules.length ? lambdaBundling.externalModules.join(', ') : 'none'}, ${lambdaBundling.sourceMap ? 'linked source map' : 'no source map'}), ` +
    'imported with `NODE_OPTIONS=--enable-source-maps` as the stack sets it',
  'sdk-external':
    'the rejected alternative: the same settings but `@aws-sdk/*` external (NodejsFunction `bundleAwsSDK: false`), so the SDK comes from the Lambda runtime at import time; ' +
    "locally the project's node_modules stand in for the runtime's copy",
};

/** esbuild options of one variant; everything but the AWS SDK's placement comes from lib/bundling.ts. */
export function esbuildOptions(variant: Variant): BuildOptions {
  const sdkExternal = variant === 'sdk-external' ? ['@aws-sdk/*'] : lambdaBundling.bundleAwsSdk ? [] : ['@aws-sdk/*'];
  return {
    bundle: true,
    platform: lambdaBundling.platform,
    target: lambdaBundling.target,
    format: lambdaBundling.format,
    mainFields: [...lambdaBundling.mainFields],
    minify: lambdaBundling.minify,
    sourcemap: lambdaBundling.sourceMap,
    banner: { js: lambdaBundling.banner },
    external: [...new Set([...lambdaBundling.externalModules, ...sdkExternal])],
  };
}

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
  /** Bare imports left for the runtime to provide. */
  externals: string[];
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
  // Only a variant with externals gets the project's node_modules beside it, standing in for the
  // Lambda runtime's copy of the SDK; a self-contained bundle that still reaches for a package
  // then fails its import here as it would in Lambda.
  for (const variant of variants) {
    const root = join(options.outDir, variant);
    mkdirSync(root, { recursive: true });
    if (esbuildOptions(variant).external?.length) symlinkSync(join(options.projectRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  }
  const nodeOptions = '--enable-source-maps'; // the stack sets it in every function's environment

  for (const fn of options.functions) {
    for (const variant of variants) {
      const dir = join(options.outDir, variant, fn.name);
      const outfile = join(dir, 'index.mjs');
      let result: Awaited<ReturnType<typeof build<{ metafile: true }>>>;
      try {
        result = await build({
          ...esbuildOptions(variant),
          entryPoints: [join(options.projectRoot, fn.entry)],
          outfile,
          metafile: true,
          logLevel: 'silent',
          absWorkingDir: options.projectRoot,
        });
      } catch (error) {
        const why = `BUILD FAILED: ${String((error as Error)?.message ?? error).split('\n').slice(0, 2).join(' ')}`;
        rows.push({ fn: fn.name, variant, bytes: Number.NaN, gzipBytes: Number.NaN, mapBytes: null, importMs: Number.NaN, readyMs: Number.NaN, runs: 0, failures: [why], missingHandler: false, largest: [], externals: [] });
        options.log(`  ${fn.name.padEnd(12)} ${variant.padEnd(12)} ${why}`);
        continue;
      }
      const code = readFileSync(outfile);
      const runs = await timeImports(outfile, fn.handler, options.runs, lambdaBundling.sourceMap ? nodeOptions : undefined);
      const good = runs.filter((r) => r.ok);
      const failures = [...new Set(runs.filter((r) => !r.ok).map((r) => r.error ?? 'unknown error'))];
      const outRel = `${variant}/${fn.name}/index.mjs`;
      const row: BundleRow = {
        fn: fn.name,
        variant,
        bytes: code.length,
        gzipBytes: gzipSync(code).length,
        mapBytes: lambdaBundling.sourceMap ? statSync(`${outfile}.map`).size : null,
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
        `  ${fn.name.padEnd(12)} ${variant.padEnd(12)} ${String(row.bytes).padStart(8)} B  gzip ${String(row.gzipBytes).padStart(7)} B  import ${row.importMs.toFixed(1)} ms${failures.length ? `  FAILED: ${failures[0]}` : ''}`,
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

const kb = (b: number): string => `${(b / 1024).toFixed(1)} KiB`;

/** The bundles section of bench/results.md. */
export function renderBundleSection(s: { bundles: BundleRow[]; sourceMaps: SourceMapEffect | null; bundleError: string | null; importRuns: number }): string[] {
  const lines: string[] = ['## Lambda bundles', ''];
  if (s.bundleError) {
    lines.push(`Bundling failed: \`${s.bundleError}\``);
  } else {
    const stackRows = s.bundles.filter((b) => b.variant === 'stack');
    const altRows = s.bundles.filter((b) => b.variant === 'sdk-external');
    const med = (rows: BundleRow[], f: (b: BundleRow) => number): number => median(rows.map(f).filter(Number.isFinite));
    lines.push(
      `Each manifest function is bundled with esbuild ${esbuildVersion} using lib/bundling.ts, the same settings lib/constructs/manifest-function.ts turns into NodejsFunction props: platform node, target \`${TARGET}\`, format esm, bundle, minify, mainFields module,main, ` +
        'and the banner that defines `require` through `createRequire`. Two variants:',
      '',
      `- **stack**: ${variantNotes.stack}.`,
      `- **sdk-external**: ${variantNotes['sdk-external']}.`,
      '',
      `Cold import = \`await import(bundle)\` timed inside a fresh \`node\` process with an empty environment (PATH only), median of ${s.importRuns} runs, one process at a time; "ready" adds Node's own start-up (process start → import done). Gzip at zlib's default level.`,
      '',
      '| Function | Variant | Bytes | Gzip | Source map | Cold import ms (median) | Ready ms (median) | Largest parts |',
      '|---|---|---:|---:|---:|---:|---:|---|',
    );
    for (const b of s.bundles) {
      const problems = [...b.failures.map((f) => (f.startsWith('BUILD FAILED') ? f : `IMPORT FAILED: ${f}`)), ...(b.missingHandler ? ['handler export missing'] : [])];
      lines.push(
        `| ${b.fn} | ${b.variant} | ${fmtInt(b.bytes)} | ${fmtInt(b.gzipBytes)} | ${b.mapBytes === null ? '—' : fmtInt(b.mapBytes)} | ${fmt(b.importMs, 1)} | ${fmt(b.readyMs, 1)} | ${b.largest.map((p) => `${p.name} ${kb(p.bytes)}`).join('; ')}${problems.length ? ` — **${problems.join('; ')}**` : ''} |`,
      );
    }
    lines.push(
      '',
      `Read it as: gzip size is what Lambda downloads and unpacks on a cold start, import time is the module load inside it; lower is better for both. ` +
        `Across the functions (medians): **stack ${fmt(med(stackRows, (b) => b.importMs), 1)} ms import, ${kb(med(stackRows, (b) => b.gzipBytes))} gzip; sdk-external ${fmt(med(altRows, (b) => b.importMs), 1)} ms import, ${kb(med(altRows, (b) => b.gzipBytes))} gzip.** ` +
        'The sdk-external bundles are smaller but each import then resolves and loads the SDK packages file by file from node_modules, which is why the stack bundles the SDK (and so runs the SDK versions the tests ran). ' +
        "Locally the project's node_modules stand in for the Lambda runtime's SDK, so the sdk-external figures only approximate a deployed cold start.",
    );
    if (s.sourceMaps) {
      lines.push(
        '',
        `Cost of \`--enable-source-maps\` (the stack sets it): the ${s.sourceMaps.fn} stack bundle imports in ${fmt(s.sourceMaps.withMs, 1)} ms with it and ${fmt(s.sourceMaps.withoutMs, 1)} ms without (medians of ${s.sourceMaps.runs} alternating runs each).`,
      );
    }
    lines.push('', 'Packages the bundles import at load time, for the Lambda runtime to provide:', '');
    for (const variant of variants) {
      const groups = new Map<string, string[]>();
      for (const b of s.bundles.filter((x) => x.variant === variant && !x.failures.some((f) => f.startsWith('BUILD FAILED')))) {
        const set = b.externals.length ? b.externals.map((e) => `\`${e}\``).join(', ') : 'nothing';
        groups.set(set, [...(groups.get(set) ?? []), b.fn]);
      }
      for (const [set, fns] of groups) lines.push(`- ${variant}: ${fns.join(', ')}: ${set}`);
    }
  }
  return lines;
}
