// One real esbuild bundle (the smallest function: the $default catch-all), to prove that local
// bundling works without Docker and emits an ESM bundle that can `require`. The other cdk tests
// skip bundling for speed; `npm run synth` bundles everything.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { functions } from '../../functions/manifest';
import { AppStack } from '../../lib/app-stack';

const outdir = mkdtempSync(join(tmpdir(), 'postbox-cdk-bundle-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('bundling', () => {
  it('bundles a manifest function locally as minified ESM with a require shim and a source map', () => {
    // Prepare
    const catchAll = functions.find((def) => def.defaultRoute)!;
    const app = new App({ outdir });
    new AppStack(app, 'Postbox-bundle', { stage: 'test', functions: [catchAll] });

    // Act
    const assembly = app.synth();

    // Assess
    const assetDirs = readdirSync(assembly.directory).filter((name) => name.startsWith('asset.'));
    expect(assetDirs).toHaveLength(1);
    const files = readdirSync(join(assembly.directory, assetDirs[0]!));
    expect(files.sort()).toEqual(['index.mjs', 'index.mjs.map']);
    const bundle = readFileSync(join(assembly.directory, assetDirs[0]!, 'index.mjs'), 'utf8');
    expect(bundle.startsWith("import { createRequire as __postboxCreateRequire } from 'node:module';")).toBe(true);
    expect(bundle).toMatch(new RegExp(`export\\s*\\{[^}]*\\bas ${catchAll.handler}\\b|export\\s*\\{[^}]*\\b${catchAll.handler}\\b`));
  }, 60_000);
});
