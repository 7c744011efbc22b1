// The embedded emulators take no credentials, and the SES emulator's /store and /clear endpoints
// hand out and wipe the mail: whatever HOST says, they listen on loopback only. Checked in the
// kernel's own table of listening sockets, so no traffic goes to any other address.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functions } from '../../functions/manifest';
import { readLocalSettings } from '../../shared/runtime/config';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { createLogger } from '../../shared/adapters/logger';

const TCP_TABLE = '/proc/net/tcp';
const LISTEN = '0A';

/** Local addresses of the IPv4 sockets listening on `port` (/proc/net/tcp holds them in hex). */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync(TCP_TABLE, 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[3] === LISTEN && f[1]?.endsWith(`:${hexPort}`))
    .map((f) => {
      const hex = f[1]!.split(':')[0]!;
      return [3, 2, 1, 0].map((i) => parseInt(hex.slice(i * 2, i * 2 + 2), 16)).join('.');
    });
}

const portOf = (url: string): number => Number(new URL(url).port);

describe.skipIf(!existsSync(TCP_TABLE))(`the local runtime started with HOST=0.0.0.0 (reads ${TCP_TABLE})`, () => {
  let dataDir: string;
  let runtime: LocalRuntime;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'postbox-loopback-'));
    const settings = readLocalSettings({ HOST: '0.0.0.0', PORT: '0', SES_PORT: '0', INBOUND_SMTP_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    runtime = await startLocalRuntime(settings, functions, { logger: createLogger('silent') });
  });
  afterAll(async () => {
    await runtime?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the API where HOST says', () => {
    expect(listeningAddresses(portOf(runtime.url))).toEqual(['0.0.0.0']);
  });

  it('keeps the SES emulator, the queue emulator and the store on 127.0.0.1 only', () => {
    for (const endpoint of [runtime.sesUrl, runtime.sqsEndpoint, runtime.dynamodbEndpoint]) {
      expect(new URL(endpoint).hostname).toBe('127.0.0.1');
      expect(listeningAddresses(portOf(endpoint))).toEqual(['127.0.0.1']);
    }
  });
});
