// One-click unsubscribe (issue 15.4), through the real handlers over the embedded store: the
// List-Unsubscribe headers the send worker gives marketing mail (and not transactional), the
// `{{ unsubscribe_url }}` of marketing templates and broadcasts, and the public link: a GET that
// changes nothing, the one-click POST that unsubscribes once, tokens that are changed or another
// account's, and pages that escape what they show.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { functionNamed } from '../../functions/manifest';
import { handler as unsubscribeHandler } from '../../functions/unsubscribe/http';
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { ContactRepository } from '../../shared/audiences/contacts/repository';
import { keys } from '../../shared/db/keys';
import type { MessageItem } from '../../shared/sending/messages/model';
import { MessageRepository } from '../../shared/sending/messages/repository';
import { readTimeline, workerEventId } from '../../shared/sending/messages/timeline';
import type { OutboundEmail } from '../../shared/ports/mailer';
import { findSuppression, suppress } from '../../shared/sending/suppressions/service';
import { unsubscribeToken } from '../../shared/sending/unsubscribe/token';
import { UNSUBSCRIBE_PLACEHOLDER } from '../../shared/sending/unsubscribe/variable';
import { createSubscription } from '../../shared/webhooks/subscriptions';
import { call } from '../support/api';
import { TEST_SECRETS } from '../support/container';
import { giveVerifiedDomain } from '../support/domains';
import { httpEvent } from '../support/events';
import { runningAs } from '../support/grants';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker, fanOut } from '../support/consumers';

const bed = useTestbed();

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const SECRET = TEST_SECRETS['unsubscribe-signing-key'];
let n = 0;

/** Accepts a send, runs the send worker on it, and answers the message id and what was mailed. */
async function sendAndDispatch(over: Record<string, unknown> = {}, key = bed.account.admin_key): Promise<{ id: string; mail: OutboundEmail }> {
  bed.c.clock.advance(150);
  const res = await call({
    method: 'POST',
    path: '/v1/send',
    key,
    body: {
      channel: 'email',
      idempotency_key: `unsub-${++n}`,
      message_type: 'marketing',
      destination: { email: 'ada@example.com' },
      payload: { subject: 'News', body_text: 'News of the month', body_html: '<p>News of the month</p>' },
      metadata: { from_email: 'Acme <news@acme.test>' },
      ...over,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const job = bed.c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === res.body.id);
  expect(await sendWorker(sqsEvent([sqsRecord(job?.body)]))).toEqual({ batchItemFailures: [] });
  const mail = bed.c.mailed.find((m) => m.messageId === res.body.id);
  if (!mail) throw new Error(`message ${res.body.id} was not mailed`);
  return { id: res.body.id, mail };
}

const header = (mail: OutboundEmail, name: string): string | undefined => mail.headers?.find((h) => h.name === name)?.value;

/** The token of the https link in the mail's List-Unsubscribe header. */
function tokenOf(mail: OutboundEmail): string {
  const match = /<http:\/\/api\.test\/v1\/unsubscribe\/([^>]+)>/.exec(header(mail, 'List-Unsubscribe') ?? '');
  if (!match) throw new Error(`no https link in ${header(mail, 'List-Unsubscribe')}`);
  return match[1]!;
}

interface Raw {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** The link as a client opens it: no key; the raw answer (JSON or a page). */
async function openLink(method: 'GET' | 'POST', token: string, options: { accept?: string; body?: string; contentType?: string } = {}): Promise<Raw> {
  bed.c.clock.advance(150);
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/x-www-form-urlencoded' };
  if (options.accept) headers.accept = options.accept;
  const event = httpEvent({ method, path: `/v1/unsubscribe/${encodeURIComponent(token)}`, rawBody: options.body, headers });
  const out = await runningAs.run(functionNamed('unsubscribe'), () =>
    (unsubscribeHandler as unknown as (e: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>)(event),
  );
  return { status: out.statusCode ?? 200, headers: (out.headers ?? {}) as Record<string, string>, text: out.body ?? '' };
}
const oneClick = (token: string, accept?: string) => openLink('POST', token, { body: 'List-Unsubscribe=One-Click', accept });
const json = (raw: Raw) => JSON.parse(raw.text);

function expectInvalidToken(raw: Raw): void {
  expect(raw.status).toBe(400);
  expect(json(raw)).toEqual({ error: { code: 'invalid_token', message: expect.any(String), status: 400 } });
}

async function createContact(email: string, key = bed.account.admin_key): Promise<string> {
  bed.c.clock.advance(150);
  const res = await call({ method: 'POST', path: '/v1/contacts', key, body: { email, first_name: 'Ada' } });
  expect(res.status).toBe(201);
  return res.body.id;
}
const contactOf = async (accountId: string, id: string) => new ContactRepository(bed.c.store).getContact(accountId, id);
const unsubscribedEvents = async (id: string) => (await readTimeline(bed.c.store, id)).events.filter((e) => e.type === 'unsubscribed');

describe('List-Unsubscribe headers', () => {
  it('are on every marketing email: the https link on the public origin, a mailto on the sending domain, and one-click', async () => {
    const { id, mail } = await sendAndDispatch();

    const token = tokenOf(mail);
    expect(token).toMatch(/^[0-9a-z]{26}\.[a-z2-7]{26}$/);
    expect(`msg_${token.split('.')[0]}`).toBe(id);
    expect(header(mail, 'List-Unsubscribe')).toBe(`<http://api.test/v1/unsubscribe/${token}>, <mailto:unsub+${token}@acme.test?subject=unsubscribe>`);
    expect(header(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    // A mailto local part may be at most 64 characters.
    expect(`unsub+${token}`.length).toBeLessThanOrEqual(64);
  });

  it('are on no transactional email, the default type included', async () => {
    const { mail: explicit } = await sendAndDispatch({ message_type: 'transactional' });
    const { mail: byDefault } = await sendAndDispatch({ message_type: undefined });

    expect(explicit.headers).toBeUndefined();
    expect(byDefault.headers).toBeUndefined();
  });

  it('name each message with its own token', async () => {
    const first = await sendAndDispatch();
    const second = await sendAndDispatch({ destination: { email: 'bob@example.com' } });

    expect(tokenOf(first.mail)).not.toBe(tokenOf(second.mail));
  });
});

describe('{{ unsubscribe_url }}', () => {
  async function template(body_html: string, body_text: string | null = null, variables?: unknown[]): Promise<string> {
    bed.c.clock.advance(150);
    const res = await call({
      method: 'POST',
      path: '/v1/templates',
      key: bed.account.admin_key,
      body: { name: `t${++n}`, channel: 'email', subject: 'Hi {{ first_name }}', body_html, ...(body_text ? { body_text } : {}), ...(variables ? { variables } : {}) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.id;
  }

  it('renders a marketing template with the link of its own message, the same link as its header, over any value sent for it', async () => {
    const id = await template('<p>Hi {{ first_name }}</p><a href="{{ unsubscribe_url }}">Unsubscribe</a>', 'Leave: {{ unsubscribe_url }}');

    const { mail } = await sendAndDispatch({ payload: {}, template_id: id, template_vars: { first_name: 'Ada', unsubscribe_url: 'https://evil.example/x' } });

    const link = `http://api.test/v1/unsubscribe/${tokenOf(mail)}`;
    expect(mail.text).toBe(`Leave: ${link}`);
    expect(mail.html).toContain(`href="${link}"`);
    expect(mail.html).not.toContain('evil.example');
  });

  it('is filled in the subject too, and in the text part made from the HTML when the template has none', async () => {
    bed.c.clock.advance(150);
    const made = await call({
      method: 'POST',
      path: '/v1/templates',
      key: bed.account.admin_key,
      body: { name: `t${++n}`, channel: 'email', subject: 'Leave at {{ unsubscribe_url }}', body_html: '<p>News</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>' },
    });
    expect(made.status).toBe(201);

    const { mail } = await sendAndDispatch({ payload: {}, template_id: made.body.id });

    const link = `http://api.test/v1/unsubscribe/${tokenOf(mail)}`;
    expect(mail.subject).toBe(`Leave at ${link}`);
    expect(mail.text).toContain(link);
    expect(JSON.stringify(mail)).not.toContain(UNSUBSCRIBE_PLACEHOLDER);
  });

  it('is not provided to a transactional template: the value sent is used, and none renders empty', async () => {
    const id = await template('<p>Hi {{ first_name }}</p><a href="{{ unsubscribe_url }}">Preferences</a>', 'Prefs: [{{ unsubscribe_url }}]');

    const given = await sendAndDispatch({ message_type: 'transactional', payload: {}, template_id: id, template_vars: { first_name: 'Ada', unsubscribe_url: 'https://acme.test/prefs' } });
    const none = await sendAndDispatch({ message_type: 'transactional', payload: {}, template_id: id, template_vars: { first_name: 'Ada' } });

    expect(given.mail.text).toBe('Prefs: [https://acme.test/prefs]');
    expect(none.mail.text).toBe('Prefs: []');
    expect(none.mail.html).not.toContain('/v1/unsubscribe/');
  });

  it('satisfies a template that declares it required, on marketing sends only', async () => {
    const id = await template('<a href="{{ unsubscribe_url }}">Unsubscribe</a> {{ first_name }}', null, [{ name: 'first_name' }, { name: 'unsubscribe_url', required: true }]);

    const marketing = await sendAndDispatch({ payload: {}, template_id: id, template_vars: { first_name: 'Ada' } });
    bed.c.clock.advance(150);
    const transactional = await call({
      method: 'POST',
      path: '/v1/send',
      key: bed.account.admin_key,
      body: { channel: 'email', idempotency_key: `unsub-${++n}`, destination: { email: 'ada@example.com' }, payload: {}, template_id: id, template_vars: { first_name: 'Ada' }, metadata: { from_email: 'news@acme.test' } },
    });

    expect(marketing.mail.html).toContain(`href="http://api.test/v1/unsubscribe/${tokenOf(marketing.mail)}"`);
    expect(transactional.status).toBe(400);
    expect(transactional.body.error.code).toBe('missing_variable');
  });

  it('needs no listing in a template that lists its variables', async () => {
    const id = await template('<p>Hi {{ first_name }}</p><a href="{{ unsubscribe_url }}">Unsubscribe</a>', 'Leave: {{ unsubscribe_url }}', [{ name: 'first_name', required: true }]);

    const { mail } = await sendAndDispatch({ payload: {}, template_id: id, template_vars: { first_name: 'Ada' } });

    expect(mail.text).toBe(`Leave: http://api.test/v1/unsubscribe/${tokenOf(mail)}`);
  });

  it('gives each recipient of a marketing template broadcast their own link', async () => {
    const id = await template('<p>Hi {{ first_name }}</p><a href="{{ unsubscribe_url }}">Unsubscribe</a>', 'Leave: {{ unsubscribe_url }}');
    bed.c.clock.advance(150);
    const res = await call({
      method: 'POST',
      path: '/v1/send/bulk',
      key: bed.account.admin_key,
      body: { from_email: 'news@acme.test', template_id: id, message_type: 'marketing', recipients: [{ email: 'ada@example.com', data: { first_name: 'Ada' } }, { email: 'bob@example.com', data: { first_name: 'Bob' } }] },
    });
    expect(res.status).toBe(202);

    await drain(bed.c.sent, 'fanout', fanOut);
    await drain(bed.c.sent, 'send', sendWorker);

    expect(bed.c.mailed).toHaveLength(2);
    for (const mail of bed.c.mailed) expect(mail.text).toBe(`Leave: http://api.test/v1/unsubscribe/${tokenOf(mail)}`);
    expect(new Set(bed.c.mailed.map(tokenOf)).size).toBe(2);
  });
});

describe('GET /v1/unsubscribe/{token}', () => {
  it('changes nothing: no suppression, no event, the contact as it was', async () => {
    const contactId = await createContact('ada@example.com');
    const before = await contactOf(bed.account.account_id, contactId);
    const { id, mail } = await sendAndDispatch();

    const asJson = await openLink('GET', tokenOf(mail));
    const asPage = await openLink('GET', tokenOf(mail), { accept: BROWSER_ACCEPT });

    expect(asJson.status).toBe(200);
    expect(json(asJson)).toEqual({ channel: 'email', recipient: 'ada@example.com', unsubscribed: false });
    expect(asPage.status).toBe(200);
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'ada@example.com')).toBeUndefined();
    expect(await unsubscribedEvents(id)).toEqual([]);
    expect(await contactOf(bed.account.account_id, contactId)).toEqual(before);
  });

  it('shows a browser a page whose button POSTs to the link itself, with no scripts, referrer or caching', async () => {
    const { mail } = await sendAndDispatch();

    const page = await openLink('GET', tokenOf(mail), { accept: BROWSER_ACCEPT });

    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("form-action 'self'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.text).toMatch(/<form method="post">/);
    expect(page.text).not.toMatch(/<script|action=/i);
    expect(page.text).toContain('<strong>ada@example.com</strong>');
  });

  it('says so when the recipient is unsubscribed already', async () => {
    const { mail } = await sendAndDispatch();
    await oneClick(tokenOf(mail));

    const asJson = await openLink('GET', tokenOf(mail));
    const asPage = await openLink('GET', tokenOf(mail), { accept: BROWSER_ACCEPT });

    expect(json(asJson)).toEqual({ channel: 'email', recipient: 'ada@example.com', unsubscribed: true });
    expect(asPage.text).toContain('You are unsubscribed');
    expect(asPage.text).not.toContain('<form');
  });
});

describe('POST /v1/unsubscribe/{token}', () => {
  it('unsubscribes in one click: the suppression, the contact, one unsubscribed event, and no webhook', async () => {
    // Prepare: a contact with the address, and a subscription to every webhook type.
    const contactId = await createContact('ada@example.com');
    const http = bed.c.http;
    bed.c.http = new GuardedHttp({ allowPrivate: true });
    await createSubscription(bed.c, bed.account.account_id, { endpoint_url: 'http://127.0.0.1:9/all' }).finally(() => (bed.c.http = http));
    const { id, mail } = await sendAndDispatch();
    bed.c.sent.length = 0;

    // Act
    const res = await oneClick(tokenOf(mail));

    // Assess
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(json(res)).toEqual({ channel: 'email', recipient: 'ada@example.com', unsubscribed: true });
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'ada@example.com')).toMatchObject({ state: 'unsubscribed', reason: 'unsubscribed' });
    expect(await contactOf(bed.account.account_id, contactId)).toMatchObject({ unsubscribed: true });
    const { message, events } = await readTimeline(bed.c.store, id);
    expect(events.filter((e) => e.type === 'unsubscribed')).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^evt_/), type: 'unsubscribed', source: 'worker', payload: { via: 'one_click' }, account_id: bed.account.account_id, message_id: id }),
    ]);
    expect(message?.status).toBe('unsubscribed');
    expect(bed.c.sent.filter((s) => s.queue === 'webhooks')).toEqual([]);
  });

  it('shows the listing and the message the same way the API does, and blocks the next send', async () => {
    const { id, mail } = await sendAndDispatch();
    await oneClick(tokenOf(mail));

    const listed = await call({ method: 'GET', path: '/v1/suppressions', key: bed.account.admin_key });
    const shown = await call({ method: 'GET', path: `/v1/messages/${id}`, key: bed.account.admin_key });
    bed.c.clock.advance(150);
    const next = await call({
      method: 'POST',
      path: '/v1/send',
      key: bed.account.admin_key,
      body: { channel: 'email', idempotency_key: `unsub-${++n}`, destination: { email: 'ada@example.com' }, payload: { subject: 's', body_text: 't' }, metadata: { from_email: 'news@acme.test' } },
    });

    expect(listed.body.suppressions).toEqual([expect.objectContaining({ channel: 'email', recipient: 'ada@example.com', state: 'unsubscribed', reason: 'unsubscribed' })]);
    expect(shown.body.events.map((e: { type: string }) => e.type)).toEqual(['sent', 'unsubscribed']);
    expect(next.status).toBe(409);
    expect(next.body.error.code).toBe('recipient_suppressed');
  });

  it.each([
    ['an empty body', undefined, undefined, 'link'],
    ['our page’s form', 'confirm=yes', 'application/x-www-form-urlencoded', 'link'],
    ['RFC 8058 as multipart', '--b\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--b--\r\n', 'multipart/form-data; boundary=b', 'one_click'],
    ['a JSON body', '{"x":1}', 'application/json', 'link'],
  ])('accepts %s', async (_label, body, contentType, via) => {
    const { id, mail } = await sendAndDispatch();

    const res = await openLink('POST', tokenOf(mail), { body, contentType });

    expect(res.status).toBe(200);
    expect((await unsubscribedEvents(id)).map((e) => e.payload)).toEqual([{ via }]);
  });

  it('is idempotent: a repeat answers 200 and changes nothing', async () => {
    const contactId = await createContact('ada@example.com');
    const { id, mail } = await sendAndDispatch();
    await oneClick(tokenOf(mail));
    const suppression = await findSuppression(bed.c.store, bed.account.account_id, 'email', 'ada@example.com');
    const contact = await contactOf(bed.account.account_id, contactId);
    const message = await bed.c.store.get<MessageItem>(keys.message(id));

    const again = await oneClick(tokenOf(mail));
    const fromPage = await openLink('POST', tokenOf(mail), { accept: BROWSER_ACCEPT });

    expect(again.status).toBe(200);
    expect(json(again)).toEqual({ channel: 'email', recipient: 'ada@example.com', unsubscribed: true });
    expect(fromPage.status).toBe(200);
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'ada@example.com')).toEqual(suppression);
    expect(await contactOf(bed.account.account_id, contactId)).toEqual(contact);
    expect(await bed.c.store.get<MessageItem>(keys.message(id))).toEqual(message);
    expect(await unsubscribedEvents(id)).toHaveLength(1);
  });

  it('answers two at once as one: both 200, one event', async () => {
    const { id, mail } = await sendAndDispatch();

    const [a, b] = await Promise.all([oneClick(tokenOf(mail)), oneClick(tokenOf(mail))]);

    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await unsubscribedEvents(id)).toHaveLength(1);
  });

  it('finishes what a request that died after the suppression left: the contact and the event', async () => {
    // Prepare: the suppression written, then the request died.
    const contactId = await createContact('ada@example.com');
    const { id, mail } = await sendAndDispatch();
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'ada@example.com', state: 'unsubscribed', reason: 'unsubscribed' });

    // Act: the link is used again.
    const res = await oneClick(tokenOf(mail));

    // Assess
    expect(res.status).toBe(200);
    expect(await contactOf(bed.account.account_id, contactId)).toMatchObject({ unsubscribed: true });
    expect(await unsubscribedEvents(id)).toHaveLength(1);
    expect((await bed.c.store.get<MessageItem>(keys.message(id)))?.status).toBe('unsubscribed');
  });

  it('finishes what a request that died after storing the event left: the status move', async () => {
    // Prepare: everything written but the message's status.
    const { id, mail } = await sendAndDispatch();
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'ada@example.com', state: 'unsubscribed', reason: 'unsubscribed' });
    const at = bed.c.clock.now().toISOString();
    await new MessageRepository(bed.c.store).addEvent({
      id: 'evt_01jabcdefghjkmnpqrstvwxyz0',
      type: 'unsubscribed',
      message_id: id,
      account_id: bed.account.account_id,
      source: 'worker',
      provider_event_id: workerEventId(id, 'unsubscribed'),
      payload: { via: 'one_click' },
      occurred_at: at,
      created_at: at,
    });
    expect((await bed.c.store.get<MessageItem>(keys.message(id)))?.status).toBe('sent');

    // Act
    const res = await oneClick(tokenOf(mail));

    // Assess
    expect(res.status).toBe(200);
    expect(await bed.c.store.get<MessageItem>(keys.message(id))).toMatchObject({ status: 'unsubscribed', status_at: at });
    expect(await unsubscribedEvents(id)).toEqual([expect.objectContaining({ id: 'evt_01jabcdefghjkmnpqrstvwxyz0' })]);
  });

  it('turns a suppression for another reason into unsubscribed', async () => {
    const { mail } = await sendAndDispatch({ destination: { email: 'bob@example.com' } });
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'bob@example.com', reason: 'hard bounce' });

    await oneClick(tokenOf(mail));

    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'bob@example.com')).toMatchObject({ state: 'unsubscribed', reason: 'unsubscribed' });
  });

  it('shows a browser the done page', async () => {
    const { mail } = await sendAndDispatch();

    const page = await oneClick(tokenOf(mail), BROWSER_ACCEPT);

    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('You are unsubscribed');
  });

  it('takes the token in any case (a mailto local part may be folded)', async () => {
    const { id, mail } = await sendAndDispatch();

    const res = await oneClick(tokenOf(mail).toUpperCase());

    expect(res.status).toBe(200);
    expect(await unsubscribedEvents(id)).toHaveLength(1);
  });
});

describe('tokens that are not valid', () => {
  /** The token with one character of its signature changed. */
  const tampered = (token: string): string => `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`;

  it('answer 400 invalid_token and change nothing when changed in any way', async () => {
    const { id, mail } = await sendAndDispatch();
    const token = tokenOf(mail);
    const [ulid, mac] = token.split('.') as [string, string];
    const otherId = (await sendAndDispatch({ destination: { email: 'bob@example.com' } })).id;

    const cases = [
      tampered(token),
      `${otherId.slice(4)}.${mac}`, // another message of the account, this signature
      `${ulid}.${mac.slice(0, -1)}`,
      `${ulid}${mac}`,
      'not-a-token',
      `${token}.${mac}`,
      'a'.repeat(200),
      '%00',
    ];
    for (const bad of cases) {
      expectInvalidToken(await openLink('POST', bad, { body: 'List-Unsubscribe=One-Click' }));
      expectInvalidToken(await openLink('GET', bad));
    }

    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'ada@example.com')).toBeUndefined();
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'bob@example.com')).toBeUndefined();
    expect(await unsubscribedEvents(id)).toEqual([]);
  });

  it('past any length a path id may have (256), is 404 not_found like every route’s', async () => {
    const res = await openLink('POST', 'a'.repeat(300), { body: 'List-Unsubscribe=One-Click' });

    expect(res.status).toBe(404);
    expect(json(res).error.code).toBe('not_found');
  });

  it('answer a browser with the invalid-link page, 400', async () => {
    const { mail } = await sendAndDispatch();

    const page = await openLink('GET', tampered(tokenOf(mail)), { accept: BROWSER_ACCEPT });
    const posted = await oneClick(tampered(tokenOf(mail)), BROWSER_ACCEPT);

    for (const raw of [page, posted]) {
      expect(raw.status).toBe(400);
      expect(raw.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(raw.text).toContain('Link not valid');
    }
  });

  it('include a well-signed token of a transactional message: no link is ever issued for one', async () => {
    const { id } = await sendAndDispatch({ message_type: 'transactional' });
    const forged = unsubscribeToken(SECRET, { id, account_id: bed.account.account_id, channel: 'email', recipient: 'ada@example.com' });

    expectInvalidToken(await oneClick(forged));
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'ada@example.com')).toBeUndefined();
  });

  it('include one signed with another key', async () => {
    const { id } = await sendAndDispatch();
    const forged = unsubscribeToken('another-key', { id, account_id: bed.account.account_id, channel: 'email', recipient: 'ada@example.com' });

    expectInvalidToken(await oneClick(forged));
  });
});

describe('another account', () => {
  it('is never touched: a token binds its own message, account and recipient', async () => {
    // Prepare: both accounts know ada@example.com as a contact; the other account mails her.
    const other = await createAccount(bed.c, { email: 'other@example.org' });
    await giveVerifiedDomain(bed.c, other.account_id, 'other.test');
    const mine = await createContact('ada@example.com');
    const theirs = await createContact('ada@example.com', other.admin_key);
    const { id: myMessage, mail: myMail } = await sendAndDispatch();
    const { id: theirMessage, mail: theirMail } = await sendAndDispatch({ metadata: { from_email: 'news@other.test' } }, other.admin_key);
    const forged = `${myMessage.slice(4)}.${tokenOf(theirMail).split('.')[1]}`;

    // Act: their link, and my message with their signature.
    expectInvalidToken(await oneClick(forged));
    const res = await oneClick(tokenOf(theirMail));

    // Assess
    expect(res.status).toBe(200);
    expect(await findSuppression(bed.c.store, other.account_id, 'email', 'ada@example.com')).toMatchObject({ state: 'unsubscribed' });
    expect(await contactOf(other.account_id, theirs)).toMatchObject({ unsubscribed: true });
    expect(await unsubscribedEvents(theirMessage)).toHaveLength(1);
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'ada@example.com')).toBeUndefined();
    expect(await contactOf(bed.account.account_id, mine)).toMatchObject({ unsubscribed: false });
    expect(await unsubscribedEvents(myMessage)).toEqual([]);
    expect(tokenOf(myMail)).not.toBe(tokenOf(theirMail));
  });
});

describe('the pages', () => {
  it('escape the account name and the address they show', async () => {
    const named = await createAccount(bed.c, { email: 'owner@example.org', name: '<script>alert(1)</script> & "Sons"' });
    await giveVerifiedDomain(bed.c, named.account_id, 'sons.test');
    const { mail } = await sendAndDispatch({ destination: { email: "o'brien@example.com" }, metadata: { from_email: 'news@sons.test' } }, named.admin_key);

    const page = await openLink('GET', tokenOf(mail), { accept: BROWSER_ACCEPT });
    const done = await oneClick(tokenOf(mail), BROWSER_ACCEPT);

    for (const raw of [page, done]) {
      expect(raw.text).not.toContain('<script>');
      expect(raw.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;Sons&quot;');
      expect(raw.text).toContain('o&#39;brien@example.com');
      expect(raw.text).not.toContain("o'brien");
    }
  });
});
