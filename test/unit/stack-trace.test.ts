// Stack traces from a minified bundle name the original files and lines when they are logged,
// from the map beside the bundle, without Node's --enable-source-maps.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { lambdaBundling } from '../../lib/bundling';
import { sourceMappedStack } from '../../shared/adapters/stack-trace';

const dir = mkdtempSync(join(tmpdir(), 'postbox-stack-trace-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stackTraceModule = new URL('../../shared/adapters/stack-trace.ts', import.meta.url).pathname;

/**
 * Bundles a module that throws from line 3 of fixture.ts, as the functions are bundled, and runs it
 * in a fresh node without source maps (vitest maps stacks in its own process): the stack as V8
 * wrote it, and as the logger would log it.
 */
async function thrownInBundle(sourcemap: boolean): Promise<{ stack: string; mapped: string }> {
  const out = mkdtempSync(join(dir, 'bundle-'));
  writeFileSync(
    join(out, 'fixture.ts'),
    [`import { sourceMappedStack } from ${JSON.stringify(stackTraceModule)};`, 'export function fail(): never {', "  throw new Error('boom');", '}', 'export const mapped = sourceMappedStack;', ''].join('\n'),
  );
  const outfile = join(out, 'dist', 'index.mjs');
  await build({ entryPoints: [join(out, 'fixture.ts')], outfile, bundle: true, format: 'esm', platform: 'node', minify: true, sourcemap: sourcemap ? 'linked' : false, sourcesContent: lambdaBundling.sourcesContent, logLevel: 'silent' });
  const probe = `const { fail, mapped } = await import(${JSON.stringify(pathToFileURL(outfile).href)}); try { fail(); } catch (e) { process.stdout.write(JSON.stringify({ stack: e.stack, mapped: mapped(e.stack) })); }`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { env: { PATH: process.env.PATH } }).toString()) as { stack: string; mapped: string };
}

describe('source-mapped stack traces', () => {
  it('name the original file, line and column of each bundle frame', async () => {
    // Act
    const { stack, mapped } = await thrownInBundle(true);
    // Assess
    expect(stack).toMatch(/dist\/index\.mjs:1:\d+/);
    expect(mapped).toMatch(/fixture\.ts:3:9\)?$/m);
    expect(mapped).not.toContain('index.mjs');
    expect(mapped.split('\n')[0]).toBe('Error: boom');
  });

  it('leave a stack alone when the bundle has no map beside it', async () => {
    const { stack, mapped } = await thrownInBundle(false);
    expect(stack).toMatch(/dist\/index\.mjs:1:\d+/);
    expect(mapped).toBe(stack);
  });

  it('leave stacks of unbundled code alone', () => {
    const stack = new Error('here').stack!;
    expect(sourceMappedStack(stack)).toBe(stack);
  });
});
