// Open and click tracking (issue 32 item 2), through the real handlers over the embedded store:
// the domain's switches (PATCH /v1/domains/{domain}), the decision stored at acceptance, the send
// worker's rewriting as the local runtime mails, and the public pixel and click routes with the
// spec's status moves, their webhooks and the broadcast stats. AWS's side (the tracked SES
// configuration set) is in test/cdk/tracking.test.ts and test/adapters.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import type { FanOutJob } from '../../shared/audiences/broadcasts/messages';
import { keys } from '../../shared/db/keys';
import { dispatch } from '../../shared/sending/messages/dispatch';
import type { MessageItem } from '../../shared/sending/messages/model';
import { readTimeline } from '../../shared/sending/messages/timeline';
import type { OutboundEmail } from '../../shared/ports/mailer';
import { trackToken } from '../../shared/sending/tracking/token';
import { createSubscription } from '../../shared/webhooks/subscriptions';
import { call, callRaw } from '../support/api';
import { TEST_SECRETS, type TestContainer } from '../support/container';
import { giveVerifiedDomain } from '../support/domains';
import { bounceNotification, deliveryNotification, snsWrap } from '../support/ses-events';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker, fanOut, ingestSesEvent as ingest } from '../support/consumers';

const bed = useTestbed();
let c: TestContainer;
beforeEach(() => {
  c = bed.c;
});

const SECRET = TEST_SECRETS['unsubscribe-signing-key'];
const HTML = '<html><body><p>Hi <a href="https://shop.example/sale?a=1&amp;b=2">sale</a>, <a href=\'http://example.org/x\'>x</a>, <a href="mailto:help@acme.test">help</a></p></body></html>';
let n = 0;

const setTracking = (body: Record<string, unknown>, domain = 'acme.test', key = bed.account.admin_key) =>
  bed.request({ method: 'PATCH', path: `/v1/domains/${domain}`, key, body });

/** Accepts one send; answers its stored message. */
async function accept(over: Record<string, unknown> = {}, key = bed.account.admin_key): Promise<MessageItem> {
  const res = await bed.request({
    method: 'POST',
    path: '/v1/send',
    key,
    body: {
      channel: 'email',
      idempotency_key: `trk-${++n}`,
      destination: { email: 'ada@example.com' },
      payload: { subject: 'News', body_html: HTML, body_text: 'News https://shop.example/sale' },
      metadata: { from_email: 'news@acme.test' },
      ...over,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return (await c.store.get<MessageItem>(keys.message(res.body.id)))!;
}

/** Runs the send worker on the message's job; answers what was mailed. */
async function mail(message: MessageItem): Promise<OutboundEmail> {
  const job = c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === message.id);
  expect(await sendWorker(sqsEvent([sqsRecord(job?.body)]))).toEqual({ batchItemFailures: [] });
  return c.mailed.find((m) => m.messageId === message.id)!;
}

/** SES's Delivery for the message, through the ses-events consumer. */
async function deliver(message: MessageItem): Promise<void> {
  const stored = (await c.store.get<MessageItem>(keys.message(message.id)))!;
  c.clock.advance(100);
  const at = c.clock.now().toISOString();
  const notification = deliveryNotification({ providerMessageId: stored.provider_message_id!, recipient: stored.recipient, messageId: stored.id, accountId: stored.account_id }, { at });
  expect(await ingest(sqsEvent([sqsRecord(snsWrap(notification))]))).toEqual({ batchItemFailures: [] });
}

const linksOf = (html: string): string[] => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));
const pixelOf = (html: string): string => /<img src="([^"]+)"/.exec(html)![1]!;

/** Follows a link as a mail client does: no key, the raw answer. */
async function follow(url: string, headers: Record<string, string> = { 'user-agent': 'Mail/1.0' }): Promise<APIGatewayProxyStructuredResultV2> {
  c.clock.advance(150);
  const parsed = new URL(url);
  expect(parsed.origin).toBe('http://api.test');
  return callRaw({ method: 'GET', path: parsed.pathname, query: Object.fromEntries(parsed.searchParams), headers, sourceIp: '203.0.113.9' });
}
const errorOf = (raw: APIGatewayProxyStructuredResultV2) => JSON.parse(raw.body ?? '{}').error;
const timeline = async (id: string) => readTimeline(c.store, id);
const statusOf = async (id: string) => (await call({ method: 'GET', path: `/v1/messages/${id}`, key: bed.account.admin_key })).body.status;

describe('PATCH /v1/domains/{domain}', () => {
  it('sets open_tracking and click_tracking, each only when sent, and every domain view shows them', async () => {
    const before = await bed.request({ method: 'GET', path: '/v1/domains/acme.test', key: bed.account.admin_key });
    const opens = await setTracking({ open_tracking: true });
    const clicks = await setTracking({ click_tracking: true });
    const off = await setTracking({ open_tracking: false });
    const list = await bed.request({ method: 'GET', path: '/v1/domains', key: bed.account.admin_key });

    expect(before.body).toMatchObject({ open_tracking: false, click_tracking: false });
    expect(opens.status).toBe(200);
    expect(opens.body).toMatchObject({ domain: 'acme.test', open_tracking: true, click_tracking: false });
    expect(clicks.body).toMatchObject({ open_tracking: true, click_tracking: true });
    expect(off.body).toMatchObject({ open_tracking: false, click_tracking: true });
    expect(list.body.domains.map((d: { sandbox: boolean; open_tracking: boolean; click_tracking: boolean }) => [d.sandbox, d.open_tracking, d.click_tracking])).toEqual([
      [true, false, false],
      [false, false, true],
    ]);
  });

  it.each([
    ['a value that is not a boolean', { open_tracking: 'yes' }],
    ['a field it does not know', { tls: 'enforced' }],
    ['no object', ['open_tracking']],
  ])('refuses %s with 400 invalid_request', async (_name, body) => {
    const res = await setTracking(body as Record<string, unknown>);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', status: 400 });
  });

  it('answers 404 for an unknown domain, the sandbox domain and another account’s domain, which stays as it was', async () => {
    const other = await createAccount(c, { email: 'other@example.com' });
    await giveVerifiedDomain(c, other.account_id, 'other.test');

    for (const domain of ['nowhere.test', c.config.sharedEmailSender.split('@')[1]!, 'other.test']) {
      const res = await setTracking({ open_tracking: true }, domain);
      expect(res.status, domain).toBe(404);
      expect(res.body.error).toEqual({ code: 'not_found', message: expect.any(String), status: 404 });
    }
    const theirs = await bed.request({ method: 'GET', path: '/v1/domains/other.test', key: other.admin_key });
    expect(theirs.body).toMatchObject({ open_tracking: false, click_tracking: false });
  });
});

describe('the tracking decision, stored at acceptance', () => {
  it('leaves transactional mail untracked unless the send asks, whatever the domain says', async () => {
    await setTracking({ open_tracking: true, click_tracking: true });
    expect((await accept()).tracking).toBeUndefined();
    expect((await accept({ message_type: 'transactional' })).tracking).toBeUndefined();
    expect((await accept({ tracking: { opens: true } })).tracking).toBe('opens');
    expect((await accept({ tracking: { opens: true, clicks: true } })).tracking).toBe('both');
  });

  it('tracks marketing mail as its domain says, and a send’s own choice wins', async () => {
    expect((await accept({ message_type: 'marketing' })).tracking).toBeUndefined();
    await setTracking({ open_tracking: true, click_tracking: true });
    expect((await accept({ message_type: 'marketing' })).tracking).toBe('both');
    expect((await accept({ message_type: 'marketing', tracking: { clicks: false } })).tracking).toBe('opens');
    expect((await accept({ message_type: 'marketing', tracking: { opens: false, clicks: false } })).tracking).toBeUndefined();
  });

  it('never tracks a test-mode send (nothing is mailed to follow)', async () => {
    const test = await call({ method: 'POST', path: '/v1/keys', key: bed.account.admin_key, body: { scope: 'send', test_mode: true } });
    expect((await accept({ tracking: { opens: true, clicks: true } }, test.body.key)).tracking).toBeUndefined();
  });

  it('refuses a tracking value that is not an object of booleans, per item of a batch', async () => {
    const res = await bed.request({ method: 'POST', path: '/v1/send', key: bed.account.admin_key, body: { channel: 'email', idempotency_key: 'bad-tracking', destination: { email: 'a@example.com' }, payload: { subject: 's', body_text: 't' }, tracking: { opens: 'yes' } } });
    const batch = await bed.request({
      method: 'POST',
      path: '/v1/send/batch',
      key: bed.account.admin_key,
      body: [
        { channel: 'email', idempotency_key: 'b-1', destination: { email: 'a@example.com' }, payload: { subject: 's', body_html: HTML }, metadata: { from_email: 'news@acme.test' }, tracking: { clicks: true } },
        { channel: 'email', idempotency_key: 'b-2', destination: { email: 'a@example.com' }, payload: { subject: 's', body_text: 't' }, tracking: { pixels: true } },
      ],
    });

    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('tracking');
    expect(batch.status).toBe(200);
    expect(batch.body[0].success).toBe(true);
    expect((await c.store.get<MessageItem>(keys.message(batch.body[0].response.id)))?.tracking).toBe('clicks');
    expect(batch.body[1]).toMatchObject({ success: false, error: { code: 'invalid_request', status: 400 } });
  });
});

describe('the send worker, as the local runtime mails', () => {
  it('rewrites each http(s) link of the HTML part to a signed click link and appends the open pixel; the text part and other links stay', async () => {
    const sent = await mail(await accept({ tracking: { opens: true, clicks: true } }));

    const links = linksOf(sent.html!);
    expect(links[0]).toMatch(/^http:\/\/api\.test\/v1\/t\/c\/[0-9a-z]{26}\.[A-Za-z0-9_-]{22}\?url=https%3A%2F%2Fshop\.example%2Fsale%3Fa%3D1%26b%3D2$/);
    expect(new URL(links[1]!).searchParams.get('url')).toBe('http://example.org/x');
    expect(links[2]).toBe('mailto:help@acme.test');
    expect(pixelOf(sent.html!)).toMatch(/^http:\/\/api\.test\/v1\/t\/o\/[0-9a-z]{26}\.[A-Za-z0-9_-]{22}$/);
    expect(sent.html).toMatch(/<img [^>]+><\/body><\/html>$/);
    expect(sent.text).toBe('News https://shop.example/sale');
    expect(sent.tracking).toBeUndefined();
  });

  it('tracks only what was chosen, and leaves untracked mail and the unsubscribe link as they were', async () => {
    const opens = await mail(await accept({ tracking: { opens: true } }));
    const clicks = await mail(await accept({ tracking: { clicks: true } }));
    const none = await mail(await accept());
    const marketing = await mail(await accept({ message_type: 'marketing', tracking: { clicks: true }, payload: { subject: 'S', body_html: '<a href="{{ unsubscribe_url }}">x</a>' } }));

    expect(linksOf(opens.html!)[0]).toBe('https://shop.example/sale?a=1&b=2');
    expect(opens.html).toContain('/v1/t/o/');
    expect(clicks.html).not.toContain('/v1/t/o/');
    expect(linksOf(clicks.html!)[0]).toContain('/v1/t/c/');
    expect(none.html).toBe(HTML);
    expect(marketing.html).toBe('<a href="{{ unsubscribe_url }}">x</a>');
  });

  it('in AWS leaves the HTML to SES and names the message’s choice for the configuration set', async () => {
    const message = await accept({ tracking: { opens: true, clicks: true } });
    const mailed: OutboundEmail[] = [];
    const deps = { ...c, config: { ...c.config, runtime: 'aws' as const }, mailer: { send: async (e: OutboundEmail) => (mailed.push(e), { providerMessageId: 'ses-1' }) } };

    expect(await dispatch(deps, { message_id: message.id, account_id: message.account_id }, { finalAttempt: false })).toBe('sent');
    expect(mailed).toEqual([expect.objectContaining({ html: HTML, tracking: 'both' })]);
  });
});

describe('GET /v1/t/o/{token} and GET /v1/t/c/{token}', () => {
  it('records opened then clicked (each may repeat) with IP and user agent, moves the status as the spec’s table says, and redirects to the signed link', async () => {
    const message = await accept({ tracking: { opens: true, clicks: true } });
    const sent = await mail(message);
    await deliver(message);

    const pixel = await follow(pixelOf(sent.html!));
    expect(await statusOf(message.id)).toBe('opened');
    const again = await follow(pixelOf(sent.html!));
    const click = await follow(linksOf(sent.html!)[0]!);
    const afterClick = await statusOf(message.id);
    await follow(pixelOf(sent.html!));

    expect(pixel.statusCode).toBe(200);
    expect(pixel.headers).toMatchObject({ 'content-type': 'image/gif', 'cache-control': 'no-store, max-age=0' });
    expect(Buffer.from(pixel.body!, 'base64').subarray(0, 6).toString('latin1')).toBe('GIF89a');
    expect(again.statusCode).toBe(200);
    expect(click.statusCode).toBe(302);
    expect(click.headers).toMatchObject({ location: 'https://shop.example/sale?a=1&b=2', 'cache-control': 'no-store, max-age=0' });
    expect(afterClick).toBe('clicked');
    // An open after the click joins the timeline; the status stays clicked.
    expect(await statusOf(message.id)).toBe('clicked');
    const events = (await call({ method: 'GET', path: `/v1/messages/${message.id}`, key: bed.account.admin_key })).body.events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['sent', 'delivered', 'opened', 'opened', 'clicked', 'opened']);
    expect(events[2]).toMatchObject({ source: 'ses', payload: { notificationType: 'Open', open: { ipAddress: '203.0.113.9', userAgent: 'Mail/1.0' } } });
    expect(events[4]).toMatchObject({ payload: { notificationType: 'Click', click: { ipAddress: '203.0.113.9', userAgent: 'Mail/1.0', link: 'https://shop.example/sale?a=1&b=2' } } });
  });

  it('hands opened and clicked to the webhooks queue like any event', async () => {
    const http = c.http;
    c.http = new GuardedHttp({ allowPrivate: true });
    await createSubscription(c, bed.account.account_id, { endpoint_url: 'http://127.0.0.1:9/hooks', event_types: ['opened', 'clicked'] }).finally(() => (c.http = http));
    const message = await accept({ tracking: { opens: true, clicks: true } });
    const sent = await mail(message);
    c.sent.length = 0;

    await follow(pixelOf(sent.html!));
    await follow(linksOf(sent.html!)[1]!);

    const hooks = c.sent.filter((s) => s.queue === 'webhooks').map((s) => (s.body as { envelope: { event_type: string; message_id: string } }).envelope);
    expect(hooks.map((h) => [h.event_type, h.message_id])).toEqual([
      ['opened', message.id],
      ['clicked', message.id],
    ]);
  });

  it('records an open of a bounced message without moving its terminal status', async () => {
    const message = await accept({ tracking: { opens: true } });
    const sent = await mail(message);
    const stored = (await c.store.get<MessageItem>(keys.message(message.id)))!;
    const bounce = bounceNotification({ providerMessageId: stored.provider_message_id!, recipient: stored.recipient, messageId: stored.id, accountId: stored.account_id }, { at: c.clock.now().toISOString() });
    expect(await ingest(sqsEvent([sqsRecord(snsWrap(bounce))]))).toEqual({ batchItemFailures: [] });

    expect((await follow(pixelOf(sent.html!))).statusCode).toBe(200);

    expect(await statusOf(message.id)).toBe('bounced');
    expect((await timeline(message.id)).events.map((e) => e.type)).toContain('opened');
  });

  it('answers 404 to a malformed, changed or misused token and to a changed link, and records nothing', async () => {
    const message = await accept({ tracking: { opens: true, clicks: true } });
    const sent = await mail(message);
    const click = new URL(linksOf(sent.html!)[0]!);
    const token = click.pathname.split('/').pop()!;
    const flipped = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const openToken = pixelOf(sent.html!).split('/').pop()!;
    const cases: Array<[string, string]> = [
      ['not a token', 'http://api.test/v1/t/o/not-a-token'],
      ['a changed open token', `http://api.test/v1/t/o/${flipped}`],
      ['a click token as the pixel', `http://api.test/v1/t/o/${token}`],
      ['an open token as a link', `http://api.test/v1/t/c/${openToken}?url=${encodeURIComponent('https://shop.example/sale?a=1&b=2')}`],
      ['another link', `http://api.test/v1/t/c/${token}?url=${encodeURIComponent('https://evil.example/')}`],
      ['no link', `http://api.test/v1/t/c/${token}`],
      ['a very long token', `http://api.test/v1/t/o/${'a'.repeat(300)}`],
    ];

    for (const [name, url] of cases) {
      const raw = await follow(url);
      expect(raw.statusCode, name).toBe(404);
      expect(errorOf(raw), name).toEqual({ code: 'not_found', message: expect.any(String), status: 404 });
    }
    expect((await timeline(message.id)).events.map((e) => e.type)).toEqual(['sent']);
  });

  it('answers 404 for a message that does not track that kind, and another account’s message is never touched', async () => {
    const untracked = await accept();
    await mail(untracked);
    const opensOnly = await accept({ tracking: { opens: true } });
    await mail(opensOnly);
    const other = await createAccount(c, { email: 'other@example.com' });
    await giveVerifiedDomain(c, other.account_id, 'other.test');
    const theirs = await accept({ tracking: { opens: true }, metadata: { from_email: 'news@other.test' } }, other.admin_key);
    await mail(theirs);
    // A token signed for our message but naming theirs, and one for theirs claiming our account.
    const swapped = `${theirs.id.slice(4)}.${trackToken(SECRET, 'open', untracked).split('.')[1]}`;
    const forged = trackToken(SECRET, 'open', { id: theirs.id, account_id: bed.account.account_id });

    expect((await follow(`http://api.test/v1/t/o/${trackToken(SECRET, 'open', untracked)}`)).statusCode).toBe(404);
    expect((await follow(`http://api.test/v1/t/c/${trackToken(SECRET, 'click', opensOnly, 'https://a.example/')}?url=https%3A%2F%2Fa.example%2F`)).statusCode).toBe(404);
    expect((await follow(`http://api.test/v1/t/o/${swapped}`)).statusCode).toBe(404);
    expect((await follow(`http://api.test/v1/t/o/${forged}`)).statusCode).toBe(404);
    for (const m of [untracked, opensOnly, theirs]) expect((await timeline(m.id)).events.map((e) => e.type)).toEqual(['sent']);
  });
});

describe('broadcasts', () => {
  it('track as the domain says, and their stats count a message’s opens once', async () => {
    await setTracking({ open_tracking: true, click_tracking: true });
    const res = await bed.request({ method: 'POST', path: '/v1/send/bulk', key: bed.account.admin_key, body: { from_email: 'news@acme.test', subject: 'News', body_html: HTML, recipients: [{ email: 'ada@example.com' }, { email: 'bob@example.com' }] } });
    expect(res.status).toBe(202);
    await drain(c.sent, 'fanout', fanOut, { where: (body: FanOutJob) => body.broadcast_id === res.body.id });
    await drain(c.sent, 'send', sendWorker);
    const ada = c.mailed.find((m) => m.to === 'ada@example.com')!;

    await follow(pixelOf(ada.html!));
    await follow(pixelOf(ada.html!));

    const stats = await bed.request({ method: 'GET', path: `/v1/broadcasts/${res.body.id}`, key: bed.account.admin_key });
    expect(stats.body.stats).toMatchObject({ total: 2, sent: 2, opened: 1 });
    expect(c.mailed.filter((m) => m.html?.includes('/v1/t/o/'))).toHaveLength(2);
  });

  it('take a tracking override for every message', async () => {
    await setTracking({ open_tracking: true, click_tracking: true });
    const res = await bed.request({ method: 'POST', path: '/v1/send/bulk', key: bed.account.admin_key, body: { from_email: 'news@acme.test', subject: 'News', body_html: HTML, tracking: { opens: false, clicks: false }, recipients: [{ email: 'ada@example.com' }] } });
    await drain(c.sent, 'fanout', fanOut, { where: (body: FanOutJob) => body.broadcast_id === res.body.id });
    await drain(c.sent, 'send', sendWorker);

    expect(c.mailed.find((m) => m.to === 'ada@example.com')?.html).toBe(HTML);
  });

  it('keep a draft’s tracking as PATCH /v1/broadcasts/{id} last set it', async () => {
    await setTracking({ open_tracking: true, click_tracking: true });
    const draft = await bed.request({ method: 'POST', path: '/v1/broadcasts', key: bed.account.admin_key, body: { from_email: 'news@acme.test', subject: 'News', body_html: HTML, tracking: { opens: false }, recipients: [{ email: 'ada@example.com' }] } });
    const patched = await bed.request({ method: 'PATCH', path: `/v1/broadcasts/${draft.body.id}`, key: bed.account.admin_key, body: { tracking: { clicks: false } } });
    const bad = await bed.request({ method: 'PATCH', path: `/v1/broadcasts/${draft.body.id}`, key: bed.account.admin_key, body: { tracking: { clicks: 1 } } });
    const started = await bed.request({ method: 'POST', path: `/v1/broadcasts/${draft.body.id}/send`, key: bed.account.admin_key });
    await drain(c.sent, 'fanout', fanOut, { where: (body: FanOutJob) => body.broadcast_id === draft.body.id });
    await drain(c.sent, 'send', sendWorker);

    expect([draft.status, patched.status, bad.status, started.status]).toEqual([201, 200, 400, 202]);
    const html = c.mailed.find((m) => m.to === 'ada@example.com')?.html ?? '';
    expect(html).toContain('/v1/t/o/');
    expect(html).not.toContain('/v1/t/c/');
  });
});
