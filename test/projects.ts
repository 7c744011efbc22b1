// Which test files share a process and which get one each (vitest.config.ts's two projects).
// test/unit/suite-projects.test.ts holds that every test file is in one of them.

/**
 * The folders whose files share a process, one after another, without a fresh module graph each
 * (`isolate: false`): their tests run in-process against the embedded store and build their own
 * containers, so they need none, and importing the SDK, zod and aws-cdk-lib once per worker
 * instead of once per file took the unit, handler, CDK and adapter files' CPU down by a third and
 * their time on a busy 2-core machine to under half (issue 29).
 */
export const SHARED = ['test/unit/**/*.test.ts', 'test/functions/**/*.test.ts', 'test/cdk/**/*.test.ts', 'test/adapters/**/*.test.ts'];

/** The e2e and rehearsal files start processes, servers and environment of their own and keep a process each. */
export const SEPARATE = ['test/e2e/**/*.test.ts', 'test/rehearsal/**/*.test.ts'];

/**
 * Files of the shared folders that need a process of their own: a Lambda cold start (the process's
 * first container), and a test that patches LevelDB's prototypes to count open iterators (every
 * store in its process would be counted, and patched).
 */
export const OWN_PROCESS = ['test/unit/config-reputation.test.ts', 'test/adapters/level-iterators.test.ts', 'test/adapters/dynalite-expressions.test.ts'];
