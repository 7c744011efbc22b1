// Test recipients end to end through the handler: registration mails a one-time link, the link
// verifies once, the account holds at most three, and the send path's checks see the result.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { accountPartition, keys } from '../../shared/db/keys';
import { ApiError } from '../../shared/errors';
import { PermanentSendError } from '../../shared/ports/mailer';
import { TestRecipientRepository } from '../../shared/sending/test-recipients/repository';
import { admitTestSend, findTestRecipientByEmail, isVerifiedTestRecipient } from '../../shared/sending/test-recipients/service';
import { handler } from '../../functions/test-recipients/http';
import { httpEvent } from '../support/events';
import { useTestbed } from '../support/testbed';

const bed = useTestbed({ scopedKeys: true });

const request = bed.request;
const admin = () => bed.account.admin_key;
const register = (body: unknown, key = admin()) => request({ method: 'POST', path: '/v1/test-recipients', key, body });
const list = (key = admin(), query: Record<string, string> = {}) => request({ method: 'GET', path: '/v1/test-recipients', key, query });
const remove = (id: string, key = admin()) => request({ method: 'DELETE', path: `/v1/test-recipients/${id}`, key });
const verify = (token?: string) => request({ method: 'GET', path: '/v1/test-recipients/verify', query: token === undefined ? {} : { token } });
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The token of the n-th mail sent (the newest by default). */
function tokenOf(index = bed.c.mailed.length - 1): string {
  const text = bed.c.mailed[index]?.text ?? '';
  const match = /\/v1\/test-recipients\/verify\?token=([0-9A-Za-z]+)/.exec(text);
  if (!match) throw new Error(`no link in mail ${index}: ${text}`);
  return match[1] as string;
}

async function registerVerified(email: string): Promise<string> {
  const res = await register({ email });
  expect((await verify(tokenOf())).status).toBe(200);
  return res.body.id as string;
}

function expectInvalidToken(res: { status: number; body: any }): void {
  expect(res.status).toBe(400);
  expect(res.body.error).toEqual({ code: 'invalid_token', message: expect.any(String), status: 400 });
}

describe('POST /v1/test-recipients', () => {
  it('registers a pending recipient and mails it a one-time link from the shared sender', async () => {
    const res = await register({ email: '  Tester@Example.COM ' });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^trc_[0-9a-z]{26}$/),
      email: 'tester@example.com',
      status: 'pending',
      created_at: bed.c.clock.now().toISOString(),
      verified_at: null,
    });
    expect(bed.c.mailed).toHaveLength(1);
    const mail = bed.c.mailed[0];
    expect(mail).toMatchObject({
      from: 'onboarding@sandbox.test',
      to: 'tester@example.com',
      subject: 'Confirm you want test mail from My account',
      messageId: res.body.id,
      accountId: bed.account.account_id,
    });
    const link = `http://api.test/v1/test-recipients/verify?token=${tokenOf()}`;
    expect(mail?.text).toContain(link);
    expect(mail?.html).toContain(`href="${link}"`);
  });

  it('mails the link on the configured public origin whatever Host and X-Forwarded-Proto say', async () => {
    const configured = bed.c.config.publicBaseUrl;
    bed.c.config.publicBaseUrl = 'https://mail.postbox.example';
    try {
      const res = await request({
        method: 'POST',
        path: '/v1/test-recipients',
        key: admin(),
        body: { email: 'tester@example.com' },
        headers: { host: 'javascript://evil', 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example' },
      });

      expect(res.status).toBe(201);
      const text = bed.c.mailed[0]?.text ?? '';
      expect(text).toContain(`https://mail.postbox.example/v1/test-recipients/verify?token=${tokenOf()}`);
      expect(`${text}${bed.c.mailed[0]?.html ?? ''}`).not.toMatch(/javascript|evil/);
    } finally {
      bed.c.config.publicBaseUrl = configured;
    }
  });

  it('answers 500 and mails nothing when the function has no public origin configured', async () => {
    const configured = bed.c.config.publicBaseUrl;
    bed.c.config.publicBaseUrl = undefined;
    try {
      const res = await register({ email: 'tester@example.com' });

      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('internal_error');
      expect(bed.c.mailed).toHaveLength(0);
    } finally {
      bed.c.config.publicBaseUrl = configured;
    }
  });

  it('stores only the SHA-256 of the link token and never answers it', async () => {
    const res = await register({ email: 'tester@example.com' });
    const token = tokenOf();

    const { items } = await bed.c.store.query({ keyCondition: 'pk = :pk', values: { ':pk': accountPartition(bed.account.account_id) } });
    expect(JSON.stringify(items)).not.toContain(token);
    expect(JSON.stringify(res.body)).not.toContain(token);
    const { createHash } = await import('node:crypto');
    const ref = await bed.c.store.get(keys.oneTimeToken(createHash('sha256').update(token).digest('hex')));
    expect(ref).toMatchObject({ purpose: 'test_recipient', subject: `${bed.account.account_id}/${res.body.id}` });
  });

  it('answers the existing entry (200) for an address registered again, and sends a fresh link while pending', async () => {
    const first = await register({ email: 'tester@example.com' });
    const oldToken = tokenOf();

    const again = await register({ email: 'TESTER@example.com' });

    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(bed.c.mailed).toHaveLength(2);
    expectInvalidToken(await verify(oldToken));
    expect((await verify(tokenOf())).status).toBe(200);
  });

  it('answers a verified address again without mailing it', async () => {
    await registerVerified('tester@example.com');
    const mails = bed.c.mailed.length;

    const again = await register({ email: 'tester@example.com' });

    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ email: 'tester@example.com', status: 'verified' });
    expect(bed.c.mailed).toHaveLength(mails);
  });

  it('refuses a 4th recipient with 422 too_many_test_recipients, counting pending ones; deleting frees a slot', async () => {
    await registerVerified('one@example.com');
    const two = await register({ email: 'two@example.com' });
    await register({ email: 'three@example.com' });

    const fourth = await register({ email: 'four@example.com' });

    expect(fourth.status).toBe(422);
    expect(fourth.body.error.code).toBe('too_many_test_recipients');
    expect(bed.c.mailed).toHaveLength(3);
    expect((await remove(two.body.id)).status).toBe(204);
    expect((await register({ email: 'four@example.com' })).status).toBe(201);
  });

  it('keeps at most three when registrations race', async () => {
    await register({ email: 'one@example.com' });
    await register({ email: 'two@example.com' });

    const results = await Promise.all([register({ email: 'three@example.com' }), register({ email: 'four@example.com' })]);

    expect(results.map((r) => r.status).sort()).toEqual([201, 422]);
    expect((await list()).body.test_recipients).toHaveLength(3);
  });

  it('keeps one entry when the same address is registered twice at once', async () => {
    const results = await Promise.all([register({ email: 'tester@example.com' }), register({ email: 'tester@example.com' })]);

    expect(results.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(results[0]?.body.id).toBe(results[1]?.body.id);
    expect((await list()).body.test_recipients).toHaveLength(1);
    expect((await verify(tokenOf())).status).toBe(200);
  });

  it.each([
    [{ email: 'not-an-address' }, 'body.email'],
    [{ email: 42 }, 'body.email'],
    [{}, 'body.email'],
    [{ email: 'tester@example.com', name: 'Tess' }, 'body'],
    [undefined, 'body'],
  ])('answers 400 invalid_request for %j naming %s', async (body, field) => {
    const res = await register(body);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message.startsWith(`${field}:`)).toBe(true);
    expect(bed.c.mailed).toHaveLength(0);
  });

  it('mails at most 3 links per address in an hour (429 rate_limit_exceeded with Retry-After)', async () => {
    for (let i = 0; i < 3; i++) expect((await register({ email: 'tester@example.com' })).status).toBeLessThan(300);

    const refused = await register({ email: 'tester@example.com' });

    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3000);
    expect(bed.c.mailed).toHaveLength(3);
    bed.c.clock.advance(3600_000);
    expect((await register({ email: 'tester@example.com' })).status).toBe(200);
    expect(bed.c.mailed).toHaveLength(4);
  });

  it('refuses test-mode keys (they send no mail) with 403 forbidden', async () => {
    const res = await register({ email: 'tester@example.com' }, bed.account.test_admin_key);

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect(bed.c.mailed).toHaveLength(0);
  });

  it('answers 503 test_send_not_configured when the deployment has no usable shared sender', async () => {
    const configured = bed.c.config.sharedEmailSender;
    bed.c.config.sharedEmailSender = 'not an address';
    try {
      const res = await register({ email: 'tester@example.com' });

      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('test_send_not_configured');
    } finally {
      bed.c.config.sharedEmailSender = configured;
    }
  });

  it('undoes the registration when the link cannot be mailed', async () => {
    bed.c.mailerFailure = new Error('provider unreachable');
    const failed = await register({ email: 'tester@example.com' });
    bed.c.mailerFailure = new PermanentSendError('SES refused the message: MessageRejected');
    const refused = await register({ email: 'tester@example.com' });

    expect(failed.status).toBe(500);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('test_send_not_configured');
    expect((await list()).body.test_recipients).toEqual([]);
    bed.c.mailerFailure = undefined;
    expect((await register({ email: 'tester@example.com' })).status).toBe(201);
  });
});

describe('GET /v1/test-recipients/verify', () => {
  it('verifies the recipient once: 200 with the entry, then it is listed verified', async () => {
    const created = await register({ email: 'tester@example.com' });

    const res = await verify(tokenOf());

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: created.body.id, email: 'tester@example.com', status: 'verified' });
    const listed = await list();
    expect(listed.body.test_recipients).toEqual([{ ...created.body, status: 'verified', verified_at: expect.any(String) }]);
  });

  it('refuses a used link with 400 invalid_token', async () => {
    await register({ email: 'tester@example.com' });
    const token = tokenOf();
    await verify(token);

    expectInvalidToken(await verify(token));
  });

  it('lets only one of two simultaneous clicks succeed', async () => {
    await register({ email: 'tester@example.com' });
    const token = tokenOf();

    const results = await Promise.all([verify(token), verify(token)]);

    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it('refuses a link older than 24 hours; the entry stays pending and can be sent a new one', async () => {
    await register({ email: 'tester@example.com' });
    const token = tokenOf();
    bed.c.clock.advance(24 * 3600_000 + 1000);

    expectInvalidToken(await verify(token));
    expect((await list()).body.test_recipients[0].status).toBe('pending');
    await register({ email: 'tester@example.com' });
    expect((await verify(tokenOf())).status).toBe(200);
  });

  it.each([
    ['an unknown token', 'A'.repeat(40)],
    ['a malformed token', 'not-a-token'],
    ['no token', undefined],
  ])('refuses %s with 400 invalid_token', async (_what, token) => {
    expectInvalidToken(await verify(token));
  });

  it('refuses the link of a deleted recipient', async () => {
    const created = await register({ email: 'tester@example.com' });
    await remove(created.body.id);

    expectInvalidToken(await verify(tokenOf()));
  });

  it('answers a browser with a page, for a good link and a spent one', async () => {
    await register({ email: 'tester@example.com' });
    const token = tokenOf();
    const open = () => {
      bed.c.clock.advance(150);
      return handler(httpEvent({ method: 'GET', path: '/v1/test-recipients/verify', query: { token }, headers: { accept: BROWSER_ACCEPT } }));
    };

    const ok = await open();
    const spent = await open();

    expect(ok.statusCode).toBe(200);
    expect(ok.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(ok.headers?.['referrer-policy']).toBe('no-referrer');
    expect(ok.body).toContain('tester@example.com');
    expect(spent.statusCode).toBe(400);
    expect(spent.headers?.['content-type']).toBe('text/html; charset=utf-8');
  });
});

describe('GET /v1/test-recipients', () => {
  it('lists newest first, a page at a time', async () => {
    const one = await register({ email: 'one@example.com' });
    const two = await register({ email: 'two@example.com' });
    const three = await register({ email: 'three@example.com' });

    const first = await list(admin(), { limit: '2' });
    const second = await list(admin(), { limit: '2', cursor: first.body.next_cursor });

    expect(first.body.test_recipients.map((r: { id: string }) => r.id)).toEqual([three.body.id, two.body.id]);
    expect(second.body).toEqual({ test_recipients: [one.body], next_cursor: null });
  });

  it('shows nothing of another account', async () => {
    await register({ email: 'tester@example.com' });
    const other = await createAccount(bed.c, {});

    expect((await list(other.admin_key)).body).toEqual({ test_recipients: [], next_cursor: null });
  });
});

describe('DELETE /v1/test-recipients/{id}', () => {
  it('answers 204, then 404 for the same id', async () => {
    const created = await register({ email: 'tester@example.com' });

    expect((await remove(created.body.id)).status).toBe(204);
    const again = await remove(created.body.id);
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('not_found');
    expect((await list()).body.test_recipients).toEqual([]);
  });

  it("answers 404 for another account's recipient and leaves it alone", async () => {
    const created = await register({ email: 'tester@example.com' });
    const other = await createAccount(bed.c, {});

    expect((await remove(created.body.id, other.admin_key)).status).toBe(404);
    expect((await list()).body.test_recipients).toHaveLength(1);
  });
});

describe('scopes', () => {
  it('lets a read key list but not register or delete', async () => {
    const created = await register({ email: 'tester@example.com' });

    expect((await list(bed.readKey)).status).toBe(200);
    const post = await register({ email: 'other@example.com' }, bed.readKey);
    const del = await remove(created.body.id, bed.readKey);
    expect([post.status, post.body.error.code]).toEqual([403, 'forbidden']);
    expect([del.status, del.body.error.code]).toEqual([403, 'forbidden']);
  });

  it('lets a send key register, list and delete', async () => {
    const created = await register({ email: 'tester@example.com' }, bed.sendKey);

    expect(created.status).toBe(201);
    expect((await list(bed.sendKey)).status).toBe(200);
    expect((await remove(created.body.id, bed.sendKey)).status).toBe(204);
  });
});

describe('the send path', () => {
  it('sees only verified recipients of the account, whatever the case of the address', async () => {
    const created = await register({ email: 'tester@example.com' });

    expect(await isVerifiedTestRecipient(bed.c.store, bed.account.account_id, 'tester@example.com')).toBe(false);
    await verify(tokenOf());
    expect(await isVerifiedTestRecipient(bed.c.store, bed.account.account_id, ' Tester@EXAMPLE.com')).toBe(true);
    expect(await findTestRecipientByEmail(bed.c.store, bed.account.account_id, 'TESTER@example.com')).toMatchObject({ id: created.body.id, status: 'verified' });
    const other = await createAccount(bed.c, {});
    expect(await isVerifiedTestRecipient(bed.c.store, other.account_id, 'tester@example.com')).toBe(false);
    await remove(created.body.id);
    expect(await isVerifiedTestRecipient(bed.c.store, bed.account.account_id, 'tester@example.com')).toBe(false);
  });

  it('admits 10 test sends per address per UTC day; the 11th is 429 test_send_daily_limit', async () => {
    for (let i = 0; i < 10; i++) await admitTestSend(bed.c, bed.account.account_id, i % 2 ? 'Tester@Example.com' : 'tester@example.com');

    const refused = await admitTestSend(bed.c, bed.account.account_id, 'tester@example.com').catch((e: unknown) => e);

    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).toBody()).toMatchObject({ code: 'test_send_daily_limit', status: 429 });
    const untilMidnight = (Date.parse(`${bed.c.clock.now().toISOString().slice(0, 10)}T00:00:00Z`) + 86_400_000 - bed.c.clock.now().getTime()) / 1000;
    expect(Number((refused as ApiError).headers['retry-after'])).toBe(Math.ceil(untilMidnight));
    await expect(admitTestSend(bed.c, bed.account.account_id, 'other@example.com')).resolves.toBeUndefined();
  });

  it('starts counting again on the next UTC day', async () => {
    for (let i = 0; i < 10; i++) await admitTestSend(bed.c, bed.account.account_id, 'tester@example.com');
    const tomorrow = Date.parse(`${bed.c.clock.now().toISOString().slice(0, 10)}T00:00:00Z`) + 86_400_000;

    bed.c.clock.set(new Date(tomorrow - 1));
    await expect(admitTestSend(bed.c, bed.account.account_id, 'tester@example.com')).rejects.toMatchObject({ code: 'test_send_daily_limit' });
    bed.c.clock.set(new Date(tomorrow));
    await expect(admitTestSend(bed.c, bed.account.account_id, 'tester@example.com')).resolves.toBeUndefined();
  });
});
