// The order test files start in. On a fresh clone vitest knows no file's duration (its results
// cache is empty), so it starts the largest files first, and the slowest ones (a fuzz run, the
// e2e crash and burst runs, the rehearsal) may start last and hold the whole suite's end: 497 s
// on the 2-core CI machine where the files' own times summed to 981 s over 3 workers. Starting
// the known-slow files first brings the end near a third of that sum. With a cache, vitest's own
// order (failed first, then longest) goes on as before for every file not named here.
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Slowest first, measured on the CI machine (seconds): their start order. */
export const SLOW_FILES = [
  'test/functions/fuzz.test.ts', // 107
  'test/e2e/bursts.test.ts', // 79
  'test/e2e/crash.test.ts', // 74
  'test/rehearsal/flows.test.ts', // 66
  'test/e2e/openapi-contract.test.ts', // 53
  'test/e2e/crash-outcomes.test.ts', // 43
  'test/functions/auth.test.ts', // 24
  'test/functions/mail-export.test.ts', // 23
  'test/e2e/console-page.test.ts', // 23
  'test/e2e/local-runtime.test.ts', // 20
  'test/e2e/crash-webhooks.test.ts', // 20
];

export default class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const at = SLOW_FILES.findIndex((name) => spec.moduleId.endsWith(name));
      return at < 0 ? SLOW_FILES.length : at;
    };
    return sorted.map((spec, i) => ({ spec, i })).sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i).map(({ spec }) => spec);
  }
}
