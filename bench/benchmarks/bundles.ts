// Every manifest function bundled exactly as the stack bundles it (lib/bundling.ts): its size, gzip
// size and source map, what takes the room (esbuild's metafile, by package), and the cold import
// time of the bundle in a fresh `node` as deployed, and with Node's --enable-source-maps (which the
// functions do without: shared/adapters/stack-trace.ts maps logged stacks instead). Beside each
// bundle, the import of the Node built-in modules it imports, alone: the part of a cold import
// that making the bundle smaller does not lower.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { version as esbuildVersion, type Metafile } from 'esbuild';
import { functions } from '../../functions/manifest';
import { BUNDLE_FILE, bundleFunction, lambdaBundling } from '../../lib/bundling';
import type { FunctionDef } from '../../shared/platform';
import type { Benchmark } from '../run';
import { fmt, fmtInt, median, percentile } from '../lib/measure';

const IMPORT_RUNS = 9;
const BUILTINS_FILE = 'builtins.mjs';
const TOP_CONTRIBUTORS = 5;
/** The targets of issue 11 for the API functions (every function with HTTP routes): 150 KB gzip, 60 ms. */
const API_GZIP_BUDGET = 150_000;
const API_IMPORT_BUDGET_MS = 60;
const NODE_SOURCE_MAPS = '--enable-source-maps';
/** The Node built-ins a minified ESM bundle imports (`import{…}from"node:https"`, `import"node:x"`). */
const BUILTIN_IMPORT = /(?:from|import)\s*"(node:[a-z_/]+)"/g;

// Evaluated as an ES module in a fresh node with an empty environment: times only the import, in
// wall time and in the CPU time of the process (less sensitive to other work on the machine).
const PROBE = `
const c0 = process.cpuUsage();
const t0 = performance.now();
const mod = await import(process.env.BUNDLE_URL);
const ms = performance.now() - t0;
const cpu = process.cpuUsage(c0);
process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000, handler: !process.env.HANDLER || typeof mod[process.env.HANDLER] === 'function' }));
`;

interface ImportRun {
  ms: number;
  cpuMs: number;
  error?: string;
}

function timeImport(file: string, handler: string, nodeOptions: string): Promise<ImportRun> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', BUNDLE_URL: pathToFileURL(file).href, HANDLER: handler, NODE_OPTIONS: nodeOptions, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  return new Promise((resolve) =>
    execFile(process.execPath, ['--input-type=module', '-e', PROBE], { env, timeout: 30_000 }, (error, stdout, stderr) => {
      try {
        const out = JSON.parse(stdout) as { ms: number; cpuMs: number; handler: boolean };
        resolve(out.handler ? out : { ...out, error: `no export ${handler}` });
      } catch {
        resolve({ ms: Number.NaN, cpuMs: Number.NaN, error: String(stderr || error?.message || 'no output').split('\n').slice(0, 2).join(' | ') });
      }
    }),
  );
}

/** Bytes in the bundle per package (a folder of ours counts as one), largest first. */
function contributors(metafile: Metafile): Array<[string, number]> {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint)!;
  const byPackage = new Map<string, number>();
  for (const [path, input] of Object.entries(output.inputs)) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split('/').slice(0, -1).join('/') + '/';
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + input.bytesInOutput);
  }
  return [...byPackage].sort((a, b) => b[1] - a[1]);
}

interface Row {
  fn: FunctionDef;
  api: boolean;
  bytes: number;
  gzip: number;
  mapBytes: number;
  top: Array<[string, number]>;
  deployed: ImportRun[];
  nodeMaps: ImportRun[];
  /** An ES module importing only the Node built-ins the bundle imports. */
  builtins: ImportRun[];
}

const ok = (runs: readonly ImportRun[]): ImportRun[] => runs.filter((r) => !r.error);
const medianMs = (runs: readonly ImportRun[]): number => median(ok(runs).map((r) => r.ms));
const medianCpu = (runs: readonly ImportRun[]): number => median(ok(runs).map((r) => r.cpuMs));
const spread = (runs: readonly ImportRun[]): string => {
  const ms = ok(runs).map((r) => r.ms);
  return `${fmt(percentile(ms, 25), 0)}–${fmt(percentile(ms, 75), 0)}`;
};
const kib = (bytes: number): string => fmt(bytes / 1024, 1);

export const bundles: Benchmark = {
  name: 'Lambda bundles',
  async run({ projectRoot, log }) {
    const outDir = mkdtempSync(join(tmpdir(), 'postbox-bench-bundles-'));
    const loadAtStart = loadavg();
    try {
      const rows: Row[] = [];
      for (const fn of functions) {
        const dir = join(outDir, fn.name);
        const metafile = await bundleFunction(fn, projectRoot, dir);
        const code = readFileSync(join(dir, BUNDLE_FILE));
        const builtins = [...new Set([...code.toString('utf8').matchAll(BUILTIN_IMPORT)].map((m) => m[1]!))];
        writeFileSync(join(dir, BUILTINS_FILE), builtins.map((name) => `import '${name}';`).join('\n') + '\nexport {};\n');
        rows.push({
          fn,
          api: (fn.http?.length ?? 0) > 0,
          bytes: code.length,
          gzip: gzipSync(code).length,
          mapBytes: statSync(join(dir, `${BUNDLE_FILE}.map`)).size,
          top: contributors(metafile).slice(0, TOP_CONTRIBUTORS),
          deployed: [],
          nodeMaps: [],
          builtins: [],
        });
      }
      // Round after round over every function, one import at a time (2 cores): a burst of other work
      // on the machine then spreads over all functions instead of skewing one.
      for (let i = 0; i < IMPORT_RUNS; i++) {
        for (const row of rows) {
          const file = join(outDir, row.fn.name, BUNDLE_FILE);
          row.deployed.push(await timeImport(file, row.fn.handler, ''));
          row.nodeMaps.push(await timeImport(file, row.fn.handler, NODE_SOURCE_MAPS));
          row.builtins.push(await timeImport(join(outDir, row.fn.name, BUILTINS_FILE), '', ''));
        }
      }
      for (const r of rows) {
        log(`  ${r.fn.name.padEnd(18)} gzip ${fmtInt(r.gzip).padStart(8)} B, import ${fmt(medianMs(r.deployed), 1)} ms (cpu ${fmt(medianCpu(r.deployed), 1)}), with ${NODE_SOURCE_MAPS} ${fmt(medianMs(r.nodeMaps), 1)} ms, its built-ins alone ${fmt(medianMs(r.builtins), 1)} ms`);
      }

      const api = rows.filter((r) => r.api);
      const overGzip = api.filter((r) => r.gzip > API_GZIP_BUDGET).map((r) => `${r.fn.name} (${fmtInt(r.gzip)} B)`);
      const overImport = api.filter((r) => medianMs(r.deployed) > API_IMPORT_BUDGET_MS).map((r) => `${r.fn.name} (${fmt(medianMs(r.deployed), 1)} ms)`);
      const errors = [...new Set(rows.flatMap((r) => [...r.deployed, ...r.nodeMaps, ...r.builtins].flatMap((run) => (run.error ? [`${r.fn.name}: ${run.error}`] : []))))];
      const sourceMapCost = median(rows.map((r) => medianMs(r.nodeMaps) - medianMs(r.deployed)));
      return [
        '## Lambda bundles',
        '',
        `Each manifest function bundled by lib/bundling.ts, the code the stack deploys: esbuild ${esbuildVersion}, target \`${lambdaBundling.target}\`, ${lambdaBundling.format}, minified, the pinned AWS SDK inside with its credential chain replaced by the Lambda environment's credentials and four generated SDK patterns rewritten (event-stream support dropped), the S3 client and presigner only where the bucket is granted, a linked source map without the sources' text. ` +
          `Largest contributors = bytes in the minified bundle per package (esbuild's metafile). ` +
          `Cold import = \`await import(bundle)\` in a fresh \`node\` with an empty environment, median of ${IMPORT_RUNS} runs taken in rounds over all functions, one import at a time, with the 25th–75th percentile; **as deployed** (no NODE_OPTIONS), and with ${NODE_SOURCE_MAPS}, which the functions do without (their logged stacks are mapped when logged, shared/adapters/stack-trace.ts). ` +
          `CPU = user + system time of the importing process, which other work on the machine inflates less than wall time. ` +
          `Built-ins = the same measure for an ES module that imports only the Node built-in modules the bundle imports (node:https, node:crypto, …): the part of the bundle's import that making it smaller does not lower. ` +
          `Load average (1/5/15 min) at the start ${loadAtStart.map((x) => fmt(x, 2)).join(' / ')}, at the end ${loadavg().map((x) => fmt(x, 2)).join(' / ')}: on this shared 2-core machine import times move by tens of percent from run to run; sizes are exact. Lambda runs Node.js 24 on ARM64, so times there differ.`,
        '',
        `| Function | API | Bytes | Gzip | Map | Cold import ms, as deployed (p25–p75) | CPU ms | Built-ins ms | With ${NODE_SOURCE_MAPS} ms | Largest contributors (KiB minified) |`,
        '|---|:-:|---:|---:|---:|---:|---:|---:|---:|---|',
        ...rows.map(
          (r) =>
            `| ${r.fn.name} | ${r.api ? 'yes' : ''} | ${fmtInt(r.bytes)} | ${fmtInt(r.gzip)} | ${fmtInt(r.mapBytes)} | ${fmt(medianMs(r.deployed), 1)} (${spread(r.deployed)}) | ${fmt(medianCpu(r.deployed), 1)} | ${fmt(medianMs(r.builtins), 1)} | ${fmt(medianMs(r.nodeMaps), 1)} | ${r.top.map(([pkg, bytes]) => `${pkg} ${kib(bytes)}`).join(', ')} |`,
        ),
        '',
        `API functions (${api.length}): gzip at most **${fmtInt(Math.max(...api.map((r) => r.gzip)))} B** (target ${fmtInt(API_GZIP_BUDGET)} B; over it: ${overGzip.join(', ') || 'none'}); ` +
          `cold import as deployed at most **${fmt(Math.max(...api.map((r) => medianMs(r.deployed))), 1)} ms**, median over them ${fmt(median(api.map((r) => medianMs(r.deployed))), 1)} ms, CPU at most ${fmt(Math.max(...api.map((r) => medianCpu(r.deployed))), 1)} ms (target ${API_IMPORT_BUDGET_MS} ms; over it: ${overImport.join(', ') || 'none'}), of which their built-ins alone take ${fmt(median(api.map((r) => medianMs(r.builtins))), 1)} ms (median). ` +
          `${NODE_SOURCE_MAPS} would add ${fmt(sourceMapCost, 1)} ms to a cold import (median over the functions).` +
          (errors.length ? ` **Import errors: ${errors.join('; ')}**` : ''),
        '',
        'Read it as: gzip size is what Lambda fetches and unpacks on a cold start (the map ships beside it and is read only when an error is logged), import time the module load inside it; lower is better. Past the built-ins, most of an import is V8 compiling the bundle, so it follows the bundle\'s size (a CPU profile of keys\' import on this machine when the S3 client went: compiling the bundle about 16 ms, the built-ins about 10 ms, zod setting up its classes about 3.5 ms, the rest a few ms each); bytes are what the bundle\'s own code can still give up.',
      ].join('\n');
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  },
};
