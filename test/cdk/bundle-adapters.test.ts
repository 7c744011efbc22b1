// A function bundle carries only the AWS adapters its manifest needs grant: the stack passes the
// needs to esbuild as build flags (lib/bundling.ts) and the composition root's branches for the
// other adapters are dropped. Built through the real CDK path, as `cdk deploy` builds them.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { functionNamed } from '../../functions/manifest';
import { AppStack } from '../../lib/app-stack';
import { adapterFlags } from '../../lib/bundling';

const outdir = mkdtempSync(join(tmpdir(), 'postbox-cdk-adapters-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** Strings each SDK client carries in any build, minified or not (its service's wire names). */
const MARKERS = { sqs: 'AmazonSQS', ses: 'SimpleEmailService', s3: 's3.amazonaws' } as const;

function bundleOf(name: string): string {
  const app = new App({ outdir: join(outdir, name) });
  new AppStack(app, `Postbox-${name}`, { stage: 'test', functions: [functionNamed(name)] });
  const assembly = app.synth();
  const [asset] = readdirSync(assembly.directory).filter((entry) => entry.startsWith('asset.'));
  return readFileSync(join(assembly.directory, asset!, 'index.mjs'), 'utf8');
}

describe('function bundles', () => {
  it('derive their build flags from the manifest needs', () => {
    expect(adapterFlags(functionNamed('keys').needs)).toEqual({
      POSTBOX_WITH_SQS: 'false',
      POSTBOX_WITH_SES: 'false',
      POSTBOX_WITH_SCHEDULER: 'false',
      POSTBOX_WITH_S3: 'false',
      POSTBOX_WITH_SECRETS_MANAGER: 'true',
    });
    expect(adapterFlags(functionNamed('domains').needs)).toMatchObject({ POSTBOX_WITH_SES: 'true', POSTBOX_WITH_S3: 'true', POSTBOX_WITH_SQS: 'false' });
  });

  it('leave out the SDK clients of adapters a function may not use, and keep the ones it may', () => {
    // Prepare: keys uses the table and a secret only; send enqueues and schedules.
    // Act
    const keys = bundleOf('keys');
    const send = bundleOf('send');
    // Assess
    expect(keys).not.toContain(MARKERS.sqs);
    expect(keys).not.toContain(MARKERS.ses);
    expect(keys).not.toContain(MARKERS.s3);
    expect(send).toContain(MARKERS.sqs);
    expect(send).not.toContain(MARKERS.ses);
    expect(keys.length).toBeLessThan(send.length);
  }, 120_000);
});
