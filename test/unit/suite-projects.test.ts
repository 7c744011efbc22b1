// Every test file runs in one of vitest.config.ts's two projects: a test folder added without a
// place in test/projects.ts would silently never run.
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OWN_PROCESS, SEPARATE, SHARED } from '../projects';

const root = fileURLToPath(new URL('../../', import.meta.url));

function testFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [relative('.', path)] : [];
  });
}

/** The folder a glob of the form test/<folder>/**\/*.test.ts covers. */
const folderOf = (glob: string): string => {
  const match = /^test\/([^/*]+)\/\*\*\/\*\.test\.ts$/.exec(glob);
  if (!match) throw new Error(`not a whole-folder glob: ${glob}`);
  return match[1]!;
};

describe("the suite's projects", () => {
  it('cover every test file, each folder in one of them', () => {
    const shared = SHARED.map(folderOf);
    const separate = SEPARATE.map(folderOf);
    expect(shared.filter((f) => separate.includes(f))).toEqual([]);
    const covered = new Set([...shared, ...separate]);
    expect(testFiles('test').filter((file) => !covered.has(file.split('/')[1]!))).toEqual([]);
  });

  it('name only files that exist as needing a process of their own', () => {
    expect(OWN_PROCESS.filter((file) => !existsSync(join(root, file)))).toEqual([]);
  });
});
