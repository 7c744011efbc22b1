// POST /v1/send/bulk, the fanout consumer and the broadcast reads, through the real handlers:
// request-time refusals (content, recipients, schedule, sender rules), one accepted message per
// unique recipient, suppressed recipients skipped, re-runs that send and count nothing twice, and
// template broadcasts rendered per recipient from the version pinned at creation.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { recipientIdempotencyKey } from '../../shared/audiences/broadcasts/fan-out';
import type { FanOutJob } from '../../shared/audiences/broadcasts/messages';
import type { BroadcastItem, RecipientChunkItem } from '../../shared/audiences/broadcasts/model';
import { keys } from '../../shared/db/keys';
import { createKey } from '../../shared/accounts/api-keys/service';
import { loadContent } from '../../shared/sending/messages/content';
import { MessageRepository } from '../../shared/sending/messages/repository';
import { findByIdempotencyKey } from '../../shared/sending/messages/query';
import type { MessageItem } from '../../shared/sending/messages/model';
import { suppress } from '../../shared/sending/suppressions/service';
import { call } from '../support/api';
import { giveVerifiedDomain } from '../support/domains';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { fanOut } from '../support/consumers';

const bed = useTestbed({ scopedKeys: true });

const bulk = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  from_email: 'news@acme.test',
  name: 'March news',
  subject: 'News',
  body_html: '<p>News</p>',
  body_text: 'News',
  recipients: [{ email: 'ada@example.com' }, { email: 'bob@example.com' }],
  ...over,
});
const post = (body: unknown, key = bed.sendKey) => call({ method: 'POST', path: '/v1/send/bulk', key, body });
const get = (id: string, key = bed.readKey) => call({ method: 'GET', path: `/v1/broadcasts/${id}`, key });
const list = (query: Record<string, string> = {}, key = bed.readKey) => call({ method: 'GET', path: '/v1/broadcasts', key, query });

// The chunk jobs (the fanout queue also carries each start's delayed safety net: see broadcasts-lifecycle.test.ts).
const fanOutJobs = (): FanOutJob[] => bed.c.sent.filter((s) => s.queue === 'fanout' && 'chunk' in (s.body as object)).map((s) => s.body as FanOutJob);
const sendJobs = () => bed.c.sent.filter((s) => s.queue === 'send');
/**
 * The messages the send jobs name. A chunk run again hands its recipients' jobs on again before it
 * finds their messages stored (shared/sending/messages/send.ts); the dispatch lease sends each once.
 */
const jobMessages = () => new Set(sendJobs().map((s) => (s.body as { message_id: string }).message_id));
const runJob = (job: unknown) => fanOut(sqsEvent([sqsRecord(job)]));
/** Runs every chunk job recorded (again, for those run already), and those they queue. */
const runAll = () => drain(bed.c.sent, 'fanout', fanOut, { keep: true, where: (body) => 'chunk' in body });
const stored = (id: string, accountId = bed.account.account_id) => bed.c.store.get<BroadcastItem>(keys.broadcast(accountId, id));
async function messageTo(broadcastId: string, recipient: string, accountId = bed.account.account_id): Promise<MessageItem | undefined> {
  const claim = await findByIdempotencyKey(bed.c.store, accountId, recipientIdempotencyKey(broadcastId, recipient));
  return claim ? bed.c.store.get<MessageItem>(keys.message(claim.message_id)) : undefined;
}
/** What the message to a recipient says, wherever its content is kept (on the item or beside it). */
async function contentTo(broadcastId: string, recipient: string) {
  const message = await messageTo(broadcastId, recipient);
  return message && loadContent({ objects: bed.c.objects, messages: new MessageRepository(bed.c.store) }, message);
}
const addresses = (count: number, domain = 'example.com') => Array.from({ length: count }, (_, i) => ({ email: `user${i}@${domain}` }));

describe('POST /v1/send/bulk', () => {
  it('answers 202 with the sending broadcast and queues one fanout job per chunk', async () => {
    const res = await post(bulk({ message_type: 'marketing' }));

    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^bcast_[0-9a-z]{26}$/),
      name: 'March news',
      status: 'sending',
      from_email: 'news@acme.test',
      message_type: 'marketing',
      audience_list_id: null,
      scheduled_at: null,
      total_recipients: 2,
      sent_count: 0,
      failed_count: 0,
      created_at: bed.c.clock.now().toISOString(),
      completed_at: null,
      failure_reason: null,
    });
    expect(fanOutJobs()).toEqual([{ broadcast_id: res.body.id, account_id: bed.account.account_id, chunk: 0 }]);
    expect(sendJobs()).toHaveLength(0);
  });

  it('de-duplicates normalized recipients, counts invalid addresses in the total and splits chunks of 500', async () => {
    const recipients = [...addresses(1000), { email: ' USER0@Example.com ' }, { email: 'not-an-address' }, { email: 'last@example.com' }];

    const res = await post(bulk({ recipients, name: undefined }));

    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ total_recipients: 1002, name: 'News', message_type: 'transactional' });
    expect(fanOutJobs().map((j) => j.chunk)).toEqual([0, 1, 2]);
    const chunks = await Promise.all([0, 1, 2].map((i) => bed.c.store.get<RecipientChunkItem>(keys.broadcastRecipients(res.body.id, i))));
    expect(chunks.map((ch) => ch?.recipients.length)).toEqual([500, 500, 1]);
    expect(chunks[2]?.recipients).toEqual(['last@example.com']);
    expect(await stored(res.body.id)).toMatchObject({ skipped_count: 1, chunk_count: 3, key_id: expect.stringMatching(/^key_/), test_mode: false });
  });

  it.each([
    ['from_not_verified', 'a domain the account does not have', 'news@unknown.test'],
    ['domain_not_verified', 'a registered domain whose DNS is not verified', 'news@pending.test'],
  ])('refuses %s at request time: %s', async (code, _label, from) => {
    const pending = { dkim_status: 'pending', spf_status: 'pending', dmarc_status: 'pending', txt_status: 'pending' } as const;
    await giveVerifiedDomain(bed.c, bed.account.account_id, 'pending.test', pending);

    const res = await post(bulk({ from_email: from }));

    expect(res.status).toBe(422);
    expect(res.body.error).toEqual({ code, message: expect.any(String), status: 422 });
    expect(fanOutJobs()).toHaveLength(0);
    expect((await list()).body.broadcasts).toEqual([]);
  });

  it('refuses no_verified_domain at request time for an account without a verified domain', async () => {
    const sandboxed = await createAccount(bed.c, { email: 'solo@example.com' });

    const res = await post(bulk({ from_email: 'news@solo.test' }), sandboxed.admin_key);

    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('no_verified_domain');
    expect(fanOutJobs()).toHaveLength(0);
  });

  it.each([
    ['no from_email', { from_email: undefined }, 400, 'invalid_request', /^body\.from_email: /],
    ['a malformed from_email', { from_email: 'News <nope>' }, 400, 'invalid_request', /^body\.from_email: /],
    ['no content', { subject: undefined, body_html: undefined, body_text: undefined }, 400, 'invalid_request', /content/],
    ['a subject without a body', { body_html: undefined, body_text: '  ' }, 400, 'invalid_request', /content/],
    ['inline content and a template_id', { template_id: 'tmpl_1' }, 400, 'invalid_request', /not both/],
    ['an unknown template_id', { subject: undefined, body_html: undefined, body_text: undefined, template_id: 'tmpl_1' }, 404, 'template_not_found', /tmpl_1/],
    [
      'a well-formed template id that names nothing',
      { subject: undefined, body_html: undefined, body_text: undefined, template_id: 'tmpl_01jz0000000000000000000000' },
      404,
      'template_not_found',
      /tmpl_01jz/,
    ],
    ['an unknown audience_list_id', { recipients: undefined, audience_list_id: 'list_1' }, 404, 'not_found', /^list list_1 not found$/],
    ['both recipients and audience_list_id', { audience_list_id: 'list_1' }, 400, 'invalid_request', /not both/],
    ['neither recipients nor audience_list_id', { recipients: undefined }, 400, 'invalid_request', /required/],
    ['an empty recipients list', { recipients: [] }, 400, 'invalid_request', /^body\.recipients: /],
    ['10001 recipients', { recipients: addresses(10_001) }, 400, 'invalid_request', /at most 10000/],
    ['no valid address', { recipients: [{ email: 'nope' }, { email: '' }] }, 400, 'invalid_request', /valid email address/],
    ['a recipient without email', { recipients: [{ data: {} }] }, 400, 'invalid_request', /^body\.recipients\.0\.email: /],
    ['an unknown field', { priority: 'high' }, 400, 'invalid_request', /^body: /],
    ['a scheduled_at two minutes ago', { scheduled_at: 'PAST_2M' }, 422, 'invalid_schedule', /scheduled_at/],
  ])('refuses %s', async (_label, over, status, code, message) => {
    const body = bulk(over as Record<string, unknown>);
    if (body.scheduled_at === 'PAST_2M') body.scheduled_at = new Date(bed.c.clock.now().getTime() - 120_000).toISOString();

    const res = await post(body);

    expect(res.status).toBe(status);
    expect(res.body.error).toEqual({ code, message: expect.stringMatching(message), status });
    expect(fanOutJobs()).toHaveLength(0);
  });

  it('answers 403 to a read key', async () => {
    const res = await post(bulk(), bed.readKey);

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });
});

describe('fanout consumer', () => {
  it('accepts one message per unique recipient, skips suppressed ones and finishes as sent', async () => {
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'gone@example.com', reason: 'manual' });
    const recipients = ['ada@example.com', ' ADA@example.com', 'bob@example.com', 'Gone@example.com', 'not-an-address'].map((email) => ({ email }));
    const { body: broadcast } = await post(bulk({ recipients, from_email: 'Acme News <news@acme.test>', message_type: 'marketing' }));

    await runAll();

    expect(sendJobs()).toHaveLength(2);
    const ada = await messageTo(broadcast.id, 'ada@example.com');
    expect(ada).toMatchObject({ status: 'queued', from: 'Acme News <news@acme.test>', subject: 'News', body_html: '<p>News</p>', message_type: 'marketing', test_mode: false });
    expect(ada?.idempotency_key).toBe(`bulk_${broadcast.id}_ada@example.com`);
    expect((await messageTo(broadcast.id, 'gone@example.com'))?.status).toBe('suppressed');
    const res = await get(broadcast.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      broadcast: { ...broadcast, status: 'sent', total_recipients: 4, sent_count: 2, failed_count: 0, completed_at: bed.c.clock.now().toISOString() },
      // No send job ran yet: the stats' sent counts `sent` events (test/functions/broadcast-stats.test.ts).
      stats: { total: 4, sent: 0, delivered: 0, bounced: 0, complained: 0, opened: 0, failed: 0 },
    });
    expect(await stored(broadcast.id)).toMatchObject({ skipped_count: 2, chunks_done: new Set([0]), completed_at: expect.any(String) });
  });

  it('sends and counts nothing twice when a chunk job runs again, even after a crash before counting', async () => {
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'gone@example.com', reason: 'manual' });
    const { body: broadcast } = await post(bulk({ recipients: [...addresses(3), { email: 'gone@example.com' }] }));
    const [job] = fanOutJobs();
    const before = await stored(broadcast.id);

    await runJob(job);
    await runJob(job);
    const counted = await stored(broadcast.id);
    await bed.c.store.put(before as BroadcastItem); // as if the first run died after sending, before its count write
    await runJob(job);

    expect(jobMessages().size).toBe(3);
    expect(counted).toMatchObject({ status: 'sent', sent_count: 3, skipped_count: 1, failed_count: 0 });
    expect(await stored(broadcast.id)).toMatchObject({ status: 'sent', sent_count: 3, skipped_count: 1, failed_count: 0 });
  });

  it('counts a chunk once when two deliveries of its job run at the same time', async () => {
    const { body: broadcast } = await post(bulk({ recipients: addresses(5) }));
    const [job] = fanOutJobs();

    const results = await Promise.all([runJob(job), runJob(job)]);

    expect(results).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(jobMessages().size).toBe(5);
    expect(await stored(broadcast.id)).toMatchObject({ status: 'sent', sent_count: 5, failed_count: 0, skipped_count: 0, chunks_done: new Set([0]) });
  });

  it('stays sending until every chunk is counted, whatever their order', async () => {
    const { body: broadcast } = await post(bulk({ recipients: addresses(501) }));
    const [first, second] = fanOutJobs();

    await runJob(second);
    const halfway = await get(broadcast.id);
    await runJob(first);

    expect(halfway.body.broadcast).toMatchObject({ status: 'sending', sent_count: 1 });
    expect((await get(broadcast.id)).body.broadcast).toMatchObject({ status: 'sent', sent_count: 501, failed_count: 0 });
    expect(sendJobs()).toHaveLength(501);
  });

  it('counts per-recipient refusals as failed and finishes as failed when nothing was accepted', async () => {
    // No verified domain: the shared sender passes the sender rules, but sandbox mode refuses
    // every recipient that is not a verified test recipient.
    const sandboxed = await createAccount(bed.c, { email: 'solo@example.com' });
    const { body: broadcast } = await post(bulk({ from_email: 'onboarding@sandbox.test', recipients: addresses(2, 'example.org') }), sandboxed.admin_key);

    await runAll();

    const res = await get(broadcast.id, sandboxed.admin_key);
    expect(res.body.broadcast).toMatchObject({ status: 'failed', sent_count: 0, failed_count: 2 });
    expect(res.body.stats).toMatchObject({ total: 2, sent: 0, failed: 2 });
    expect(sendJobs()).toHaveLength(0);
  });

  it('finishes as sent when every recipient was suppressed', async () => {
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'ada@example.com', reason: 'manual' });
    const { body: broadcast } = await post(bulk({ recipients: [{ email: 'ada@example.com' }] }));

    await runAll();

    expect((await get(broadcast.id)).body.broadcast).toMatchObject({ status: 'sent', sent_count: 0, failed_count: 0 });
  });

  it('sends as the creating key: a test key makes test messages', async () => {
    const testKey = (await createKey(bed.c, bed.account.account_id, { scope: 'send', test_mode: true }, { testMode: true })).key;
    const { body: broadcast } = await post(bulk(), testKey);

    await runAll();

    expect((await messageTo(broadcast.id, 'ada@example.com'))?.test_mode).toBe(true);
  });

  it('schedules every message for scheduled_at instead of queueing it', async () => {
    const at = new Date(bed.c.clock.now().getTime() + 3600_000).toISOString();
    const { body: broadcast } = await post(bulk({ scheduled_at: at }));

    await runAll();

    expect(broadcast.scheduled_at).toBe(at);
    expect(sendJobs()).toHaveLength(0);
    expect((await messageTo(broadcast.id, 'bob@example.com'))?.status).toBe('scheduled');
    expect((await get(broadcast.id)).body.broadcast).toMatchObject({ status: 'sent', sent_count: 2 });
  });

  it('reports a malformed job as failed (for the DLQ) and drops a job naming no stored broadcast', async () => {
    const records = [sqsRecord('not json'), sqsRecord({ broadcast_id: 'x' })];
    const malformed = await fanOut(sqsEvent(records));
    const unknown = await runJob({ broadcast_id: 'bcast_01jz0000000000000000000000', account_id: bed.account.account_id, chunk: 0 });

    expect(malformed).toEqual({ batchItemFailures: records.map((r) => ({ itemIdentifier: r.messageId })) });
    expect(unknown).toEqual({ batchItemFailures: [] });
    const errors = bed.c.logs.filter((l) => l.level === 'error');
    expect(errors.filter((l) => l.msg === 'poison message on the fanout queue; it goes to the DLQ after its last receive').map((l) => l.recordId)).toEqual(
      records.map((r) => r.messageId),
    );
    expect(errors.map((l) => l.msg)).toContain('fanout job names no stored broadcast or chunk; dropped');
    expect(sendJobs()).toHaveLength(0);
  });
});

describe('GET /v1/broadcasts', () => {
  it('lists newest first, a page at a time', async () => {
    const first = await post(bulk({ name: 'first' }));
    bed.c.clock.advance(10);
    const second = await post(bulk({ name: 'second' }));

    const page1 = await list({ limit: '1' });
    const page2 = await list({ limit: '1', cursor: page1.body.next_cursor });

    expect(page1.status).toBe(200);
    expect(page1.body).toEqual({ broadcasts: [second.body], next_cursor: expect.any(String) });
    expect(page2.body).toEqual({ broadcasts: [first.body], next_cursor: null });
  });

  it('answers a send key as well as a read key', async () => {
    await post(bulk());

    expect((await list({}, bed.sendKey)).body.broadcasts).toHaveLength(1);
    expect((await list({}, bed.readKey)).body.broadcasts).toHaveLength(1);
  });
});

describe('GET /v1/broadcasts/{id}', () => {
  it('answers the broadcast with its stats before the fan-out ran', async () => {
    const { body: broadcast } = await post(bulk());

    const res = await get(broadcast.id, bed.sendKey);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ broadcast, stats: { total: 2, sent: 0, delivered: 0, bounced: 0, complained: 0, opened: 0, failed: 0 } });
  });

  it("answers 404 for another account's broadcast and for an id that names nothing", async () => {
    const { body: broadcast } = await post(bulk());
    const other = await createAccount(bed.c, { email: 'other@example.com' });

    const foreign = await get(broadcast.id, other.admin_key);
    const malformed = await get('nope');

    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toEqual({ code: 'not_found', message: 'broadcast not found', status: 404 });
    expect(malformed.status).toBe(404);
  });
});

describe('bulk send with template_id', () => {
  const template = {
    name: 'Monthly note',
    channel: 'email',
    subject: 'Hi {{ first_name }}',
    body_html: '<p>Hello {{ first_name }}, your plan is {{ plan }}.</p>',
    body_text: 'Hello {{ first_name }}, your plan is {{ plan }}.',
    variables: [
      { name: 'first_name', required: true, sample: 'Ada' },
      { name: 'plan', default_value: 'free' },
    ],
  };
  const makeTemplate = async (key = bed.sendKey, body: Record<string, unknown> = template): Promise<string> => {
    const res = await call({ method: 'POST', path: '/v1/templates', key, body });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const byTemplate = (templateId: string, recipients: unknown[], over: Record<string, unknown> = {}) =>
    bulk({ subject: undefined, body_html: undefined, body_text: undefined, name: undefined, template_id: templateId, recipients, ...over });

  it("renders each recipient's message with that recipient's own data and records the template and its version", async () => {
    const templateId = await makeTemplate();
    const recipients = [
      { email: 'ada@example.com', data: { first_name: 'Ada', plan: 'pro' } },
      { email: 'bob@example.com', data: { first_name: 'Bob' } },
      { email: ' ADA@example.com ', data: { first_name: 'Not Ada' } },
    ];

    const res = await post(byTemplate(templateId, recipients));
    await runAll();

    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ name: 'Monthly note', status: 'sending', total_recipients: 2 });
    const ada = await messageTo(res.body.id, 'ada@example.com');
    const bob = await messageTo(res.body.id, 'bob@example.com');
    expect(ada).toMatchObject({ status: 'queued', template_id: templateId, template_version: 1 });
    expect(await contentTo(res.body.id, 'ada@example.com')).toMatchObject({
      subject: 'Hi Ada',
      body_html: '<p>Hello Ada, your plan is pro.</p>',
      body_text: 'Hello Ada, your plan is pro.',
      template_id: templateId,
      template_version: 1,
    });
    expect(bob).toMatchObject({ template_id: templateId, template_version: 1 });
    expect(await contentTo(res.body.id, 'bob@example.com')).toMatchObject({ subject: 'Hi Bob', body_html: '<p>Hello Bob, your plan is free.</p>' });
    expect((await get(res.body.id)).body.broadcast).toMatchObject({ status: 'sent', sent_count: 2, failed_count: 0 });
  });

  it('counts a recipient whose data lacks a required variable as failed (missing_variable) and sends the others', async () => {
    const templateId = await makeTemplate();
    const recipients = [{ email: 'ada@example.com', data: { first_name: 'Ada' } }, { email: 'bob@example.com', data: { plan: 'pro' } }, { email: 'cy@example.com' }];
    const { body: broadcast } = await post(byTemplate(templateId, recipients));

    await runAll();

    expect(sendJobs()).toHaveLength(1);
    expect(await messageTo(broadcast.id, 'bob@example.com')).toBeUndefined();
    expect(await messageTo(broadcast.id, 'cy@example.com')).toBeUndefined();
    const res = await get(broadcast.id);
    expect(res.body.broadcast).toMatchObject({ status: 'sent', sent_count: 1, failed_count: 2 });
    expect(res.body.stats).toMatchObject({ total: 3, sent: 0, failed: 2 });
    // The consumer's log line names the per-recipient failure codes.
    const logged = bed.c.logs.filter((l) => l.msg === 'broadcast chunk sent' && (l.job as FanOutJob).broadcast_id === broadcast.id);
    expect(logged).toEqual([expect.objectContaining({ sent: 1, failed: 2, failures: { missing_variable: 2 } })]);
  });

  it("answers 404 template_not_found for another account's template, and 422 template_error for an inactive one, storing nothing", async () => {
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const foreign = await makeTemplate(other.admin_key);
    const inactive = await makeTemplate();
    expect((await call({ method: 'PUT', path: `/v1/templates/${inactive}`, key: bed.sendKey, body: { is_active: false } })).status).toBe(200);

    const notFound = await post(byTemplate(foreign, [{ email: 'ada@example.com', data: { first_name: 'Ada' } }]));
    const refused = await post(byTemplate(inactive, [{ email: 'ada@example.com', data: { first_name: 'Ada' } }]));

    expect(notFound.status).toBe(404);
    expect(notFound.body.error).toEqual({ code: 'template_not_found', message: `template ${foreign} not found`, status: 404 });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('template_error');
    expect(fanOutJobs()).toHaveLength(0);
    expect((await list()).body.broadcasts).toEqual([]);
  });

  it('refuses a recipient data over 16 KiB', async () => {
    const templateId = await makeTemplate();

    const res = await post(byTemplate(templateId, [{ email: 'ada@example.com', data: { first_name: 'x'.repeat(17_000) } }]));

    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^body\.recipients\.0\.data: /);
  });

  it('keeps rendering the version pinned at creation when the template is edited, deactivated or deleted mid-fan-out', async () => {
    const templateId = await makeTemplate();
    const recipients = addresses(1001).map((r, i) => ({ ...r, data: { first_name: `U${i}` } }));
    const { body: broadcast } = await post(byTemplate(templateId, recipients));
    const [first, second, third] = fanOutJobs();

    await runJob(first);
    const edit = await call({ method: 'PUT', path: `/v1/templates/${templateId}`, key: bed.sendKey, body: { subject: 'Changed {{ first_name }}', is_active: false } });
    await runJob(second);
    const removed = await call({ method: 'DELETE', path: `/v1/templates/${templateId}`, key: bed.sendKey });
    await runJob(third);

    expect(edit.status).toBe(200);
    expect(edit.body.version).toBe(2);
    expect(removed.status).toBe(200);
    expect(await contentTo(broadcast.id, 'user0@example.com')).toMatchObject({ subject: 'Hi U0', template_version: 1 });
    expect(await contentTo(broadcast.id, 'user500@example.com')).toMatchObject({ subject: 'Hi U500', template_id: templateId, template_version: 1 });
    expect(await contentTo(broadcast.id, 'user1000@example.com')).toMatchObject({ subject: 'Hi U1000', template_id: templateId, template_version: 1 });
    expect((await get(broadcast.id)).body.broadcast).toMatchObject({ status: 'sent', sent_count: 1001, failed_count: 0 });
  });

  it('splits recipients with large data into chunks that fit an item', async () => {
    const templateId = await makeTemplate();
    const recipients = addresses(60).map((r) => ({ ...r, data: { first_name: 'x'.repeat(15_000) } }));

    const { body: broadcast } = await post(byTemplate(templateId, recipients));

    const jobs = fanOutJobs();
    expect(jobs.length).toBeGreaterThan(1);
    const chunks = await Promise.all(jobs.map((j) => bed.c.store.get<RecipientChunkItem>(keys.broadcastRecipients(broadcast.id, j.chunk))));
    expect(chunks.flatMap((ch) => ch?.recipients ?? [])).toHaveLength(60);
    for (const ch of chunks) expect(ch?.data).toHaveLength(ch?.recipients.length ?? -1);
  });
});
