// The order test files start in. On a fresh clone vitest knows no file's duration (its results
// cache is empty), so it starts the largest files first, and the slowest ones (a fuzz run, the
// e2e crash and burst runs, the rehearsal) may start last and hold the whole suite's end: 497 s
// on the 2-core CI machine where the files' own times summed to 981 s over 3 workers. Starting
// the known-slow files first brings the end near a third of that sum. With a cache, vitest's own
// order (failed first, then longest) goes on as before for every file not named here.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Slowest first, measured on the CI machine (seconds, issue 29's last runs): their start order. */
export const SLOW_FILES = [
  'test/functions/fuzz.test.ts', // 77
  'test/e2e/bursts.test.ts', // 68
  'test/e2e/crash.test.ts', // 55
  'test/e2e/openapi-contract.test.ts', // 50
  'test/rehearsal/flows.test.ts', // 44
  'test/e2e/console-page.test.ts', // 23
  'test/e2e/crash-import.test.ts', // 22
  'test/e2e/crash-outcomes.test.ts', // 21
  'test/e2e/crash-webhooks.test.ts', // 20
  'test/e2e/local-runtime.test.ts', // 19
  'test/functions/broadcasts-audience.test.ts', // 18
  'test/functions/auth.test.ts', // 16
  'test/e2e/inbound-crash.test.ts', // 15
];

/**
 * After the named ones, the files that keep a process of their own (test/projects.ts: the e2e and
 * rehearsal files, each seconds long, mostly waiting on a runtime process), then the many short
 * in-process files, which fill the workers evenly to the end.
 */
const OWN_PROCESS_FOLDERS = ['/test/e2e/', '/test/rehearsal/'];

/** Where a file starts: the named slow files in their order, then the e2e and rehearsal files, then the rest. */
export function startRank(moduleId: string): number {
  const at = SLOW_FILES.findIndex((name) => moduleId.endsWith(name));
  if (at >= 0) return at;
  return OWN_PROCESS_FOLDERS.some((folder) => moduleId.includes(folder)) ? SLOW_FILES.length : SLOW_FILES.length + 1;
}

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => startRank(spec.moduleId);
    return sorted.map((spec, i) => ({ spec, i })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i).map(({ spec }) => spec);
  }
}
