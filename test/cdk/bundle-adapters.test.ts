// Every function bundle, built through the real CDK path as `cdk deploy` builds it, carries only
// the AWS clients its manifest needs grant (the stack passes the needs to esbuild as build flags,
// lib/bundling.ts, and the composition root's branches for the other adapters are dropped), never
// the SDK's credential chain or the SDK's event-stream support (the S3 client and its presigner
// only where the `bucket` need grants the bucket), and every API
// function's bundle stays within its gzip budget. Sizes are deterministic; import times are
// measured by bench/benchmarks/bundles.ts, not asserted here.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionNamed, functions } from '../../functions/manifest';
import { AppStack } from '../../lib/app-stack';
import { adapterFlags, NO_EVENT_STREAMS, PREBUILT_BUNDLES_CONTEXT, prebuildBundles } from '../../lib/bundling';
import type { FunctionDef } from '../../shared/platform';

const outdir = mkdtempSync(join(tmpdir(), 'postbox-cdk-bundles-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The namespace each SDK client registers its errors under: in its bundle, minified or not, whenever the client is. */
const CLIENTS = {
  sqs: '"com.amazonaws.sqs"',
  ses: '"com.amazonaws.sesv2"',
  scheduler: '"com.amazonaws.scheduler"',
  secretsManager: '"com.amazonaws.secretsmanager"',
} as const;

/** Stripe's library, by its API host: only in the bundle of the function with the `billing` need. */
const STRIPE = 'api.stripe.com';

/** The S3 client, and our S3 adapter by the words of its one plain error: both only where the bucket is granted. */
const S3_CLIENT = '"com.amazonaws.s3"';
const S3_ADAPTER = 'no bucket is configured for this function';

/** The SDK's event-stream codec (an error message of its own), which the build replaces by a plain error. */
const EVENT_STREAM_CODEC = 'Provided message too short to accommodate event stream message overhead';

/** What the SDK's credential chain beyond the environment carries (web identity, process, container credentials, SSO). */
const CREDENTIAL_CHAIN = ['AWS_WEB_IDENTITY_TOKEN_FILE', 'credential_process', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'sso_start_url'];

/** Issue 11's budget for the functions behind the API: 150 KB of gzip, for every one of them but those below. */
const API_GZIP_BUDGET = 150_000;

/**
 * template-render shows a template as mailed, so it carries the CSS inliner and the HTML-to-text
 * converter issue 13 asks for (juice and html-to-text, ~120 KB gzip with their parser and entity
 * tables, deduplicated by package.json's overrides); it is off the send path and rarely cold, and
 * its budget is stated here rather than its libraries left out (docs/api-decisions.md).
 */
const GZIP_BUDGETS: Record<string, number> = {
  'template-render': 250_000,
  // billing carries Stripe's own library (~35 KB gzip; it builds every resource class as the
  // client is made, so nothing of it can be left out), as issue 18 asks; only this bundle has it.
  billing: API_GZIP_BUDGET + 25_000,
  // docs serves the OpenAPI document from its bundle: the API budget is for its code, and the
  // document, which grows with every route, comes on top at its own gzip size.
  docs: API_GZIP_BUDGET + gzipSync(JSON.stringify(JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')))).length,
  // send was within 250 bytes of the budget; signed-in sessions on every key route (issue 19: the
  // session lookup, CSRF and cookie reading in the pipeline, and the auth function's lines in the
  // manifest every bundle carries) add about 600 bytes of gzip. Raised for send alone, by 1 KB.
  // Issue 28 adds about 500 more to every bundle's pipeline and manifest: per-IP limits key an IPv6
  // client by its /64 (shared/accounts/rate-limit/client-network.ts), the audit route's manifest line, the
  // ownership status in isFullyVerified. Raised by 500 bytes more. Then the shared sender's name
  // rule and the daily cap on mail to a sign-up's own address (issue 28, in the send path itself):
  // the bundle measured 151,730 bytes. Raised by 1 KB more. And the reputation pause checked at
  // acceptance (issue 32, sending_paused from the account the pipeline holds): 152,740 bytes.
  // Raised by 1 KB more; issue 29's one-of-each-piece work is where send gets lighter again.
  // The operator's reputation levels (issue 32: REPUTATION_*, read and checked in config.ts, which
  // every bundle carries) and the pause checked at the send worker: 153,917 bytes measured, 563
  // more than before them. Then the official S3 client and presigner replaced our own signed
  // requests (issue 29, below): 153,354 → 181,186 bytes measured without the levels, so about
  // 181,750 with them. Raised to 182,500.
  // Open and click tracking (issue 32 item 2: the send's `tracking` field, the decision at
  // acceptance, three route lines in the manifest): 182,548 bytes measured with all of the above.
  // Raised to 183,500.
  send: API_GZIP_BUDGET + 33_500,
  // mail-send accepts its messages through the same acceptSends, so the reputation pause (issue
  // 32) reaches it too: 150,148 bytes measured. Raised by 1 KB. The reputation levels in config.ts
  // (issue 32): 445 bytes more. With the S3 client (below): 150,838 → 183,623 bytes measured
  // without the levels, about 184,070 with them. Raised to 184,500.
  // Tracking reaches it the same way (issue 32 item 2): 184,807 bytes measured with all of the
  // above. Raised to 185,500.
  'mail-send': API_GZIP_BUDGET + 35_500,
  // The reputation levels in config.ts and the pause stopping a started broadcast (issue 32):
  // 150,088 bytes measured, 489 more than before them. Raised by those 489 bytes.
  // broadcasts takes a broadcast's `tracking` too (issue 32 item 2): 150,791 bytes measured with
  // the levels. Raised to 151,500.
  broadcasts: API_GZIP_BUDGET + 1_500,
  // Issue 29 put the official S3 client and its presigner (@aws-sdk/client-s3,
  // @aws-sdk/s3-request-presigner) in place of our own SigV4 requests: 28–34 KB of gzip (its XML
  // protocol, endpoint rules, checksums, S3 middleware) in each bundle whose manifest grants the
  // bucket, and in no other. Each such API function's budget is what was measured plus about 1 KB:
  // domains 136,642 → 164,186; bimi 124,813 → 158,448; inbound 121,237 → 154,800;
  // mail 137,857 → 171,223; uploads 131,403 → 164,096.
  // Then the domains' open_tracking and click_tracking (issue 32 item 2): 165,096 measured. Raised to 166,000.
  domains: API_GZIP_BUDGET + 16_000,
  bimi: API_GZIP_BUDGET + 9_500,
  inbound: API_GZIP_BUDGET + 6_000,
  mail: API_GZIP_BUDGET + 22_500,
  // Contact import in batches (issue 31 item 4: batch reads and writes, the per-chunk count mark)
  // reaches uploads through the import it starts: 172,800 bytes measured with the logger. Raised by 1 KB.
  uploads: API_GZIP_BUDGET + 16_000,
  // auth carries the list of common and breached passwords new passwords are checked against
  // (issue 19): data, on top of the API budget at its own gzip size, like docs' document.
  auth: API_GZIP_BUDGET + gzipSync(JSON.stringify(JSON.parse(readFileSync(new URL('../../shared/auth/common-passwords.json', import.meta.url), 'utf8')))).length,
};

/**
 * Issue 29 put Powertools Logger (@aws-lambda-powertools/logger, the structured logger of the
 * stack's ecosystem) behind the Logger port in every bundle: send measured 182,548 → 189,702 bytes
 * (7,154 more), the others 6.2–7.2 KB more. Every budget above takes it on top, once.
 */
const POWERTOOLS_LOGGER_GZIP = 7_500;

const isApi = (def: FunctionDef): boolean => (def.http?.length ?? 0) > 0;
const bundles = new Map<string, string>();

beforeAll(async () => {
  // Prepare: one stack with every function, bundled. The bundles are built side by side first
  // (lib/bundling.ts, prebuildBundles), and the stack's local bundling takes each one as it is: the
  // same bundle CDK would build one function at a time (test/rehearsal/assembly.test.ts).
  await prebuildBundles(functions, fileURLToPath(new URL('../..', import.meta.url)), outdir);
  const app = new App({ outdir, context: { [PREBUILT_BUNDLES_CONTEXT]: outdir } });
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
}, 480_000);

describe('function bundles', () => {
  it('derive their build flags from the manifest needs', () => {
    expect(adapterFlags(functionNamed('keys').needs)).toEqual({
      POSTBOX_WITH_SQS: 'false',
      POSTBOX_WITH_SES: 'false',
      POSTBOX_WITH_SCHEDULER: 'false',
      POSTBOX_WITH_S3: 'false',
      POSTBOX_WITH_SECRETS_MANAGER: 'true',
      POSTBOX_WITH_STRIPE: 'false',
      POSTBOX_WITH_DLQ: 'false',
    });
    expect(adapterFlags(functionNamed('admin').needs)).toMatchObject({ POSTBOX_WITH_DLQ: 'true', POSTBOX_WITH_SQS: 'false' });
    expect(adapterFlags(functionNamed('billing').needs)).toMatchObject({ POSTBOX_WITH_STRIPE: 'true', POSTBOX_WITH_SECRETS_MANAGER: 'true', POSTBOX_WITH_SQS: 'false' });
    expect(adapterFlags(functionNamed('domains').needs)).toMatchObject({ POSTBOX_WITH_SES: 'true', POSTBOX_WITH_S3: 'true', POSTBOX_WITH_SQS: 'false' });
  });

  it.each(functions.map((def) => [def.name, def] as const))('%s carries exactly the SDK clients (and Stripe) its needs grant', (name, def) => {
    const bundle = bundles.get(name)!;
    const flags = adapterFlags(def.needs);
    const carries = (marker: string): boolean => bundle.includes(marker);
    expect({
      sqs: carries(CLIENTS.sqs),
      ses: carries(CLIENTS.ses),
      s3Client: carries(S3_CLIENT),
      s3Adapter: carries(S3_ADAPTER),
      scheduler: carries(CLIENTS.scheduler),
      secretsManager: carries(CLIENTS.secretsManager),
      stripe: carries(STRIPE),
    }).toEqual({
      // The SQS client comes with the queue port (sends) or the DLQ port (the staff redrive).
      sqs: flags.POSTBOX_WITH_SQS === 'true' || flags.POSTBOX_WITH_DLQ === 'true',
      ses: flags.POSTBOX_WITH_SES === 'true',
      s3Client: flags.POSTBOX_WITH_S3 === 'true',
      s3Adapter: flags.POSTBOX_WITH_S3 === 'true',
      // The scheduler flag is on for functions that schedule; the client comes with it.
      scheduler: flags.POSTBOX_WITH_SCHEDULER === 'true',
      secretsManager: flags.POSTBOX_WITH_SECRETS_MANAGER === 'true',
      stripe: flags.POSTBOX_WITH_STRIPE === 'true',
    });
  });

  it.each(functions.map((def) => [def.name] as const))('%s takes its credentials from the Lambda environment, without the SDK credential chain', (name) => {
    const bundle = bundles.get(name)!;
    expect(CREDENTIAL_CHAIN.filter((marker) => bundle.includes(marker))).toEqual([]);
  });

  it.each(functions.map((def) => [def.name, def] as const))('%s carries no event-stream support of the SDK', (name, def) => {
    const bundle = bundles.get(name)!;
    expect(bundle.includes(EVENT_STREAM_CODEC)).toBe(false);
    // Any function with an SDK client (all but the catch-all) has the rewritten import in its place.
    expect(bundle.includes(NO_EVENT_STREAMS)).toBe(Object.keys(def.needs).length > 0);
  });

  it.each(functions.filter(isApi).map((def) => [def.name] as const))('%s, behind the API, stays within its gzip budget', (name) => {
    expect(gzipSync(bundles.get(name)!).length).toBeLessThanOrEqual((GZIP_BUDGETS[name] ?? API_GZIP_BUDGET) + POWERTOOLS_LOGGER_GZIP);
  });
});
