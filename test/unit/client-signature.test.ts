// The client's verifySignature against the service's own signing (shared/webhooks/deliver.ts).
import { describe, expect, it } from 'vitest';
import { verifySignature } from '../../client/src/index';
import { signatureOf } from '../../shared/webhooks/deliver';

const secret = 'a1'.repeat(32);
const body = JSON.stringify({ event_id: 'evt_1', event_type: 'delivered', message_id: 'msg_1', payload: { note: 'é ✓' } });
const now = Date.parse('2026-03-01T12:00:00Z');
const ts = Math.floor(now / 1000);

const signed = (at = ts, key = secret, raw = body) => ({ 'service-timestamp': String(at), 'service-signature': signatureOf(key, at, raw) });

describe('verifySignature', () => {
  it('accepts what the service signs, as a string, bytes or a Headers object', async () => {
    expect(await verifySignature({ payload: body, headers: signed(), secret, now })).toBe(true);
    expect(await verifySignature({ payload: new TextEncoder().encode(body), headers: signed(), secret, now })).toBe(true);
    expect(await verifySignature({ payload: Buffer.from(body), headers: new Headers(signed()), secret, now })).toBe(true);
    expect(await verifySignature({ payload: body, headers: { 'Service-Timestamp': String(ts), 'Service-Signature': [signatureOf(secret, ts, body)] }, secret, now })).toBe(true);
  });

  it('refuses another secret, a changed body, a changed timestamp or a malformed signature', async () => {
    expect(await verifySignature({ payload: body, headers: signed(), secret: 'f'.repeat(64), now })).toBe(false);
    expect(await verifySignature({ payload: `${body} `, headers: signed(), secret, now })).toBe(false);
    expect(await verifySignature({ payload: body, headers: { ...signed(), 'service-timestamp': String(ts - 1) }, secret, now })).toBe(false);
    expect(await verifySignature({ payload: body, headers: { ...signed(), 'service-signature': 'zz' }, secret, now })).toBe(false);
    expect(await verifySignature({ payload: body, headers: { 'service-signature': signatureOf(secret, ts, body) }, secret, now })).toBe(false);
  });

  it('refuses a timestamp outside the tolerance, five minutes unless told', async () => {
    expect(await verifySignature({ payload: body, headers: signed(ts - 300), secret, now })).toBe(true);
    expect(await verifySignature({ payload: body, headers: signed(ts - 301), secret, now })).toBe(false);
    expect(await verifySignature({ payload: body, headers: signed(ts + 301), secret, now })).toBe(false);
    expect(await verifySignature({ payload: body, headers: signed(ts - 3600), secret, now, toleranceSeconds: 7200 })).toBe(true);
  });

  it('takes the old and new secrets while a rotation drains', async () => {
    const old = 'b2'.repeat(32);

    expect(await verifySignature({ payload: body, headers: signed(ts, old), secret: [secret, old], now })).toBe(true);
    expect(await verifySignature({ payload: body, headers: signed(ts, old), secret: [secret], now })).toBe(false);
  });
});
