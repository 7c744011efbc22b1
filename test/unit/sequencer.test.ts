// The suite's start order names files that must exist: a renamed slow file would silently start late again.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SLOW_FILES, startRank } from '../sequencer';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the slow-first start order', () => {
  it('names only test files that exist, each once', () => {
    expect(SLOW_FILES.filter((file) => !existsSync(`${root}${file}`))).toEqual([]);
    expect(new Set(SLOW_FILES).size).toBe(SLOW_FILES.length);
  });

  it('starts the named files first in their order, then the e2e and rehearsal files, then the in-process ones', () => {
    const files = ['test/unit/a.test.ts', 'test/e2e/b.test.ts', SLOW_FILES[1]!, 'test/functions/c.test.ts', 'test/rehearsal/d.test.ts', SLOW_FILES[0]!].map((f) => `/repo/${f}`);
    const order = [...files].sort((a, b) => startRank(a) - startRank(b) || files.indexOf(a) - files.indexOf(b));
    expect(order.map((f) => f.slice('/repo/'.length))).toEqual([SLOW_FILES[0], SLOW_FILES[1], 'test/e2e/b.test.ts', 'test/rehearsal/d.test.ts', 'test/unit/a.test.ts', 'test/functions/c.test.ts']);
  });
});
