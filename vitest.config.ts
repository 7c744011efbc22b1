import { defineConfig } from 'vitest/config';
import SlowFirst from './test/sequencer';

/**
 * The folders whose files share a process, one after another, without a fresh module graph each
 * (`isolate: false`): their tests run in-process against the embedded store and build their own
 * containers, so they need none, and importing the SDK, zod and aws-cdk-lib once per worker
 * instead of once per file took the unit, handler, CDK and adapter files' CPU down by a third and
 * their time on a busy 2-core machine to under half (issue 29). The e2e and rehearsal files start
 * processes, servers and environment of their own and keep a process each.
 */
const SHARED = ['test/unit/**/*.test.ts', 'test/functions/**/*.test.ts', 'test/cdk/**/*.test.ts', 'test/adapters/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one fewer worker than cores: one file at a time on this 2-core machine,
    // where the slow files (the e2e crash and burst runs) mostly wait on a runtime process of their
    // own. Three files at a time took the whole suite from 1,195 s to 699 s here (issue 29).
    maxWorkers: 3,
    // The known-slow files start first, so none of them holds the suite's end (test/sequencer.ts).
    sequence: { sequencer: SlowFirst },
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      { extends: true, test: { name: 'in-process', include: SHARED, isolate: false } },
      { extends: true, test: { name: 'own-process', include: ['test/**/*.test.ts'], exclude: [...SHARED, '**/node_modules/**'] } },
    ],
  },
});
