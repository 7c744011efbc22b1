// Webhook signature verification, the service's scheme (shared/webhooks/deliver.ts, the spec's
// Events part): Service-Signature = hex(HMAC-SHA256(signing_secret, `${Service-Timestamp}.${raw body}`)),
// the secret's UTF-8 bytes as the key, Service-Timestamp in Unix seconds. WebCrypto only, so it
// runs on Node 18+, Deno, Bun, workers and browsers.

/** Header values as node (IncomingHttpHeaders), fetch (Headers) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifySignatureInput {
  /** The request body exactly as received, before any JSON parsing. */
  payload: string | Uint8Array | ArrayBuffer;
  headers: WebhookHeaders;
  /**
   * The subscription's signing_secret. After a rotation an in-flight delivery may still carry the
   * old secret's signature: pass both (new first) while it drains.
   */
  secret: string | readonly string[];
  /** Refuse timestamps further than this from now; default 300 (five minutes). */
  toleranceSeconds?: number;
  /** For tests: the current time in milliseconds. */
  now?: number;
}

const encoder = new TextEncoder();

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

/** The part of WebCrypto's SubtleCrypto used here (declared locally: no DOM or node typings needed). */
interface Subtle {
  importKey(format: 'raw', key: Uint8Array, algorithm: { name: 'HMAC'; hash: 'SHA-256' }, extractable: false, usages: ['sign']): Promise<unknown>;
  sign(algorithm: 'HMAC', key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
}

let subtlePromise: Promise<Subtle> | undefined;

/** WebCrypto: the global one (Node 19+, every other runtime), else node:crypto's (Node 18). */
function subtle(): Promise<Subtle> {
  subtlePromise ??= (async () => {
    const global = (globalThis as { crypto?: { subtle?: Subtle } }).crypto;
    if (global?.subtle) return global.subtle;
    // Node 18 keeps WebCrypto behind node:crypto; the name is a variable so bundlers for other runtimes leave it be.
    const nodeCrypto = 'node:crypto';
    const mod = (await import(/* @vite-ignore */ nodeCrypto)) as { webcrypto: { subtle: Subtle } };
    return mod.webcrypto.subtle;
  })();
  return subtlePromise;
}

function bytesOf(payload: string | Uint8Array | ArrayBuffer): Uint8Array {
  if (typeof payload === 'string') return encoder.encode(payload);
  return payload instanceof Uint8Array ? payload : new Uint8Array(payload);
}

/** The 32 bytes a hex signature names; undefined when it is not 64 hex digits. */
function fromHex(hex: string): Uint8Array | undefined {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return undefined;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Compares two 32-byte digests in time independent of where they differ. */
function equalDigests(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

async function hmac(secret: string, message: Uint8Array): Promise<Uint8Array> {
  const crypto = await subtle();
  const key = await crypto.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.sign('HMAC', key, message));
}

/**
 * True when the request was signed by Postbox with the secret (or one of the secrets) and its
 * timestamp is within the tolerance. Compute it over the raw body, before parsing it.
 */
export async function verifySignature(input: VerifySignatureInput): Promise<boolean> {
  const timestamp = header(input.headers, 'service-timestamp');
  const given = fromHex(header(input.headers, 'service-signature') ?? '');
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp) || !given) return false;
  const tolerance = input.toleranceSeconds ?? 300;
  const nowSeconds = (input.now ?? Date.now()) / 1000;
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) return false;

  const body = bytesOf(input.payload);
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix, 0);
  signed.set(body, prefix.length);

  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  let ok = false;
  // Every secret is tried (no early exit), so the time taken does not tell which one matched.
  for (const secret of secrets) if (equalDigests(await hmac(secret, signed), given)) ok = true;
  return ok;
}
