// `npm start` reuses its bundles (local/bundle.mjs): a build is kept while the files it was built
// from are unchanged, rebuilt after an edit, and a build is removed only once no live process
// uses it. Run on a small project of its own in a temp dir, with the real esbuild.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundle } from '../../local/bundle.mjs';

const root = mkdtempSync(join(tmpdir(), 'postbox-bundle-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'bundle-cache-test', type: 'module' }));
writeFileSync(join(root, 'a.ts'), "import { b } from './b';\nexport const a = (): number => b + 1;\n");
const setB = (value: number): void => writeFileSync(join(root, 'b.ts'), `export const b: number = ${value};\n`);

const build = () => bundle(root, 'test', { a: 'a.ts' });
const folderOf = (url: string): string => dirname(fileURLToPath(url));
const run = async (url: string): Promise<number> => ((await import(url)) as { a: () => number }).a();

describe('the bundle cache', () => {
  it('reuses a build while its sources are unchanged, and builds again after an edit', async () => {
    setB(1);
    const first = await build();
    const again = await build();
    expect(again.urls.a).toBe(first.urls.a);
    expect(await run(first.urls.a!)).toBe(2);

    setB(41);
    const edited = await build();
    expect(edited.urls.a).not.toBe(first.urls.a);
    expect(await run(edited.urls.a!)).toBe(42);
    // The first build is still in use by this process (two marks were never released): kept.
    expect(existsSync(folderOf(first.urls.a!))).toBe(true);

    first.remove();
    again.remove();
    edited.remove();
    setB(999);
    const last = await build();
    expect(await run(last.urls.a!)).toBe(1000);
    // Released and no longer current: both older builds are gone; the current one stays.
    expect(existsSync(folderOf(first.urls.a!))).toBe(false);
    expect(existsSync(folderOf(edited.urls.a!))).toBe(false);
    last.remove();
    expect(existsSync(folderOf(last.urls.a!))).toBe(true);
  });
});
