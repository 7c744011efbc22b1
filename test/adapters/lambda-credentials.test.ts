// The Lambda bundles' stand-in for the SDK credential chain: the environment's credentials, and a
// plain error without them; and an SDK client bundled with the alias takes its credentials from it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { lambdaBundling } from '../../lib/bundling';
import { defaultProvider, LambdaCredentialsError } from '../../shared/adapters/aws/lambda-credentials';

const projectRoot = new URL('../../', import.meta.url).pathname;
const outdir = mkdtempSync(join(tmpdir(), 'postbox-lambda-credentials-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

function lambdaEnvironment(extra: Record<string, string> = {}): void {
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIAEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret');
  vi.stubEnv('AWS_SESSION_TOKEN', 'session');
  for (const [name, value] of Object.entries(extra)) vi.stubEnv(name, value);
}

describe('Lambda credentials', () => {
  it('are the execution role credentials Lambda puts in the environment', async () => {
    // Prepare
    lambdaEnvironment({ AWS_CREDENTIAL_EXPIRATION: '2030-01-01T00:00:00Z' });
    // Act
    const credentials = await defaultProvider()();
    // Assess
    expect(credentials).toEqual({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session', expiration: new Date('2030-01-01T00:00:00Z') });
  });

  it('fail plainly when the environment has none', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', '');
    await expect(defaultProvider()()).rejects.toBeInstanceOf(LambdaCredentialsError);
  });

  it('are what an SDK client bundled as the functions are resolves, in place of the SDK chain', async () => {
    // Prepare: a client bundled with the functions' alias.
    const entry = join(outdir, 'client.mjs');
    writeFileSync(entry, "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const credentials = () => new DynamoDBClient({ region: 'us-east-1' }).config.credentials();\n");
    const outfile = join(outdir, 'bundle.mjs');
    const result = await build({ entryPoints: [entry], outfile, absWorkingDir: projectRoot, nodePaths: [join(projectRoot, 'node_modules')], bundle: true, format: 'esm', platform: 'node', metafile: true, logLevel: 'silent', alias: { ...lambdaBundling.alias } });
    lambdaEnvironment();
    // Act
    const { credentials } = (await import(pathToFileURL(outfile).href)) as { credentials: () => Promise<Record<string, unknown>> };
    // Assess
    expect(await credentials()).toMatchObject({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' });
    expect(Object.keys(result.metafile.inputs).filter((input) => input.includes('credential-provider'))).toEqual([]);
  });
});
