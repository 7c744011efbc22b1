import { beforeEach, describe, expect, it } from 'vitest';
import { useTestbed } from '../support/testbed';
import { linkTokenIn, signUp, withSession } from '../support/sessions';

const bed = useTestbed();
const request = bed.request;

describe('smoke', () => {
  it('signs up, sees the session, creates a test key, verifies', async () => {
    const s = await signUp(request);
    const view = await request(withSession(s, { method: 'GET', path: '/v1/auth/session' }));
    expect(view.status).toBe(200);
    const key = await request(withSession(s, { method: 'POST', path: '/v1/keys', body: { test_mode: true } }));
    expect(key.status).toBe(201);
    const live = await request(withSession(s, { method: 'POST', path: '/v1/keys', body: { test_mode: false } }));
    expect(live.status).toBe(403);
    const token = linkTokenIn(bed.c.mailed.at(-1)?.text, 'verify-email');
    const v = await request({ method: 'POST', path: '/v1/auth/verify-email', body: { token } });
    expect(v.body).toEqual({ account_id: s.accountId, email_verified: true });
    const live2 = await request(withSession(s, { method: 'POST', path: '/v1/keys', body: { test_mode: false } }));
    expect(live2.status).toBe(201);
  });
});
