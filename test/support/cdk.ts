// A CDK App for assertion tests whose cloud assembly goes to a temp dir the file removes when it
// ends (without an outdir, every synth leaves a cdk.out* dir behind in the system temp folder).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll } from 'vitest';

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** An App that skips bundling (the CDK tests read templates, not bundles). */
export function testApp(): App {
  const outdir = mkdtempSync(join(tmpdir(), 'postbox-cdk-'));
  outdirs.push(outdir);
  return new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
}
