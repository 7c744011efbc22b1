// The suite's start order names files that must exist: a renamed slow file would silently start late again.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SLOW_FILES } from '../sequencer';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the slow-first start order', () => {
  it('names only test files that exist, each once', () => {
    expect(SLOW_FILES.filter((file) => !existsSync(`${root}${file}`))).toEqual([]);
    expect(new Set(SLOW_FILES).size).toBe(SLOW_FILES.length);
  });
});
