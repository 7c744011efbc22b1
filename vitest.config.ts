import { defineConfig } from 'vitest/config';
import { OWN_PROCESS, SEPARATE, SHARED } from './test/projects';
import SlowFirst from './test/sequencer';

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
    // Files that share a process and files that get one each (test/projects.ts says why).
    projects: [
      { extends: true, test: { name: 'in-process', include: SHARED, exclude: [...OWN_PROCESS, '**/node_modules/**'], isolate: false } },
      { extends: true, test: { name: 'own-process', include: [...SEPARATE, ...OWN_PROCESS] } },
    ],
  },
});
