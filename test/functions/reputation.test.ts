// Sending reputation per account (issue 32): hard bounces and complaints over live email sends in
// a rolling window, driven through real SES notifications into the ses-events consumer. The
// account is warned, then paused (live sends 403 sending_paused) well before SES's own levels,
// and staff lift the pause through the audited admin route.
import { beforeEach, describe, expect, it } from 'vitest';
import { getAccount } from '../../shared/accounts/service';
import { KEY_CACHE_TTL_MS } from '../../shared/accounts/api-keys/cache';
import { acceptSends } from '../../shared/sending/messages/send';
import type { ReputationAlertJob } from '../../shared/billing/reputation/alert-job';
import { judge } from '../../shared/billing/reputation/policy';
import { countSentEmail } from '../../shared/billing/reputation/service';
import type { EventJob } from '../../shared/webhooks/messages';
import { TEST_SECRETS } from '../support/container';
import { bounceNotification, complaintNotification, seedSentMessage, snsWrap } from '../support/ses-events';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { signUp, withSession } from '../support/sessions';
import { useTestbed } from '../support/testbed';
import { sendWorker, ingestSesEvent as ingest } from '../support/consumers';

const bed = useTestbed({ scopedKeys: true });
let accountId: string;
beforeEach(() => {
  accountId = bed.account.account_id;
});

let seq = 0;
const staff = TEST_SECRETS['staff-token'];
const later = (seconds: number): string => new Date(bed.c.clock.now().getTime() + seconds * 1000).toISOString();

/** `n` live email sends the provider accepted, counted where the send worker counts them. */
async function sends(n: number, account = accountId): Promise<void> {
  for (let i = 0; i < n; i++) await countSentEmail(bed.c.store, { account_id: account, channel: 'email' }, bed.c.clock.now().toISOString());
}

/** One SES notification per new sent message of the account, through the real consumer. */
async function feedback(n: number, kind: 'bounce' | 'soft-bounce' | 'complaint', account = accountId): Promise<void> {
  for (let i = 0; i < n; i++) {
    const sent = await seedSentMessage(bed.c, { accountId: account });
    const notification =
      kind === 'complaint'
        ? complaintNotification(sent.target, { at: later(1) })
        : bounceNotification(sent.target, { at: later(1), bounceType: kind === 'bounce' ? 'Permanent' : 'Transient' });
    expect(await ingest(sqsEvent([sqsRecord(snsWrap(notification))]))).toEqual({ batchItemFailures: [] });
  }
}

const alertJobs = () => bed.c.sent.filter((s) => s.queue === 'send' && (s.body as { kind?: string }).kind === 'reputation_alert').map((s) => s.body as ReputationAlertJob);
const reputation = async () => (await bed.request({ method: 'GET', path: '/v1/usage', key: bed.readKey })).body.reputation;
const email = (key: string) =>
  bed.request({
    method: 'POST',
    path: '/v1/send',
    key,
    body: { channel: 'email', idempotency_key: `rep-${++seq}`, destination: { email: 'reader@example.com' }, payload: { subject: 'Hi', body_text: 'Hello' }, metadata: { from_email: 'hello@acme.test' } },
  });

describe('the reputation window', () => {
  it('counts hard bounces and complaints over sends; soft bounces and duplicates do not count', async () => {
    await sends(100);
    await feedback(2, 'bounce');
    await feedback(3, 'soft-bounce');
    await feedback(1, 'complaint');
    // A duplicate notification (same feedback id) is collapsed by the timeline and not counted again.
    const sent = await seedSentMessage(bed.c, { accountId });
    const dup = snsWrap(bounceNotification(sent.target, { at: later(1), feedbackId: 'fb-dup' }));
    await ingest(sqsEvent([sqsRecord(dup)]));
    await ingest(sqsEvent([sqsRecord(dup)]));

    expect(await reputation()).toMatchObject({ state: 'ok', sends: 100, bounces: 3, complaints: 1, bounce_rate: 0.03, complaint_rate: 0.01, min_sends: 200 });
  });

  it('judges nothing below the minimum send count', () => {
    expect(judge({ sends: 199, bounces: 199, complaints: 199 })).toBe('ok');
    expect(judge({ sends: 200, bounces: 8, complaints: 0 })).toBe('warned');
    expect(judge({ sends: 1000, bounces: 0, complaints: 3 })).toBe('paused');
  });

  it('drops buckets older than the window', async () => {
    await sends(300);
    await feedback(20, 'bounce');
    bed.c.clock.advance(8 * 24 * 3_600_000);
    expect(await reputation()).toMatchObject({ sends: 0, bounces: 0, complaints: 0, bounce_rate: 0 });
  });
});

describe('warning and pause', () => {
  it('warns at 4% hard bounces, pauses at 8%, refuses live sends with sending_paused, and staff lift it', async () => {
    const hook = await bed.request({ method: 'POST', path: '/v1/webhooks', key: bed.account.admin_key, body: { endpoint_url: 'https://93.184.216.34/hook', event_types: ['account.reputation_warning'] } });
    expect(hook.status).toBe(201);
    await sends(200);
    await feedback(7, 'bounce');
    expect(alertJobs()).toEqual([]);

    // 8 of 200: 4%, the warning level (SES reviews at 5%).
    await feedback(1, 'bounce');
    expect((await getAccount(bed.c.store, accountId))?.reputation_state).toBe('warned');
    expect(alertJobs().map((j) => j.state)).toEqual(['warned']);
    expect((await email(bed.sendKey)).status).toBe(201);

    // The warning goes once; 16 of 200 is 8%, the pause level (SES may pause at 10%).
    await feedback(8, 'bounce');
    expect(alertJobs().map((j) => j.state)).toEqual(['warned', 'paused']);
    expect(await reputation()).toMatchObject({ state: 'paused', sends: 200, bounces: 16, bounce_rate: 0.08 });

    // The send worker mails the owner from the shared sender and publishes the webhook event.
    const jobs = alertJobs();
    bed.c.sent.length = 0;
    expect(await sendWorker(sqsEvent(jobs.map((j) => sqsRecord(j))))).toEqual({ batchItemFailures: [] });
    expect(bed.c.mailed.map((m) => [m.to, m.subject])).toEqual([
      ['owner@example.com', 'Warning: bounce or complaint rate is high'],
      ['owner@example.com', 'Live sending paused: bounce or complaint rate too high'],
    ]);
    expect(bed.c.sent.filter((s) => s.queue === 'webhooks').map((s) => (s.body as EventJob).envelope?.event_type)).toEqual(['account.reputation_warning', 'account.reputation_warning']);

    // Paused: a live send is refused at accept time (an API process re-reads the account within
    // the key cache's bound), a test-mode send goes on.
    bed.c.clock.advance(KEY_CACHE_TTL_MS + 1);
    const refused = await email(bed.sendKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('sending_paused');
    const batch = await bed.request({ method: 'POST', path: '/v1/send/batch', key: bed.sendKey, body: [{ channel: 'email', idempotency_key: 'rep-batch', destination: { email: 'a@example.com' }, payload: { subject: 'Hi', body_text: 'x' }, metadata: { from_email: 'hello@acme.test' } }] });
    expect(JSON.stringify(batch.body)).toContain('sending_paused');
    const [testOutcome] = await acceptSends(bed.c, { accountId, keyId: 'key_test', testMode: true }, [
      { channel: 'email', idempotency_key: 'rep-test', destination: { email: 'reader@example.com' }, payload: { subject: 'Hi', body_text: 'x' }, metadata: { from_email: 'hello@acme.test' } },
    ], { batch: false });
    expect(testOutcome?.kind).toBe('accepted');

    // Staff see it on the board, and lift it (audited); live sends go again.
    const board = await bed.request({ method: 'GET', path: '/v1/admin/reputation', key: staff });
    expect(board.status).toBe(200);
    expect(board.body.accounts.find((a: { account_id: string }) => a.account_id === accountId)).toMatchObject({ state: 'paused', bounces: 16, sends: 200 });
    expect((await bed.request({ method: 'POST', path: `/v1/admin/accounts/${accountId}/reputation/lift`, key: bed.account.admin_key })).status).toBe(401);
    const lifted = await bed.request({ method: 'POST', path: `/v1/admin/accounts/${accountId}/reputation/lift`, key: staff });
    expect(lifted.status).toBe(200);
    expect(lifted.body).toMatchObject({ account_id: accountId, state: 'ok' });
    const audit = await bed.request({ method: 'GET', path: '/v1/admin/audit', key: staff });
    expect(audit.body.entries[0]).toMatchObject({ action: 'account.reputation_lift', target: { type: 'account', id: accountId }, outcome: 'succeeded' });
    expect((await email(bed.sendKey)).status).toBe(201);

    // The window restarts after the lift: the bounces that paused it are not judged again.
    bed.c.clock.advance(3_600_000);
    expect(await reputation()).toMatchObject({ state: 'ok', bounces: 0 });
  });

  it('pauses on complaints at 0.3% (SES may pause at 0.5%) before the deployment would be', async () => {
    await sends(1250);
    await feedback(3, 'soft-bounce');
    expect((await getAccount(bed.c.store, accountId))?.reputation_state).toBeUndefined();
    // 1 of 1250: 0.08%, the warning level (SES reviews at 0.1%).
    await feedback(1, 'complaint');
    expect((await getAccount(bed.c.store, accountId))?.reputation_state).toBe('warned');
    await feedback(2, 'complaint');
    expect((await getAccount(bed.c.store, accountId))?.reputation_state).toBe('warned');
    // 4 of 1250: 0.32%.
    await feedback(1, 'complaint');
    expect((await getAccount(bed.c.store, accountId))?.reputation_state).toBe('paused');
    expect(alertJobs().map((j) => [j.state, j.complaints])).toEqual([
      ['warned', 1],
      ['paused', 4],
    ]);
  });

  it('one careless tenant does not pause another', async () => {
    const other = (await bed.request({ method: 'POST', path: '/v1/admin/accounts', key: staff, body: { name: 'Other' } })).body.account_id as string;
    await sends(200, other);
    await feedback(20, 'bounce', other);
    await sends(200);
    expect((await getAccount(bed.c.store, other))?.reputation_state).toBe('paused');
    expect((await getAccount(bed.c.store, accountId))?.reputation_state).toBeUndefined();
    expect((await email(bed.sendKey)).status).toBe(201);
  });

  it("another account's owner, signed in, neither sees the board nor lifts a pause: 403, and the pause stays", async () => {
    await sends(200);
    await feedback(16, 'bounce');
    expect((await getAccount(bed.c.store, accountId))?.reputation_state).toBe('paused');
    const stranger = await signUp(bed.request);

    const board = await bed.request(withSession(stranger, { method: 'GET', path: '/v1/admin/reputation' }));
    const lift = await bed.request(withSession(stranger, { method: 'POST', path: `/v1/admin/accounts/${accountId}/reputation/lift` }));
    const ownLift = await bed.request(withSession(stranger, { method: 'POST', path: `/v1/admin/accounts/${stranger.accountId}/reputation/lift` }));

    expect([board.status, lift.status, ownLift.status]).toEqual([403, 403, 403]);
    expect(JSON.stringify(board.body)).not.toContain(accountId);
    expect((await getAccount(bed.c.store, accountId))?.reputation_state).toBe('paused');
  });

  it('a lift of an unknown account is 404', async () => {
    expect((await bed.request({ method: 'POST', path: '/v1/admin/accounts/acct_missing/reputation/lift', key: staff })).status).toBe(404);
  });
});
