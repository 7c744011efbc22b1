// The rewrites lib/bundling.ts applies to the pinned SDK as it bundles it change no value the code
// reads (the one that drops event-stream support leaves a plain error where no bundled client goes),
// and still find what they rewrite: an SDK update that changes the generated code, or a client
// that streams, shows up here, not as bundles quietly growing back or failing in AWS.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { clientPackageVersion, dropEventStreamMarshaller, dropEventStreams, inlineSchemaKeys, NO_EVENT_STREAMS, sdkTreeShaking } from '../../lib/bundling';

const require = createRequire(import.meta.url);
const outdir = mkdtempSync(join(tmpdir(), 'postbox-sdk-rewrites-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The SDK clients the bundles carry (shared/runtime/container.ts). */
const CLIENTS = ['client-dynamodb', 'client-sesv2', 'client-sqs', 'client-scheduler', 'client-secrets-manager', 'client-s3'] as const;
const packageDir = (name: string): string => dirname(require.resolve(`@aws-sdk/${name}/package.json`));
const schemaModule = (client: string): string => join(packageDir(client), 'dist-es', 'schemas', 'schemas_0.js');

/** Bundles one module on its own (rewritten or as published), imports it and returns its exports. */
async function load(entry: string, rewritten: boolean): Promise<Record<string, unknown>> {
  const outfile = join(outdir, `${Math.random().toString(36).slice(2)}.mjs`);
  await build({ entryPoints: [entry], outfile, bundle: true, format: 'esm', platform: 'node', logLevel: 'silent', plugins: rewritten ? [sdkTreeShaking] : [] });
  return (await import(pathToFileURL(outfile).href)) as Record<string, unknown>;
}

/** Every export as data: functions (schema thunks, error classes) by their source. */
const asData = (exports: Record<string, unknown>): string =>
  JSON.stringify(exports, (_key, value: unknown) => (typeof value === 'function' ? `function ${String(value)}` : value));

describe('the SDK rewrites of the Lambda bundles', () => {
  it.each(CLIENTS)('write the computed keys of the %s schemas as strings and leave every schema equal', async (client) => {
    // Prepare
    const source = readFileSync(schemaModule(client), 'utf8');
    // Act
    const { inlined } = inlineSchemaKeys(source);
    const [published, rewritten] = await Promise.all([load(schemaModule(client), false), load(schemaModule(client), true)]);
    // Assess
    expect(inlined).toBeGreaterThan(0);
    expect(Object.keys(rewritten).sort()).toEqual(Object.keys(published).sort());
    expect(asData(rewritten)).toBe(asData(published));
  });

  it('leaves computed keys alone when they name no string constant of the module', () => {
    const source = 'const _a = "x";\nlet _b = "y";\nexport var A$ = [3, { [_a]: 1, [_b]: 2, [_c]: 3 }];';
    expect(inlineSchemaKeys(source)).toEqual({ source: 'const _a = "x";\nlet _b = "y";\nexport var A$ = [3, { "x": 1, [_b]: 2, [_c]: 3 }];', inlined: 1 });
  });

  const httpProtocol = (): string => join(dirname(require.resolve('@smithy/core/package.json')), 'dist-es', 'submodules', 'protocols', 'HttpProtocol.js');

  it('find the one dynamic import of event-stream support in @smithy/core and put a plain error in its place', () => {
    const { source, rewritten } = dropEventStreams(readFileSync(httpProtocol(), 'utf8'));
    expect(rewritten).toBe(true);
    expect(source).not.toContain('import(');
    expect(source).not.toContain('@smithy/core/event-streams');
    expect(source).toContain(JSON.stringify(NO_EVENT_STREAMS));
  });

  it('leave an operation that would stream events failing with that error', async () => {
    // Prepare: the protocol module bundled as the functions bundle it.
    const { HttpProtocol } = (await load(httpProtocol(), true)) as { HttpProtocol: { prototype: { loadEventStreamCapability(): Promise<unknown> } } };
    // Act, Assess
    await expect(HttpProtocol.prototype.loadEventStreamCapability.call({})).rejects.toThrow(NO_EVENT_STREAMS);
  });

  it.each(CLIENTS)('can drop event streams because no operation of %s the functions call streams events', (client) => {
    // An event stream is a union (schema kind 4) with the `streaming` trait; a streamed blob (S3's
    // object bodies) is a streaming blob, which needs no event-stream support.
    const source = readFileSync(schemaModule(client), 'utf8');
    const eventStreams = [...source.matchAll(/export var (\w+)\$ = \[4, n0, \w+,\s*\{ \[_st\]: 1 \}/g)].map((m) => m[1]);
    // S3's one is SelectObjectContent's answer, an operation shared/adapters/aws/s3-object-store.ts never sends.
    expect(eventStreams).toEqual(client === 'client-s3' ? ['SelectObjectContentEventStream'] : []);
  });

  it("find the S3 client's event-stream marshaller import and leave a marshaller that fails with that error", async () => {
    // Prepare
    const runtimeConfig = join(packageDir('client-s3'), 'dist-es', 'runtimeConfig.js');
    const { source, rewritten } = dropEventStreamMarshaller(readFileSync(runtimeConfig, 'utf8'));
    expect(rewritten).toBe(true);
    expect(source).not.toContain('@smithy/core/event-streams');
    // Act: the runtime config bundled as the functions bundle it
    const { getRuntimeConfig } = (await load(runtimeConfig, true)) as { getRuntimeConfig: (c: object) => { eventStreamSerdeProvider: (c: object) => { serialize(): unknown } } };
    const marshaller = getRuntimeConfig({}).eventStreamSerdeProvider({});
    // Assess
    expect(() => marshaller.serialize()).toThrow(NO_EVENT_STREAMS);
  });

  it.each(CLIENTS)('keep the version of %s, the one field of its package.json its code reads', (client) => {
    const packageJson = readFileSync(join(packageDir(client), 'package.json'), 'utf8');
    const runtimeConfig = readFileSync(join(packageDir(client), 'dist-es', 'runtimeConfig.js'), 'utf8');
    expect(JSON.parse(clientPackageVersion(packageJson))).toEqual({ version: (JSON.parse(packageJson) as { version: string }).version });
    expect([...new Set(runtimeConfig.match(/packageInfo\.\w+/g))]).toEqual(['packageInfo.version']);
  });
});
