// The broadcast state table through the real handlers: POST /v1/broadcasts (draft, scheduled,
// sending), PATCH of a draft, send and cancel with their 409s, the scheduler's start (and a
// cancelled schedule that never sends), the start's safety net after a request that died between
// the move and the hand-on, the failed move with its reason, and the content kept off the
// often-written broadcast item.
import { describe, expect, it } from 'vitest';
import { setAccountStatus } from '../../shared/accounts/service';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { recipientIdempotencyKey } from '../../shared/audiences/broadcasts/fan-out';
import { SCHEDULED_START, type StartJob } from '../../shared/audiences/broadcasts/messages';
import type { BroadcastContentItem, BroadcastItem } from '../../shared/audiences/broadcasts/model';
import { START_SAFETY_NET_SECONDS } from '../../shared/audiences/broadcasts/start';
import { keys } from '../../shared/db/keys';
import { findByIdempotencyKey } from '../../shared/sending/messages/query';
import type { MessageItem } from '../../shared/sending/messages/model';
import { call } from '../support/api';
import { giveVerifiedDomain } from '../support/domains';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { fanOut } from '../support/consumers';

const bed = useTestbed({ scopedKeys: true });

const draft = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  from_email: 'news@acme.test',
  name: 'April news',
  subject: 'News',
  body_text: 'News for you',
  recipients: [{ email: 'ada@example.com' }, { email: 'bob@example.com' }],
  ...over,
});
const create = (body: unknown, key = bed.sendKey) => call({ method: 'POST', path: '/v1/broadcasts', key, body });
const patch = (id: string, body: unknown, key = bed.sendKey) => call({ method: 'PATCH', path: `/v1/broadcasts/${id}`, key, body });
const send = (id: string, key = bed.sendKey) => call({ method: 'POST', path: `/v1/broadcasts/${id}/send`, key });
const cancel = (id: string, key = bed.sendKey) => call({ method: 'POST', path: `/v1/broadcasts/${id}/cancel`, key });
const get = (id: string, key = bed.readKey) => call({ method: 'GET', path: `/v1/broadcasts/${id}`, key });

const fanoutBodies = (): Array<Record<string, unknown>> => bed.c.sent.filter((s) => s.queue === 'fanout').map((s) => s.body as Record<string, unknown>);
const chunkJobs = () => fanoutBodies().filter((b) => 'chunk' in b);
const startJobs = () => bed.c.sent.filter((s) => s.queue === 'fanout' && 'start' in (s.body as object));
const sendJobs = () => bed.c.sent.filter((s) => s.queue === 'send');
const runJob = (job: unknown) => fanOut(sqsEvent([sqsRecord(job)]));

/** Runs the fanout queue's jobs in order, including those the jobs queue, until none is left; the delayed safety nets too. */
const drainFanout = () => drain(bed.c.sent, 'fanout', fanOut, { keep: true });
const stored = (id: string) => bed.c.store.get<BroadcastItem>(keys.broadcast(bed.account.account_id, id));
async function messageTo(broadcastId: string, recipient: string): Promise<MessageItem | undefined> {
  const claim = await findByIdempotencyKey(bed.c.store, bed.account.account_id, recipientIdempotencyKey(broadcastId, recipient));
  return claim ? bed.c.store.get<MessageItem>(keys.message(claim.message_id)) : undefined;
}
const inMinutes = (minutes: number) => new Date(bed.c.clock.now().getTime() + minutes * 60_000).toISOString();

describe('POST /v1/broadcasts', () => {
  it('creates a draft that queues nothing and sends nothing', async () => {
    const res = await create(draft());

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^bcast_[0-9a-z]{26}$/),
      name: 'April news',
      status: 'draft',
      from_email: 'news@acme.test',
      message_type: 'transactional',
      audience_list_id: null,
      scheduled_at: null,
      total_recipients: 2,
      sent_count: 0,
      failed_count: 0,
      created_at: bed.c.clock.now().toISOString(),
      completed_at: null,
      failure_reason: null,
    });
    expect(bed.c.sent).toEqual([]);
    expect((await get(res.body.id)).body.broadcast).toEqual(res.body);
  });

  it('with send_now, is sending at once and fans out to sent, recording when', async () => {
    const res = await create(draft({ send_now: true }));

    expect(res.status).toBe(201);
    expect(res.body.status).toBe('sending');
    expect(chunkJobs()).toEqual([{ broadcast_id: res.body.id, account_id: bed.account.account_id, chunk: 0 }]);
    expect(startJobs()).toEqual([{ queue: 'fanout', body: { broadcast_id: res.body.id, account_id: bed.account.account_id, start: expect.any(String) }, delaySeconds: START_SAFETY_NET_SECONDS }]);
    await drainFanout();
    expect(sendJobs()).toHaveLength(2);
    expect((await get(res.body.id)).body.broadcast).toMatchObject({ status: 'sent', sent_count: 2, completed_at: bed.c.clock.now().toISOString(), failure_reason: null });
  });

  it('with scheduled_at, is scheduled and starts from the scheduler at its time, not before', async () => {
    const at = inMinutes(30);
    const res = await create(draft({ scheduled_at: at }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'scheduled', scheduled_at: at });
    expect(bed.c.sent).toEqual([]);

    expect(await bed.c.scheduler.fireDue(bed.c.clock.now(), bed.c.queue)).toBe(0);
    bed.c.clock.advance(30 * 60_000);
    expect(await bed.c.scheduler.fireDue(bed.c.clock.now(), bed.c.queue)).toBe(1);
    expect(fanoutBodies()).toEqual([{ broadcast_id: res.body.id, account_id: bed.account.account_id, start: SCHEDULED_START }]);
    await drainFanout();

    expect(sendJobs()).toHaveLength(2);
    // Sent when it fans out: the messages are not scheduled again for the time that has passed.
    expect((await messageTo(res.body.id, 'ada@example.com'))?.status).toBe('queued');
    expect((await get(res.body.id)).body.broadcast).toMatchObject({ status: 'sent', scheduled_at: at, sent_count: 2 });
    expect(await stored(res.body.id)).toMatchObject({ started_at: bed.c.clock.now().toISOString(), start_token: SCHEDULED_START });
  });

  it.each([
    ['send_now and scheduled_at together', { send_now: true, scheduled_at: 'IN_1H' }, 400, 'invalid_request', /not both/],
    ['a scheduled_at past the 90-day window', { scheduled_at: 'IN_91D' }, 422, 'invalid_schedule', /scheduled_at/],
    ['a scheduled_at two minutes ago', { scheduled_at: 'PAST_2M' }, 422, 'invalid_schedule', /scheduled_at/],
    ['inline content and a template_id', { template_id: 'tmpl_1' }, 400, 'invalid_request', /not both/],
    ['neither inline content nor a template_id', { subject: undefined, body_text: undefined }, 400, 'invalid_request', /content/],
    ['an unknown template_id', { subject: undefined, body_text: undefined, template_id: 'tmpl_01jz0000000000000000000000' }, 404, 'template_not_found', /tmpl_01jz/],
    ['an unknown list', { recipients: undefined, audience_list_id: 'lst_01jz0000000000000000000000' }, 404, 'not_found', /list/],
    ['both recipients and a list', { audience_list_id: 'lst_01jz0000000000000000000000' }, 400, 'invalid_request', /not both/],
    ['a from_email on a domain the account lacks', { from_email: 'news@unknown.test' }, 422, 'from_not_verified', /./],
  ])('refuses %s, storing nothing', async (_label, over, status, code, message) => {
    const body = draft(over as Record<string, unknown>);
    const times: Record<string, number> = { IN_1H: 60, IN_91D: 91 * 24 * 60, PAST_2M: -2 };
    if (typeof body.scheduled_at === 'string' && body.scheduled_at in times) body.scheduled_at = inMinutes(times[body.scheduled_at]!);

    const res = await create(body);

    expect(res.status).toBe(status);
    expect(res.body.error).toEqual({ code, message: expect.stringMatching(message), status });
    expect(bed.c.sent).toEqual([]);
    expect((await call({ method: 'GET', path: '/v1/broadcasts', key: bed.readKey })).body.broadcasts).toEqual([]);
  });

  it("refuses another account's list as unknown (404)", async () => {
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const list = await call({ method: 'POST', path: '/v1/lists', key: other.admin_key, body: { name: 'theirs', type: 'static' } });

    const res = await create(draft({ recipients: undefined, audience_list_id: list.body.id }));

    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('answers 403 to a read key', async () => {
    const res = await create(draft(), bed.readKey);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });
});

describe('PATCH /v1/broadcasts/{id}', () => {
  it('edits a draft: new content and recipients are what it sends', async () => {
    const { body: made } = await create(draft());

    const res = await patch(made.id, { name: 'May news', subject: 'Fresh', body_text: 'New text', recipients: [{ email: 'cy@example.com' }], message_type: 'marketing' });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: made.id, status: 'draft', name: 'May news', message_type: 'marketing', total_recipients: 1 });
    expect((await send(made.id)).status).toBe(202);
    await drainFanout();
    expect(sendJobs()).toHaveLength(1);
    expect(await messageTo(made.id, 'cy@example.com')).toMatchObject({ subject: 'Fresh', body_text: 'New text', message_type: 'marketing' });
    expect(await messageTo(made.id, 'ada@example.com')).toBeUndefined();
    expect((await get(made.id)).body.broadcast).toMatchObject({ status: 'sent', sent_count: 1, total_recipients: 1 });
  });

  it('keeps what it does not name, and switches the audience to a list when recipients are cleared', async () => {
    const { body: made } = await create(draft());
    const list = await call({ method: 'POST', path: '/v1/lists', key: bed.sendKey, body: { name: 'all', type: 'static' } });

    const res = await patch(made.id, { recipients: null, audience_list_id: list.body.id });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'April news', from_email: 'news@acme.test', audience_list_id: list.body.id, total_recipients: 0 });
  });

  it.each([
    ['a template_id beside the inline content', { template_id: 'tmpl_01jz0000000000000000000000' }, 400, 'invalid_request', /not both/],
    ['no content left', { subject: null, body_text: null }, 400, 'invalid_request', /content/],
    ['no audience left', { recipients: null }, 400, 'invalid_request', /required/],
    ['an unknown template', { subject: null, body_text: null, template_id: 'tmpl_01jz0000000000000000000000' }, 404, 'template_not_found', /tmpl_01jz/],
    ['an unknown list', { recipients: null, audience_list_id: 'lst_01jz0000000000000000000000' }, 404, 'not_found', /list/],
    ['a from_email on a domain the account lacks', { from_email: 'news@unknown.test' }, 422, 'from_not_verified', /./],
    ['scheduled_at, which is not an edit', { scheduled_at: '2026-03-02T00:00:00Z' }, 400, 'invalid_request', /^body: /],
    ['send_now, which is not an edit', { send_now: true }, 400, 'invalid_request', /^body: /],
  ])('refuses %s, changing nothing', async (_label, body, status, code, message) => {
    const { body: made } = await create(draft());

    const res = await patch(made.id, body);

    expect(res.status).toBe(status);
    expect(res.body.error).toEqual({ code, message: expect.stringMatching(message), status });
    expect((await get(made.id)).body.broadcast).toEqual(made);
  });

  it('answers 409 conflict for a broadcast that is not a draft', async () => {
    const { body: sending } = await create(draft({ send_now: true }));
    const { body: scheduled } = await create(draft({ scheduled_at: inMinutes(5) }));

    for (const id of [sending.id, scheduled.id]) {
      const res = await patch(id, { name: 'Renamed' });
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({ code: 'conflict', message: expect.stringMatching(/only a draft/), status: 409 });
    }
  });

  it("answers 404 for an unknown id and another account's broadcast", async () => {
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    await giveVerifiedDomain(bed.c, other.account_id, 'other.test');
    const theirs = await create(draft({ from_email: 'news@other.test' }), other.admin_key);

    expect((await patch(theirs.body.id, { name: 'Mine' })).status).toBe(404);
    expect((await patch('bcast_01jz0000000000000000000000', { name: 'Mine' })).status).toBe(404);
    expect((await patch('nope', { name: 'Mine' })).status).toBe(404);
  });
});

describe('POST /v1/broadcasts/{id}/send', () => {
  it('sends a draft (202) once; a second send is 409', async () => {
    const { body: made } = await create(draft());

    const res = await send(made.id);
    const again = await send(made.id);

    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: made.id, status: 'sending' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    await drainFanout();
    expect(sendJobs()).toHaveLength(2);
  });

  it('sends a scheduled broadcast now: its schedule is removed and scheduled_at cleared', async () => {
    const { body: made } = await create(draft({ scheduled_at: inMinutes(60) }));

    const res = await send(made.id);

    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'sending', scheduled_at: null });
    bed.c.clock.advance(61 * 60_000);
    await bed.c.scheduler.fireDue(bed.c.clock.now(), bed.c.queue);
    expect(startJobs().filter((s) => (s.body as StartJob).start === SCHEDULED_START && (s.body as StartJob).broadcast_id === made.id)).toEqual([]);
    // Schedules other tests left behind may have fired too: keep this broadcast's jobs.
    bed.c.sent.splice(0, bed.c.sent.length, ...bed.c.sent.filter((s) => (s.body as { broadcast_id?: string }).broadcast_id === made.id));
    await drainFanout();
    expect(sendJobs()).toHaveLength(2);
    expect((await messageTo(made.id, 'bob@example.com'))?.status).toBe('queued');
  });

  it('refuses a cancelled broadcast (409) and an unknown one (404)', async () => {
    const { body: made } = await create(draft());
    await cancel(made.id);

    expect((await send(made.id)).status).toBe(409);
    expect((await send('bcast_01jz0000000000000000000000')).status).toBe(404);
    expect(bed.c.sent).toEqual([]);
  });

  it('checks the sender rules again', async () => {
    const { body: made } = await create(draft());
    await bed.c.store.update(keys.broadcast(bed.account.account_id, made.id), { expression: 'SET from_email = :f', values: { ':f': 'news@unknown.test' } });

    const res = await send(made.id);

    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('from_not_verified');
    expect((await stored(made.id))?.status).toBe('draft');
  });
});

describe('POST /v1/broadcasts/{id}/cancel', () => {
  it('cancels a draft, recording when', async () => {
    const { body: made } = await create(draft());

    const res = await cancel(made.id);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'cancelled', completed_at: bed.c.clock.now().toISOString() });
  });

  it('cancels a scheduled broadcast, which then never sends, even if its schedule fires anyway', async () => {
    const { body: made } = await create(draft({ scheduled_at: inMinutes(10) }));

    expect((await cancel(made.id)).status).toBe(200);
    bed.c.clock.advance(11 * 60_000);
    await bed.c.scheduler.fireDue(bed.c.clock.now(), bed.c.queue);
    expect(fanoutBodies().filter((b) => b.broadcast_id === made.id)).toEqual([]);
    bed.c.sent.length = 0; // schedules other tests left behind may have fired too
    // A schedule whose removal failed fires into a broadcast no longer scheduled.
    await runJob({ broadcast_id: made.id, account_id: bed.account.account_id, start: SCHEDULED_START } satisfies StartJob);

    expect(bed.c.sent).toEqual([]);
    expect((await get(made.id)).body.broadcast.status).toBe('cancelled');
  });

  it('answers 409 conflict for sending, sent and cancelled broadcasts, and 404 for an unknown one', async () => {
    const { body: sending } = await create(draft({ send_now: true }));
    const { body: sent } = await create(draft({ send_now: true }));
    await drainFanout();
    const { body: cancelled } = await create(draft());
    await cancel(cancelled.id);

    for (const id of [sending.id, sent.id, cancelled.id]) {
      const res = await cancel(id);
      expect(res.status).toBe(409);
      expect(res.body.error).toEqual({ code: 'conflict', message: expect.stringMatching(/only a draft or scheduled broadcast can be cancelled/), status: 409 });
    }
    expect((await cancel('bcast_01jz0000000000000000000000')).status).toBe(404);
  });
});

describe('starts across a crash', () => {
  it("hands a broadcast on from the start's safety net when the request died between the move and the hand-on", async () => {
    const { body: made } = await create(draft());
    await send(made.id);
    const [net] = startJobs();
    // As if the request died right after the move: no chunk job queued, not handed on.
    bed.c.sent.length = 0;
    await bed.c.store.update(keys.broadcast(bed.account.account_id, made.id), { expression: 'SET handed_on = :f', values: { ':f': false } });

    await runJob(net!.body);
    await drainFanout();

    expect(sendJobs()).toHaveLength(2);
    expect((await get(made.id)).body.broadcast.status).toBe('sent');
  });

  it('does nothing from a safety net whose start never moved the broadcast, or was handed on already', async () => {
    const { body: made } = await create(draft());
    const { body: started } = await create(draft({ send_now: true }));
    const stray: StartJob = { broadcast_id: made.id, account_id: bed.account.account_id, start: 'a1b2c3d4e5f60718' };
    const [net] = startJobs();
    bed.c.sent.length = 0;

    await runJob(stray);
    await runJob(net!.body);

    expect(bed.c.sent).toEqual([]);
    expect((await stored(made.id))?.status).toBe('draft');
    expect((await stored(started.id))?.handed_on).toBe(true);
  });
});

describe('failing', () => {
  it('fails a sending broadcast with its reason when the account is suspended mid-fan-out', async () => {
    const { body: made } = await create(draft({ send_now: true }));
    await setAccountStatus(bed.c, bed.account.account_id, 'suspended');

    await drainFanout();

    expect(sendJobs()).toHaveLength(0);
    expect(await stored(made.id)).toMatchObject({ status: 'failed', failure_reason: 'the account is suspended', completed_at: bed.c.clock.now().toISOString() });
    await setAccountStatus(bed.c, bed.account.account_id, 'active');
    expect((await get(made.id)).body.broadcast).toMatchObject({ status: 'failed', failure_reason: 'the account is suspended' });
  });

  it('fails the broadcast when a job fails on its last receive', async () => {
    const { body: made } = await create(draft({ send_now: true }));
    const [job] = chunkJobs();
    // Written raw on purpose: a chunk no use case could store, so that the job fails on every receive.
    await bed.c.store.put({ ...keys.broadcastRecipients(made.id, 0), entity: 'broadcast_recipients', broadcast_id: made.id, account_id: bed.account.account_id, chunk: 0, recipients: 'not a list' });

    const result = await fanOut(sqsEvent([sqsRecord(job, 3)]));

    expect(result.batchItemFailures).toHaveLength(1);
    expect(await stored(made.id)).toMatchObject({ status: 'failed', failure_reason: 'a fan-out step failed repeatedly' });
  });
});

describe('storage cost', () => {
  it('keeps the content on its own item, so the broadcast item that every chunk count rewrites stays within 1 KB', async () => {
    const body = 'x'.repeat(200 * 1024);
    const { body: made } = await create(draft({ body_text: body, send_now: true }));
    await drainFanout();

    const item = await stored(made.id);
    const content = await bed.c.store.get<BroadcastContentItem>(keys.broadcastContent(made.id, 0));
    expect(item?.status).toBe('sent');
    expect(Buffer.byteLength(JSON.stringify({ ...item, chunks_done: [...(item?.chunks_done ?? [])] }))).toBeLessThan(1024);
    expect(content?.body_text).toBe(body);
  });
});
