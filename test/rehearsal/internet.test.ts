// The rehearsal's internet (rehearsal/internet.mjs), alone: a function in its execution environment
// posts through the product's own guarded HTTP, guard on, to a public address the rehearsal plays,
// and the connection reaches the receiver on loopback; the guard still refuses loopback, an
// address not played is unreachable, and TLS still checks the certificate against the address asked.
import { build } from 'esbuild';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RehearsedFunction } from '../../rehearsal/lambda';
import type { HttpResult } from '../../shared/ports/http-client';
import { hasOpenssl, startPublicReceiver, type PublicReceiver } from '../support/webhook-receiver';

const dir = mkdtempSync(join(tmpdir(), 'postbox-internet-test-'));
let played: PublicReceiver;
let fn: RehearsedFunction;

beforeAll(async () => {
  // A function of its own: the product's GuardedHttp, bundled as the stack bundles (ESM, node), guard on.
  writeFileSync(
    join(dir, 'entry.ts'),
    `import { GuardedHttp } from ${JSON.stringify(resolve('shared/adapters/guarded-http.ts'))};
     export const handler = async (event: { url: string }) => new GuardedHttp({ allowPrivate: false }).post(event.url, { headers: { 'content-type': 'application/json' }, body: '{"hello":"internet"}', timeoutMs: 5000 });`,
  );
  await build({ entryPoints: [join(dir, 'entry.ts')], outfile: join(dir, 'index.mjs'), bundle: true, format: 'esm', platform: 'node', logLevel: 'silent' });
  if (!hasOpenssl) return;
  played = (await startPublicReceiver())!;
  // A second played address on the same receiver, whose certificate names only the first.
  const internet = { ...played.internet, hosts: [...played.internet.hosts, { ...played.internet.hosts[0]!, address: '93.184.216.36' }] };
  fn = new RehearsedFunction(
    { logicalId: 'Hook', name: 'hook', handler: 'index.handler', runtime: 'nodejs24.x', codeDirectory: dir, memoryMb: 128, timeoutSeconds: 10, environment: {}, roleLogicalId: 'HookRole', logGroupName: '/aws/lambda/hook' },
    { platformVariables: { AWS_REGION: 'us-east-1' }, internet },
  );
});

afterAll(async () => {
  await fn?.stop();
  await played?.receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

async function post(url: string): Promise<HttpResult> {
  const outcome = await fn.invoke({ url });
  if (!outcome.ok) throw new Error(`${outcome.error.errorType}: ${outcome.error.errorMessage}`);
  return outcome.result as HttpResult;
}

describe.skipIf(!hasOpenssl)('the functions\' internet (needs openssl)', () => {
  it('carries a POST to a played public address, over TLS with its certificate, to the receiver on loopback', async () => {
    const result = await post(`${played.url}/hook`);
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(played.receiver.requests.map((r) => [r.method, r.path, r.body.toString()])).toEqual([['POST', '/hook', '{"hello":"internet"}']]);
  });

  it('leaves the guard on: loopback and http are refused before any connection', async () => {
    const before = played.receiver.requests.length;
    expect(await post(played.receiver.url)).toMatchObject({ ok: false, error: expect.stringMatching(/^refused: .*loopback/) });
    expect(await post(`http://${played.internet.hosts[0]!.address}/hook`)).toMatchObject({ ok: false, error: 'refused: must be an https URL' });
    expect(played.receiver.requests.length).toBe(before);
  });

  it('reaches no public address it does not play, and checks the certificate against the address asked for', async () => {
    expect(await post('https://93.184.216.35/hook')).toMatchObject({ ok: false, error: expect.stringContaining('EHOSTUNREACH') });
    expect(await post('https://93.184.216.36/hook')).toMatchObject({ ok: false, error: expect.stringMatching(/^tls: ERR_TLS_CERT_ALTNAME_INVALID/) });
  });
});
