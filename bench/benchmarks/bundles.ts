// Every manifest function bundled with the settings the stack deploys (lib/bundling.ts), and the
// rejected alternative with the AWS SDK left to the Lambda runtime: size, gzip size and the cold
// import time of each bundle in a fresh `node`.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, version as esbuildVersion } from 'esbuild';
import { functions } from '../../functions/manifest';
import { adapterFlags, lambdaBundling } from '../../lib/bundling';
import type { Benchmark } from '../run';
import { fmt, fmtInt, median } from '../lib/measure';

const IMPORT_RUNS = 5;
const variants = ['stack', 'sdk-external'] as const;
type Variant = (typeof variants)[number];

// Evaluated as an ES module in a fresh node with an empty environment: times only the import.
const PROBE = `
const t0 = performance.now();
const mod = await import(process.env.BUNDLE_URL);
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, handler: typeof mod[process.env.HANDLER] === 'function' }));
`;

function timeImport(file: string, handler: string): Promise<{ ms: number; error?: string }> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', BUNDLE_URL: pathToFileURL(file).href, HANDLER: handler, NODE_OPTIONS: '--enable-source-maps', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };
  return new Promise((resolve) =>
    execFile(process.execPath, ['--input-type=module', '-e', PROBE], { env, timeout: 30_000 }, (error, stdout, stderr) => {
      try {
        const out = JSON.parse(stdout) as { ms: number; handler: boolean };
        resolve(out.handler ? { ms: out.ms } : { ms: out.ms, error: `no export ${handler}` });
      } catch {
        resolve({ ms: Number.NaN, error: String(stderr || error?.message || 'no output').split('\n').slice(0, 2).join(' | ') });
      }
    }),
  );
}

export const bundles: Benchmark = {
  name: 'Lambda bundles',
  async run({ projectRoot, log }) {
    const outDir = mkdtempSync(join(tmpdir(), 'postbox-bench-bundles-'));
    try {
      // The sdk-external variant resolves the SDK at import time: the project's node_modules stand in for the runtime's copy.
      mkdirSync(join(outDir, 'sdk-external'), { recursive: true });
      symlinkSync(join(projectRoot, 'node_modules'), join(outDir, 'sdk-external', 'node_modules'), 'dir');
      const rows: Array<{ fn: string; variant: Variant; bytes: number; gzip: number; importMs: number; externals: string[]; errors: string[] }> = [];
      for (const fn of functions) {
        for (const variant of variants) {
          const outfile = join(outDir, variant, fn.name, 'index.mjs');
          const result = await build({
            entryPoints: [join(projectRoot, fn.entry)],
            outfile,
            absWorkingDir: projectRoot,
            bundle: true,
            metafile: true,
            logLevel: 'silent',
            platform: lambdaBundling.platform,
            target: lambdaBundling.target,
            format: lambdaBundling.format,
            mainFields: [...lambdaBundling.mainFields],
            minify: lambdaBundling.minify,
            sourcemap: lambdaBundling.sourceMap,
            banner: { js: lambdaBundling.banner },
            define: adapterFlags(fn.needs),
            external: [...lambdaBundling.externalModules, ...(variant === 'sdk-external' || !lambdaBundling.bundleAwsSdk ? ['@aws-sdk/*'] : [])],
          });
          const code = readFileSync(outfile);
          const runs = [];
          for (let i = 0; i < IMPORT_RUNS; i++) runs.push(await timeImport(outfile, fn.handler)); // one at a time: 2 cores
          const imports = Object.values(result.metafile.outputs).flatMap((o) => o.imports);
          rows.push({
            fn: fn.name,
            variant,
            bytes: code.length,
            gzip: gzipSync(code).length,
            importMs: median(runs.filter((r) => !r.error).map((r) => r.ms)),
            externals: [...new Set(imports.filter((i) => i.external && !isBuiltin(i.path)).map((i) => i.path))].sort(),
            errors: [...new Set(runs.flatMap((r) => (r.error ? [r.error] : [])))],
          });
          log(`  ${fn.name.padEnd(18)} ${variant.padEnd(12)} gzip ${fmtInt(rows.at(-1)!.gzip).padStart(8)} B, import ${fmt(rows.at(-1)!.importMs, 1)} ms`);
        }
      }
      const of = (v: Variant) => rows.filter((r) => r.variant === v);
      const kib = (b: number): string => `${fmt(b / 1024, 1)} KiB`;
      const externals = (v: Variant): string => [...new Set(of(v).flatMap((r) => r.externals))].map((e) => `\`${e}\``).join(', ') || 'nothing';
      return [
        '## Lambda bundles',
        '',
        `Each manifest function bundled with esbuild ${esbuildVersion} and lib/bundling.ts, the settings the stack turns into NodejsFunction props (target \`${lambdaBundling.target}\`, ${lambdaBundling.format}, minified, ${lambdaBundling.sourceMap ? 'linked source map' : 'no source map'}). ` +
          '**stack** is what deploys (the pinned AWS SDK clients bundled); **sdk-external** is the rejected alternative with `@aws-sdk/*` left to the Lambda runtime. ' +
          `Cold import = \`await import(bundle)\` in a fresh \`node\` with an empty environment and NODE_OPTIONS=--enable-source-maps as the stack sets it, median of ${IMPORT_RUNS} runs one at a time. Lambda runs Node.js 24 on ARM64, so times there differ.`,
        '',
        '| Function | Variant | Bytes | Gzip | Cold import ms (median) |',
        '|---|---|---:|---:|---:|',
        ...rows.map((r) => `| ${r.fn} | ${r.variant} | ${fmtInt(r.bytes)} | ${fmtInt(r.gzip)} | ${fmt(r.importMs, 1)}${r.errors.length ? ` — **${r.errors.join('; ')}**` : ''} |`),
        '',
        `Medians across the functions: **stack ${fmt(median(of('stack').map((r) => r.importMs)), 1)} ms import, ${kib(median(of('stack').map((r) => r.gzip)))} gzip; sdk-external ${fmt(median(of('sdk-external').map((r) => r.importMs)), 1)} ms import, ${kib(median(of('sdk-external').map((r) => r.gzip)))} gzip.** ` +
          `Packages left for the runtime to provide: stack ${externals('stack')}; sdk-external ${externals('sdk-external')}.`,
        '',
        'Read it as: gzip size is what Lambda fetches and unpacks on a cold start, import time the module load inside it; lower is better. The sdk-external bundles are smaller, but each import then loads the SDK file by file, which is why the stack bundles it (and so runs the SDK versions the tests ran).',
      ].join('\n');
    } finally {
      rmSync(outDir, { recursive: true, force: true });
    }
  },
};
