// POST /v1/inbound/routes/{id}/rotate-secret: a route's new signing secret shown once (no-store),
// stored sealed, the old one signing no later forward (a retry queued before the rotation
// included); email routes rotate alike; two rotations at once leave one secret that works; and
// the failures: malformed, unknown and other accounts' ids, read and test keys, a suspended
// account, no credentials, and the deployment gate.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { hmacSha256 } from '../../shared/crypto/crypto';
import { keys } from '../../shared/db/keys';
import type { Store } from '../../shared/db/store';
import { forwardInbound, type ForwardableEmail } from '../../shared/inbound-mail/routes/forward';
import type { RouteItem } from '../../shared/inbound-mail/routes/repository';
import { rotateRouteSecret, routeSecretOf } from '../../shared/inbound-mail/routes/service';
import { TEST_SECRETS } from '../support/container';
import { giveVerifiedDomain } from '../support/domains';
import type { HttpEventInput } from '../support/events';
import { type Receiver, type RecordedRequest } from '../support/receivers';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { useInboundReceiver } from '../support/inbound-receiver';
import { deliverWebhook } from '../support/consumers';
import { expectError } from '../support/errors';

const bed = useTestbed({ scopedKeys: true });
const SECRET = /^[0-9a-f]{64}$/;
let receiver: Receiver;
let n = 0;
useInboundReceiver(bed, () => enable(bed.account.admin_key), (started) => (receiver = started));

const enable = (key: string, domain = 'acme.test') => bed.request({ method: 'POST', path: `/v1/domains/${domain}/inbound`, key, body: { enabled: true } });
const req = (input: HttpEventInput) => bed.request(input);
const rotate = (id: string, key = bed.sendKey) => req({ method: 'POST', path: `/v1/inbound/routes/${id}/rotate-secret`, key });
const stored = async (id: string, accountId = bed.account.account_id) => (await bed.c.store.get<RouteItem>(keys.inboundRoute(accountId, id)))!;

async function makeRoute(body: Record<string, unknown>, key = bed.sendKey): Promise<{ id: string; signing_secret: string }> {
  const res = await req({ method: 'POST', path: '/v1/inbound/routes', key, body: { domain: 'acme.test', ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

const webhookRoute = (prefix = 'support') => makeRoute({ match_prefix: prefix, destination_type: 'webhook', forward_url: `${receiver.url}/${prefix}` });

function inbound(recipient: string): ForwardableEmail {
  return {
    id: `inb_01JROTATE${String(++n).padStart(16, '0')}`,
    account_id: bed.account.account_id,
    domain: 'acme.test',
    recipient,
    from: 'ada@example.org',
    to: [recipient],
    subject: 'After the rotation',
    text: 'Hello',
    spam_verdict: 'PASS',
    virus_verdict: 'PASS',
    attachments: [],
    received_at: '2026-03-01T12:00:00.000Z',
    raw_key: 'inbound/raw/x.eml',
  };
}

/** Whether a forward's Service-Signature is the HMAC of its timestamp and body under `secret`. */
function signedWith(request: RecordedRequest, secret: string): boolean {
  const timestamp = request.headers['service-timestamp'] as string;
  return request.headers['service-signature'] === hmacSha256(secret, `${timestamp}.${request.body.toString('utf8')}`).toString('hex');
}

describe('POST /v1/inbound/routes/{id}/rotate-secret', () => {
  it('answers the route with a new secret once (no-store), stores it sealed, and never shows it again', async () => {
    const made = await webhookRoute();
    const res = await rotate(made.id);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const { signing_secret: secret, ...view } = res.body;
    expect(secret).toMatch(SECRET);
    expect(secret).not.toBe(made.signing_secret);
    const { signing_secret: _, ...before } = made;
    expect(view).toEqual(before);
    const item = await stored(made.id);
    expect(JSON.stringify(item)).not.toContain(secret);
    expect(routeSecretOf(bed.c, item)).toBe(secret);
    const got = await req({ method: 'GET', path: `/v1/inbound/routes/${made.id}`, key: bed.readKey });
    expect(got.body).toEqual(view);
    expect(JSON.stringify((await req({ method: 'GET', path: '/v1/inbound/routes', key: bed.readKey })).body)).not.toContain(secret);
    // An admin key may as well; each rotation replaces the last.
    const again = await rotate(made.id, bed.account.admin_key);
    expect(again.status).toBe(200);
    expect(routeSecretOf(bed.c, await stored(made.id))).toBe(again.body.signing_secret);
  });

  it('rotates an email route alike: the secret it holds is the one that signs once it becomes a webhook route', async () => {
    const made = await makeRoute({ match_prefix: '', destination_type: 'email', forward_address: 'team@example.com' });
    const res = await rotate(made.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: made.id, destination_type: 'email', forward_address: 'team@example.com', forward_url: null });
    expect(res.body.signing_secret).toMatch(SECRET);
    const changed = await req({ method: 'PUT', path: `/v1/inbound/routes/${made.id}`, key: bed.sendKey, body: { destination_type: 'webhook', forward_url: `${receiver.url}/now-hook` } });
    expect(changed.status).toBe(200);
    expect(routeSecretOf(bed.c, await stored(made.id))).toBe(res.body.signing_secret);
  });

  it('answers 409 conflict to the later of two rotations at once, leaving the earlier one’s secret in place', async () => {
    const made = await webhookRoute();
    let winner: string | undefined;
    // The other rotation lands between this one's read and its write.
    const racing = new Proxy(bed.c.store, {
      get(target, prop) {
        if (prop === 'update') {
          return async (...args: Parameters<Store['update']>) => {
            if (winner === undefined) winner = (await rotate(made.id)).body.signing_secret;
            return target.update(...args);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    await expect(rotateRouteSecret({ ...bed.c, store: racing }, bed.account.account_id, made.id)).rejects.toMatchObject({ code: 'conflict' });
    expect(winner).toMatch(SECRET);
    expect(routeSecretOf(bed.c, await stored(made.id))).toBe(winner);
  });
});

describe('rotate-secret refusals', () => {
  it("is 404 for a malformed, an unknown or another account's id, and changes nothing", async () => {
    const made = await webhookRoute();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    await giveVerifiedDomain(bed.c, other.account_id, 'theirs.test');
    expect((await enable(other.admin_key, 'theirs.test')).status).toBe(200);
    const theirs = (await req({ method: 'POST', path: '/v1/inbound/routes', key: other.admin_key, body: { domain: 'theirs.test', match_prefix: '', destination_type: 'email', forward_address: 'a@example.com' } })).body;
    const sealedBefore = (await stored(theirs.id, other.account_id)).secret_sealed;

    expectError(await rotate(theirs.id), 404, 'not_found');
    expectError(await rotate(made.id, other.admin_key), 404, 'not_found');
    expectError(await rotate('inr_01ZZZZZZZZZZZZZZZZZZZZZZZZ'), 404, 'not_found');
    expectError(await rotate('whk_01ZZZZZZZZZZZZZZZZZZZZZZZZ'), 404, 'not_found');
    expectError(await rotate('not-an-id'), 404, 'not_found');
    expectError(await rotate('x'.repeat(300)), 404, 'not_found');
    expect((await stored(theirs.id, other.account_id)).secret_sealed).toBe(sealedBefore);
    expect(routeSecretOf(bed.c, await stored(made.id))).toBe(made.signing_secret);
  });

  it('needs a live send or admin key: a read key and test keys are 403, no credentials 401', async () => {
    const made = await webhookRoute();
    expectError(await rotate(made.id, bed.readKey), 403, 'forbidden');
    expectError(await rotate(made.id, bed.account.test_admin_key), 403, 'forbidden');
    expectError(await req({ method: 'POST', path: `/v1/inbound/routes/${made.id}/rotate-secret` }), 401, 'unauthorized');
    expect(routeSecretOf(bed.c, await stored(made.id))).toBe(made.signing_secret);
  });

  it("is 403 account_suspended for a suspended account's key, and 404 where inbound email is off", async () => {
    const made = await webhookRoute();
    bed.c.config.inboundEnabled = false;
    expectError(await rotate(made.id), 404, 'not_found');
    bed.c.config.inboundEnabled = true;
    const path = `/v1/admin/accounts/${bed.account.account_id}/suspend`;
    expect((await req({ method: 'POST', path, key: TEST_SECRETS['staff-token'], sourceIp: '198.51.100.9' })).status).toBe(200);
    expectError(await rotate(made.id), 403, 'account_suspended');
    expect(routeSecretOf(bed.c, await stored(made.id))).toBe(made.signing_secret);
  });
});

describe('forwards after a rotation', () => {
  const drainWebhooks = () => drain(bed.c.sent, 'webhooks', deliverWebhook);

  it('are signed with the new secret, not the old one', async () => {
    const made = await webhookRoute('desk');
    const rotated = (await rotate(made.id)).body.signing_secret as string;
    expect(await forwardInbound(bed.c, inbound('desk@acme.test'))).toMatchObject({ kind: 'webhook', route_id: made.id, queued: true });
    await drainWebhooks();
    const [forward] = receiver.requests.filter((r) => r.path === '/desk');
    expect(forward).toBeDefined();
    expect(signedWith(forward!, rotated)).toBe(true);
    expect(signedWith(forward!, made.signing_secret)).toBe(false);
  });

  it('sign a retry queued before the rotation with the new secret', async () => {
    const made = await webhookRoute('retry');
    receiver.reply({ status: 503 });
    await forwardInbound(bed.c, inbound('retry@acme.test'));
    // The first attempt only: it fails, signed with the old secret, and queues its retry.
    const [first] = bed.c.sent.splice(bed.c.sent.findIndex((s) => s.queue === 'webhooks'), 1);
    expect((await deliverWebhook(sqsEvent([sqsRecord(first?.body)]))).batchItemFailures).toEqual([]);
    receiver.reply({ status: 200 });
    const rotated = (await rotate(made.id)).body.signing_secret as string;
    const retry = bed.c.sent.find((s) => s.queue === 'webhooks');
    bed.c.clock.advance((retry?.delaySeconds ?? 0) * 1000);
    await drainWebhooks();

    const attempts = receiver.requests.filter((r) => r.path === '/retry');
    expect(attempts).toHaveLength(2);
    expect(signedWith(attempts[0]!, made.signing_secret)).toBe(true);
    expect(signedWith(attempts[1]!, rotated)).toBe(true);
    expect(signedWith(attempts[1]!, made.signing_secret)).toBe(false);
  });
});
