// `npm run bench`: runs every benchmark in bench/benchmarks/ one after the other, each on a local
// runtime of its own, and writes their markdown sections to bench/results.md (overwritten on every
// run, and printed). `npm run bench -- broadcasts imports` runs only the named modules (file names
// in bench/benchmarks/) and replaces just their sections in bench/results.md. Loopback only; stops by itself. Absolute numbers are this machine's: each
// benchmark states its figures against the store's own speed measured in the same run.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { apiPipeline } from './benchmarks/api-pipeline';
import { broadcasts } from './benchmarks/broadcasts';
import { bundles } from './benchmarks/bundles';
import { imports } from './benchmarks/imports';
import { inbound } from './benchmarks/inbound';
import { lists } from './benchmarks/lists';
import { localLoad } from './benchmarks/local-load';
import { mail } from './benchmarks/mail';
import { sending } from './benchmarks/sending';
import { spendCaps } from './benchmarks/spend-caps';
import { templates } from './benchmarks/templates';
import { webhooks } from './benchmarks/webhooks';
import { fmt } from './lib/measure';
import { takeTargets, targetLine, targetRow, type IssueTarget } from './lib/targets';

export interface BenchContext {
  projectRoot: string;
  log(line: string): void;
}

export interface Benchmark {
  name: string;
  /** One markdown section (starting with its `## ` heading). */
  run(ctx: BenchContext): Promise<string>;
}

/** Every benchmark by its module's file name, in the order a full run takes them. */
const registry: Readonly<Record<string, Benchmark>> = {
  'api-pipeline': apiPipeline,
  sending,
  'spend-caps': spendCaps,
  templates,
  imports,
  lists,
  broadcasts,
  webhooks,
  inbound,
  mail,
  'local-load': localLoad,
  bundles,
};
const selected = process.argv.slice(2).filter((a) => a !== '--');
for (const name of selected) if (!registry[name]) throw new Error(`bench: no benchmark ${name}; one of ${Object.keys(registry).join(', ')}`);
const benchmarks: readonly Benchmark[] = selected.length > 0 ? selected.map((name) => registry[name]!) : Object.values(registry);
const WATCHDOG_MS = 900_000;

const ctx: BenchContext = {
  projectRoot: fileURLToPath(new URL('../', import.meta.url)),
  log: (line) => void process.stderr.write(`${line}\n`),
};

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'; // the SDK warns on Node 20
  const startedAt = new Date();
  const loadAtStart = loadavg();
  const sections: string[] = [];
  const targets: Array<IssueTarget & { section: string }> = [];
  for (const b of benchmarks) {
    ctx.log(`${b.name}`);
    const t0 = performance.now();
    try {
      const section = await b.run(ctx);
      sections.push(section);
      // Each target named by the `## ` section (of the module's, when it writes several) that shows its line.
      const parts = partsOf(section);
      const headingOf = (t: IssueTarget): string => titleOf(parts.find((p) => p.includes(targetLine(t))) ?? section);
      targets.push(...takeTargets().map((t) => ({ ...t, section: headingOf(t) })));
    } catch (error) {
      ctx.log(`  ${b.name} failed: ${String((error as Error)?.stack ?? error)}`);
      sections.push(`## ${b.name}\n\nThis benchmark failed: \`${String((error as Error)?.message ?? error).split('\n')[0]}\``);
    }
    ctx.log(`  ${b.name}: ${fmt((performance.now() - t0) / 1000, 1)} s`);
  }
  const cpu = cpus();
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ctx.projectRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const markdown = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (bench/run.ts, one module per benchmark in bench/benchmarks/) on ${new Date().toISOString()}; the run took ${fmt((Date.now() - startedAt.getTime()) / 1000, 1)} s. Overwritten on every run.`,
    '',
    `- Commit: ${commit} (the working tree may hold uncommitted changes)`,
    `- Machine: ${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length} logical cores, ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, ${platform()} ${release()} ${arch()}; Node ${process.version}`,
    `- Load average (1/5/15 min) at start ${loadAtStart.map((x) => fmt(x, 2)).join(' / ')}, at the end ${loadavg().map((x) => fmt(x, 2)).join(' / ')}: other work on the machine skews absolute numbers, the ratios to the store's own speed less so`,
    '- Counting: port calls (store, queue, mailer) through counting decorators on the running container; what a call costs in AWS requests, units and dollars is bench/lib/cost.ts',
    '',
    summary(targets.map(targetRow)),
    '',
    ...sections.flatMap((s) => [s, '']),
    // Arithmetic on the design, not a measurement: kept in its own file and carried over.
    readFileSync(fileURLToPath(new URL('./scale-on-paper.md', import.meta.url)), 'utf8'),
  ].join('\n');
  const file = fileURLToPath(new URL('./results.md', import.meta.url));
  if (selected.length > 0) {
    // A partial run: only its sections change in the file a full run wrote.
    let kept = readFileSync(file, 'utf8');
    // A module may write several `## ` sections; each replaces its own.
    for (const section of sections.flatMap(partsOf)) kept = replaceSection(kept, section);
    if (targets.length > 0) kept = replaceSection(kept, summary(mergedRows(kept, targets.map(targetRow), sections)), 'top');
    writeFileSync(file, kept);
    process.stdout.write(sections.join('\n\n') + '\n');
    ctx.log(`replaced ${sections.length} section(s) in ${file}`);
    return;
  }
  writeFileSync(file, markdown);
  process.stdout.write(markdown);
  ctx.log(`wrote ${file}`);
}

const SUMMARY_HEADING = '## Issue 31 in this run';

/** The text cut before each `## ` heading (what comes before the first is a part of its own). */
function partsOf(text: string): string[] {
  return text.split(/(?=^## )/m);
}

/** A part's heading without its `## `. */
function titleOf(part: string): string {
  return part.split('\n', 1)[0]!.replace(/^## /, '');
}

/** The targets of issue 31 side by side, as the benchmarks below measured them (bench/lib/targets.ts). */
function summary(rows: readonly string[]): string {
  return [
    SUMMARY_HEADING,
    '',
    "Every target of issue 31 that a benchmark below measures, with the figure it measured beside the store's own, taken from the sections named (a partial run replaces the rows of the sections it writes). Where a target is out of this design's reach, its section says why, with the arithmetic.",
    '',
    '| Item | Target | This run | | Section |',
    '|---:|---|---|---|---|',
    // By item, in the order measured within one.
    ...[...rows].sort((a, z) => Number(a.split(' | ', 1)[0]!.slice(2)) - Number(z.split(' | ', 1)[0]!.slice(2))),
  ].join('\n');
}

/** The summary's rows in `file` but those of the sections this run wrote again, then this run's rows. */
function mergedRows(file: string, rows: readonly string[], sections: readonly string[]): string[] {
  const sectionOf = (row: string): string => row.replace(/ \|$/, '').split(' | ').at(-1) ?? '';
  const rewritten = new Set(sections.flatMap(partsOf).map(titleOf));
  const part = partsOf(file).find((p) => p.startsWith(`${SUMMARY_HEADING}\n`)) ?? '';
  const kept = part.split('\n').filter((line) => /^\| \d+ \|/.test(line) && !rewritten.has(sectionOf(line)));
  return [...kept, ...rows];
}

/** The file with the section of the same `## ` heading replaced, or the section added before "Scale on paper" (or first, `top`). */
function replaceSection(file: string, section: string, where: 'top' | 'end' = 'end'): string {
  const heading = section.split('\n', 1)[0]!;
  const parts = partsOf(file);
  const at = parts.findIndex((p) => p.split('\n', 1)[0] === heading);
  if (at >= 0) parts[at] = `${section.trimEnd()}\n\n`;
  else parts.splice(where === 'top' ? 1 : Math.max(1, parts.findIndex((p) => p.startsWith('## Scale on paper'))), 0, `${section.trimEnd()}\n\n`);
  return parts.join('');
}

setTimeout(() => {
  ctx.log(`bench: still running after ${WATCHDOG_MS / 1000} s; giving up`);
  process.exit(1);
}, WATCHDOG_MS).unref();

main().then(
  // Everything is closed; a handle still holding the loop open must not keep the run alive.
  () => setTimeout(() => process.exit(0), 2_000).unref(),
  (error: unknown) => {
    ctx.log(`bench failed: ${String((error as Error)?.stack ?? error)}`);
    process.exit(1);
  },
);
