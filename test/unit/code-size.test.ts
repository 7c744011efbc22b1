// Issue 29, held: no production file over 400 lines and no function over 80, generated code aside
// (client/src/schema.d.ts, from the OpenAPI document), so a reader takes a piece in at once (item 5);
// and every key condition inside the storage layer (item 2): shared/db/ and the repositories.
import ts from 'typescript';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const FOLDERS = ['shared', 'functions', 'local', 'lib', 'bin', 'rehearsal', 'web', 'client'];
const GENERATED = new Set(['client/src/schema.d.ts']);
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : sources(path);
    return /\.(ts|mjs)$/.test(entry.name) && !GENERATED.has(path) ? [path] : [];
  });
}

const files = FOLDERS.flatMap(sources);

/** Functions of more than MAX_FUNCTION_LINES lines in `file`, as `file:line (lines)`. */
function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const lineOf = (pos: number) => source.getLineAndCharacterOfPosition(pos).line;
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart()) + 1;
      if (lines > MAX_FUNCTION_LINES) found.push(`${file}:${lineOf(node.getStart()) + 1} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the size of the pieces', () => {
  it('reads the production tree', () => {
    expect(files.length).toBeGreaterThan(300);
  });

  it(`has no file over ${MAX_FILE_LINES} lines`, () => {
    const long = files.map((file) => ({ file: relative('.', file), lines: readFileSync(join(root, file), 'utf8').split('\n').length - 1 })).filter((f) => f.lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(files.flatMap(longFunctions)).toEqual([]);
  });
});

describe('the storage layer', () => {
  it('holds every key condition: only shared/db/ and repositories build one', () => {
    const outside = files.filter((file) => file.startsWith('shared/') || file.startsWith('functions/'))
      .filter((file) => !file.startsWith('shared/db/') && !/repository[^/]*\.ts$/.test(file))
      .filter((file) => /keyCondition|KeyConditionExpression/.test(readFileSync(join(root, file), 'utf8')));
    expect(outside).toEqual([]);
  });
});
