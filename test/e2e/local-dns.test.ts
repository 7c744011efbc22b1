// Leaving the sandbox without AWS, as the README's steps go: `npm start` with DNS_SERVERS pointing at
// a port, register a domain, `npm run dns -- --domain …` on that port, verify. Both are real
// processes; the DNS command reads the records from the running service.
import { spawn } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer } from '../support/dns-server';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { quietPort } from '../support/ports';
import { waitFor } from '../support/wait';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface DnsCommand {
  output(): string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** `npm run dns -- <args>` as its own process, with the runtime's DATA_DIR. */
function runDnsCommand(args: string[], env: Record<string, string>): DnsCommand {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/dns.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    output: () => out,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}

let dataDir: string;
let dnsPort: number;
let runtime: RuntimeProcess;
let key: string;
const commands: DnsCommand[] = [];
const dnsCommand = (args: string[]): DnsCommand => {
  const command = runDnsCommand(['--api', runtime.url, '--port', String(dnsPort), ...args], { DATA_DIR: dataDir });
  commands.push(command);
  return command;
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-dns-'));
  dnsPort = await quietPort();
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, DNS_SERVERS: `127.0.0.1:${dnsPort}` });
  key = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).admin_key;
});
afterEach(async () => {
  for (const command of commands.splice(0)) await command.stop();
});
afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run dns', () => {
  it('refuses a domain the account has not registered, saying how to register it', async () => {
    const command = dnsCommand(['--domain', 'unregistered.test']);

    const code = await command.exited;

    expect(code).toBe(2);
    expect(command.output()).toContain('register it first: POST /v1/domains {"domain":"unregistered.test"}');
  });

  it('refuses to start without --domain', async () => {
    const command = dnsCommand([]);

    expect(await command.exited).toBe(2);
    expect(command.output()).toMatch(/^usage: npm run dns -- --domain/m);
  });

  it("serves a registered domain's records, so verification passes and the account leaves the sandbox", async () => {
    // Prepare
    const before = await api(runtime.url, 'GET', '/v1/account/verification', key);
    const created = await api(runtime.url, 'POST', '/v1/domains', key, { domain: 'acme.test' });
    const unverified = await api(runtime.url, 'POST', '/v1/domains/acme.test/verify', key);

    // Act
    const command = dnsCommand(['--domain', 'acme.test']);
    await waitFor(() => /^READY /m.test(command.output()) || command.output().includes('failed'), { what: () => `the dns command to be ready:\n${command.output()}`, timeoutMs: 30_000 });
    const verified = await api(runtime.url, 'POST', '/v1/domains/acme.test/verify', key);
    const after = await api(runtime.url, 'GET', '/v1/account/verification', key);
    const domain = await api(runtime.url, 'GET', '/v1/domains/acme.test', key);

    // Assess
    expect(before.body.sandbox_mode).toBe(true);
    expect(created.status).toBe(201);
    expect(unverified.body.fully_verified).toBe(false);
    expect(command.output()).toContain(`on 127.0.0.1:${dnsPort}`);
    for (const record of created.body.dns_records as Array<{ name: string }>) expect(command.output()).toContain(record.name);
    expect(verified.status).toBe(200);
    expect(verified.body.fully_verified).toBe(true);
    expect(verified.body.results.map((r: { status: string }) => r.status)).toEqual(Array(5).fill('verified'));
    expect(domain.body).toMatchObject({ dkim_status: 'verified', spf_status: 'verified', dmarc_status: 'verified' });
    expect(after.body.sandbox_mode).toBe(false);
  });

  it('answers its own names authoritatively and forwards the rest upstream, so recipient checks still resolve', async () => {
    const upstream = await startDnsServer({ 'example.org': { mx: [{ exchange: 'mx.example.org', priority: 5 }], txt: ['hello'] }, 'gone.example.org': 'nxdomain' });
    try {
      const command = dnsCommand(['--domain', 'acme.test', '--upstream', upstream.server]);
      await waitFor(() => /^READY /m.test(command.output()), { what: () => `the dns command to be ready:\n${command.output()}`, timeoutMs: 30_000 });
      const resolver = new Resolver({ timeout: 2000, tries: 1 });
      resolver.setServers([`127.0.0.1:${dnsPort}`]);

      const mx = await resolver.resolveMx('send.acme.test');
      const missing = await resolver.resolveTxt('nothing-here.acme.test').catch((error: { code?: string }) => error.code);
      const forwarded = await resolver.resolveMx('example.org');
      const forwardedTxt = await resolver.resolveTxt('example.org');
      const gone = await resolver.resolveMx('gone.example.org').catch((error: { code?: string }) => error.code);
      const validated = await api(runtime.url, 'POST', '/v1/validate', key, { email: 'someone@example.org' });

      expect(mx).toEqual([{ exchange: 'feedback-smtp.us-east-1.amazonses.com', priority: 10 }]);
      expect(missing).toBe('ENOTFOUND');
      expect(forwarded).toEqual([{ exchange: 'mx.example.org', priority: 5 }]);
      expect(forwardedTxt).toEqual([['hello']]);
      expect(gone).toBe('ENOTFOUND');
      expect(upstream.queries.map((q) => q.name)).not.toContain('send.acme.test');
      expect(validated.status).toBe(200);
      expect(validated.body).toEqual({ email: 'someone@example.org', valid: true, reason: '' });
    } finally {
      await upstream.close();
    }
  });
});
