// The rehearsal's synth bundles the functions side by side before the synth, and the stack's local
// bundling copies each prebuilt bundle into the assembly (rehearsal/assembly.ts). What it rehearses
// must be what `cdk deploy` would publish: the same template, pointing at the same assets, with
// the same bundle in each. One function (the smallest, the $default fallback) is enough to compare
// the two ways; the flows rehearse the assembly made the quick way.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { functions as manifest } from '../../functions/manifest';
import { AppStack } from '../../lib/app-stack';
import { BUNDLE_FILE } from '../../lib/bundling';
import { synthesize } from '../../rehearsal/assembly';

const dir = mkdtempSync(join(tmpdir(), 'postbox-rehearsal-assembly-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fallback = manifest.filter((def) => def.defaultRoute);

/** The asset directories of an assembly, by name (asset.<hash of the content>). */
const assetDirectories = (directory: string): string[] => readdirSync(directory).filter((name) => name.startsWith('asset.')).sort();

describe('the rehearsal’s assembly', () => {
  it('is the one CDK synthesizes with its own local bundling: the same template, the same assets, the same bundle', async () => {
    // Prepare: the stack synthesized as `cdk synth` does it, each bundle built by the stack's local bundling.
    const app = new App({ outdir: join(dir, 'cdk'), builtinCloudFormationValidation: false });
    new AppStack(app, 'Postbox-rehearsal', { stage: 'rehearsal', functions: fallback });
    const cdk = app.synth();

    // Act
    const rehearsed = await synthesize({ outdir: join(dir, 'rehearsal'), props: { functions: fallback } });

    // Assert
    const cdkTemplate = JSON.parse(readFileSync(join(cdk.directory, 'Postbox-rehearsal.template.json'), 'utf8')) as unknown;
    expect(rehearsed.template).toEqual(cdkTemplate);
    const assets = assetDirectories(cdk.directory);
    expect(assets).toHaveLength(1);
    expect(assetDirectories(rehearsed.directory)).toEqual(assets);
    expect([...rehearsed.assetPaths.values()]).toContain(join(rehearsed.directory, assets[0]!));
    expect(readdirSync(rehearsed.directory).filter((name) => name.startsWith('prebuilt-'))).toEqual([]);
    expect(readFileSync(join(rehearsed.directory, assets[0]!, BUNDLE_FILE), 'utf8')).toBe(readFileSync(join(cdk.directory, assets[0]!, BUNDLE_FILE), 'utf8'));
  });
});
