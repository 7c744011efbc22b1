// The prelude of the webhook delivery tests: an HTTP receiver on loopback for the file, and before
// each test outbound requests allowed to reach it (the SSRF guard lets loopback through only here),
// a short timeout and a receiver that answers 200 and has seen nothing; after each, the guard back on.
import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { verifySignature } from '../../client/src/signature';
import type { Internet } from '../../rehearsal/lambda';
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import { selfSignedCert, startHttpReceiver, startHttpsReceiver, type Receiver, type RecordedRequest } from './receivers';
import type { Testbed } from './testbed';

export interface LoopbackHooks {
  /** The file's receiver (started in beforeAll). */
  readonly receiver: Receiver;
  /**
   * Lets outbound requests reach loopback, or not. The webhook channel of shared/sending/messages reads the
   * config flag; webhook subscriptions and deliveries go through the container's HttpClient.
   */
  allowPrivate(allowed: boolean): void;
}

export function useLoopbackReceiver(bed: Testbed): LoopbackHooks {
  let receiver: Receiver | undefined;
  const hooks: LoopbackHooks = {
    get receiver() {
      if (!receiver) throw new Error('the receiver starts in beforeAll');
      return receiver;
    },
    allowPrivate(allowed) {
      bed.c.config.webhookAllowPrivate = allowed;
      bed.c.http = new GuardedHttp({ allowPrivate: allowed });
    },
  };
  beforeAll(async () => {
    receiver = await startHttpReceiver();
  });
  afterAll(async () => receiver?.close());
  beforeEach(() => {
    hooks.allowPrivate(true);
    bed.c.config.webhookTimeoutMs = 500;
    hooks.receiver.requests.length = 0;
    hooks.receiver.reply({ status: 200 });
  });
  afterEach(() => hooks.allowPrivate(false));
  return hooks;
}

/** Whether the openssl CLI is here: startPublicReceiver makes its certificate with it. */
export const hasOpenssl = spawnSync('openssl', ['version']).status === 0;

/** example.com's former address: public to the guard; a rehearsal plays it on loopback, nothing reaches the real one. */
export const PUBLIC_ADDRESS = '93.184.216.34';

/**
 * A webhook endpoint "on the internet" for the rehearsal (rehearsal/internet.mjs), the guard left
 * on: an HTTPS receiver on loopback whose certificate names a public address, and the `internet`
 * a rehearsal is started with, which carries the functions' connections to that address's port 443
 * to the receiver and trusts the certificate. `url` is what a subscription names (https, the public
 * address). Undefined without the openssl CLI (the certificate is made with it).
 */
export interface PublicReceiver {
  receiver: Receiver;
  url: string;
  internet: Internet;
}

export async function startPublicReceiver(address = PUBLIC_ADDRESS): Promise<PublicReceiver | undefined> {
  const identity = selfSignedCert({ ips: [address] });
  if (!identity) return undefined;
  const receiver = await startHttpsReceiver(identity);
  return {
    receiver,
    url: `https://${address}`,
    internet: { hosts: [{ address, port: 443, to: { host: receiver.host, port: receiver.port } }], ca: [identity.cert] },
  };
}

/** A request's envelope and whether it bears the secret's signature, checked with the typed client's verifySignature (the spec's scheme). */
export async function signedEnvelope(request: RecordedRequest, secret: string): Promise<{ verified: boolean; envelope: { event_id: string; event_type: string; message_id: string; occurred_at: string; payload: Record<string, unknown> } }> {
  const verified = await verifySignature({ payload: request.body, headers: request.headers, secret });
  return { verified, envelope: JSON.parse(request.body.toString('utf8')) };
}
