// Every function bundle, built through the real CDK path as `cdk deploy` builds it, carries only
// the AWS clients its manifest needs grant (the stack passes the needs to esbuild as build flags,
// lib/bundling.ts, and the composition root's branches for the other adapters are dropped), never
// the SDK's credential chain, and an API function's bundle stays within its gzip budget. Sizes are
// deterministic; import times are measured by bench/benchmarks/bundles.ts, not asserted here.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionNamed, functions } from '../../functions/manifest';
import { AppStack } from '../../lib/app-stack';
import { adapterFlags } from '../../lib/bundling';
import type { FunctionDef } from '../../shared/platform';

const outdir = mkdtempSync(join(tmpdir(), 'postbox-cdk-bundles-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The namespace each SDK client registers its errors under: in its bundle, minified or not, whenever the client is. */
const CLIENTS = {
  sqs: '"com.amazonaws.sqs"',
  ses: '"com.amazonaws.sesv2"',
  s3: '"com.amazonaws.s3"',
  scheduler: '"com.amazonaws.scheduler"',
  secretsManager: '"com.amazonaws.secretsmanager"',
} as const;

/** What the SDK's credential chain beyond the environment carries (web identity, process, container credentials, SSO). */
const CREDENTIAL_CHAIN = ['AWS_WEB_IDENTITY_TOKEN_FILE', 'credential_process', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'sso_start_url'];

/** Issue 11's budget for the functions behind the API: 150 KB of gzip. */
const API_GZIP_BUDGET = 150_000;
/**
 * API functions with the S3 client, which with zod and the DynamoDB client does not fit in 150 KB
 * (bench/results.md, "Lambda bundles"): held near their size when this was written (160.7, 154.2
 * and 151.9 KB, plus room for ordinary changes), so the SDK cannot quietly grow back into them.
 */
const OVER_BUDGET: Record<string, number> = { send: 163_000, domains: 156_500, bimi: 154_000 };

const isApi = (def: FunctionDef): boolean => (def.http?.length ?? 0) > 0;
const bundles = new Map<string, string>();

beforeAll(() => {
  // Prepare: one stack with every function, bundled.
  const app = new App({ outdir });
  new AppStack(app, 'Postbox-bundles', { stage: 'test' });
  // Act
  const assembly = app.synth();
  const template = JSON.parse(readFileSync(join(assembly.directory, 'Postbox-bundles.template.json'), 'utf8')) as {
    Resources: Record<string, { Type: string; Properties: { Description?: string; Code?: { S3Key?: string } } }>;
  };
  for (const resource of Object.values(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function' || !resource.Properties.Description?.startsWith('Postbox ')) continue;
    const hash = resource.Properties.Code!.S3Key!.replace(/\.zip$/, '');
    bundles.set(resource.Properties.Description.slice('Postbox '.length), readFileSync(join(assembly.directory, `asset.${hash}`, 'index.mjs'), 'utf8'));
  }
  expect(readdirSync(assembly.directory).filter((entry) => entry.startsWith('asset.'))).toHaveLength(functions.length);
}, 240_000);

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

  it.each(functions.map((def) => [def.name, def] as const))('%s carries exactly the SDK clients its needs grant', (name, def) => {
    const bundle = bundles.get(name)!;
    const flags = adapterFlags(def.needs);
    const carries = (marker: string): boolean => bundle.includes(marker);
    expect({
      sqs: carries(CLIENTS.sqs),
      ses: carries(CLIENTS.ses),
      s3: carries(CLIENTS.s3),
      scheduler: carries(CLIENTS.scheduler),
      secretsManager: carries(CLIENTS.secretsManager),
    }).toEqual({
      sqs: flags.POSTBOX_WITH_SQS === 'true',
      ses: flags.POSTBOX_WITH_SES === 'true',
      s3: flags.POSTBOX_WITH_S3 === 'true',
      // The scheduler flag is on for functions that schedule; the client comes with it.
      scheduler: flags.POSTBOX_WITH_SCHEDULER === 'true',
      secretsManager: flags.POSTBOX_WITH_SECRETS_MANAGER === 'true',
    });
  });

  it.each(functions.map((def) => [def.name] as const))('%s takes its credentials from the Lambda environment, without the SDK credential chain', (name) => {
    const bundle = bundles.get(name)!;
    expect(CREDENTIAL_CHAIN.filter((marker) => bundle.includes(marker))).toEqual([]);
  });

  it.each(functions.filter(isApi).map((def) => [def.name] as const))('%s, behind the API, stays within its gzip budget', (name) => {
    const gzip = gzipSync(bundles.get(name)!).length;
    expect(gzip).toBeLessThanOrEqual(OVER_BUDGET[name] ?? API_GZIP_BUDGET);
  });

  it('holds no exception to the budget that is no longer needed', () => {
    const fitting = Object.keys(OVER_BUDGET).filter((name) => gzipSync(bundles.get(name)!).length <= API_GZIP_BUDGET);
    expect(fitting).toEqual([]);
  });
});
