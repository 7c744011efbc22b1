// The local runtime with INBOUND_ENABLED=false: every inbound settings route answers 404 in the
// error envelope (the spec's deployment-gated routes), after the credentials check.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';

let dataDir: string;
let runtime: RuntimeProcess;
let adminKey: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-inbound-gate-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, INBOUND_ENABLED: 'false', INBOUND_SMTP_PORT: '0' });
  adminKey = (JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { admin_key: string }).admin_key;
});
afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('INBOUND_ENABLED=false', () => {
  it.each([
    ['POST', '/v1/domains/example.com/inbound', { enabled: true }],
    ['POST', '/v1/inbound/routes', { domain: 'example.com', match_prefix: '', destination_type: 'email', forward_address: 'a@example.org' }],
    ['GET', '/v1/inbound/routes', undefined],
    ['GET', '/v1/inbound/routes/inr_01ZZZZZZZZZZZZZZZZZZZZZZZZ', undefined],
    ['PUT', '/v1/inbound/routes/inr_01ZZZZZZZZZZZZZZZZZZZZZZZZ', { active: false }],
    ['DELETE', '/v1/inbound/routes/inr_01ZZZZZZZZZZZZZZZZZZZZZZZZ', undefined],
    ['POST', '/v1/inbound/routes/inr_01ZZZZZZZZZZZZZZZZZZZZZZZZ/rotate-secret', undefined],
  ])('%s %s answers 404', async (method, path, body) => {
    const res = await api(runtime.url, method, path, adminKey, body);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String), status: 404 } });
    expect((await api(runtime.url, method, path, undefined, body)).status).toBe(401);
  });
});
