// Hosted sign-up forms end to end through the handler: managing a form behind a key, the public
// config, page and sign-up, and the double opt-in link, over the embedded store.
import { createHash } from 'node:crypto';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { functionNamed } from '../../functions/manifest';
import { handler } from '../../functions/forms/http';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { createKey } from '../../shared/accounts/api-keys/service';
import { ContactClaimRepository } from '../../shared/audiences/contacts/claims-repository';
import { keys } from '../../shared/db/keys';
import { PermanentSendError } from '../../shared/ports/mailer';
import { TEST_SECRETS } from '../support/container';
import { httpEvent, type HttpEventInput } from '../support/events';
import { runningAs } from '../support/grants';
import { useTestbed } from '../support/testbed';

const bed = useTestbed({ scopedKeys: true });

const request = bed.request;
const admin = () => bed.account.admin_key;
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const FORM_POST = 'application/x-www-form-urlencoded';
let ipCounter = 0;
const nextIp = (): string => `203.0.113.${(++ipCounter % 250) + 1}`;

/** The raw answer (HTML pages are not JSON), run under the forms function's manifest needs. */
async function raw(input: HttpEventInput): Promise<APIGatewayProxyStructuredResultV2> {
  bed.c.clock.advance(150);
  return runningAs.run(functionNamed('forms'), () => handler(httpEvent(input)));
}

const createList = async (type: 'static' | 'dynamic' = 'static', key = admin()): Promise<string> => {
  const body = type === 'static' ? { name: 'Newsletter', type } : { name: 'Pro', type, filter: { match: 'all', conditions: [{ field: 'data.plan', op: 'eq', value: 'pro' }] } };
  const res = await request({ method: 'POST', path: '/v1/lists', key, body });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const create = (body: unknown, key = admin()) => request({ method: 'POST', path: '/v1/forms', key, body });
const get = (id: string, key = admin()) => request({ method: 'GET', path: `/v1/forms/${id}`, key });
const list = (query: Record<string, string> = {}, key = admin()) => request({ method: 'GET', path: '/v1/forms', key, query });
const replace = (id: string, body: unknown, key = admin()) => request({ method: 'PUT', path: `/v1/forms/${id}`, key, body });
const remove = (id: string, key = admin()) => request({ method: 'DELETE', path: `/v1/forms/${id}`, key });
const config = (id: string, headers: Record<string, string> = {}) => request({ method: 'GET', path: `/v1/forms/${id}/config`, headers });
const submit = (id: string, body: unknown) => request({ method: 'POST', path: `/v1/forms/${id}/submit`, body });
const submitForm = (id: string, fields: Record<string, string>, accept = BROWSER_ACCEPT) =>
  raw({ method: 'POST', path: `/v1/forms/${id}/submit`, rawBody: new URLSearchParams(fields).toString(), headers: { 'content-type': FORM_POST, accept } });
const confirm = (token: unknown) => request({ method: 'POST', path: '/v1/forms/confirm', body: { token } });
const describeLink = (token: string) => request({ method: 'GET', path: '/v1/forms/confirm', query: { token } });

const FIELDS = [
  { key: 'email', label: 'Email address' },
  { key: 'first_name', label: 'First name', required: true },
  { key: 'last_name', label: 'Last name' },
  { key: 'data.company', label: 'Company' },
];

async function makeForm(overrides: Record<string, unknown> = {}): Promise<{ id: string; listId: string }> {
  const listId = (overrides.list_id as string | undefined) ?? (await createList());
  const res = await create({ name: 'Newsletter', list_id: listId, fields: FIELDS, ...overrides });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, listId };
}

const contactByEmail = async (email: string) => (await request({ method: 'GET', path: '/v1/contacts', key: admin(), query: { email } })).body.contacts as any[];
const memberCount = async (listId: string) => (await request({ method: 'GET', path: `/v1/lists/${listId}`, key: admin() })).body.member_count as number;
const members = async (listId: string) => (await request({ method: 'GET', path: `/v1/lists/${listId}/members`, key: admin() })).body.contacts as any[];

/** The token of the n-th confirmation mail (the newest by default). */
function tokenOf(index = bed.c.mailed.length - 1): string {
  const text = bed.c.mailed[index]?.text ?? '';
  const match = /\/v1\/forms\/confirm\?token=([0-9A-Za-z]+)/.exec(text);
  if (!match) throw new Error(`no link in mail ${index}: ${text}`);
  return match[1] as string;
}

function expectError(res: { status: number; body: any }, status: number, code: string, message?: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.body.error).toEqual({ code, message: expect.any(String), status });
  if (message) expect(res.body.error.message).toMatch(message);
}

describe('POST /v1/forms', () => {
  it('creates a form bound to a static list, email first, with its public URLs on the configured origin', async () => {
    const listId = await createList();

    const res = await request({
      method: 'POST',
      path: '/v1/forms',
      key: admin(),
      body: { name: ' Newsletter ', list_id: listId, fields: [{ key: 'first_name', label: 'First name', required: true }, { key: 'data.company', label: 'Company' }] },
      headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'javascript' },
    });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^frm_[0-9a-z]{26}$/),
      name: 'Newsletter',
      list_id: listId,
      fields: [
        { key: 'email', label: 'Email', required: true },
        { key: 'first_name', label: 'First name', required: true },
        { key: 'data.company', label: 'Company', required: false },
      ],
      double_opt_in: false,
      redirect_url: null,
      title: null,
      description: null,
      submit_label: 'Subscribe',
      success_message: null,
      language: 'en',
      page_url: `http://api.test/v1/forms/${res.body.id}/page`,
      config_url: `http://api.test/v1/forms/${res.body.id}/config`,
      submit_url: `http://api.test/v1/forms/${res.body.id}/submit`,
      created_at: bed.c.clock.now().toISOString(),
      updated_at: bed.c.clock.now().toISOString(),
    });
  });

  it('keeps every setting it is given', async () => {
    const listId = await createList();
    const body = {
      name: 'Launch',
      list_id: listId,
      fields: FIELDS,
      double_opt_in: true,
      redirect_url: 'https://example.com/thanks?from=form',
      title: 'Hear about the launch',
      description: 'One mail a month.',
      submit_label: 'Join',
      success_message: 'Nearly there!',
      language: 'de-CH',
    };

    const res = await create(body);

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ ...body, fields: FIELDS.map((f) => ({ required: false, ...f, ...(f.key === 'email' ? { required: true } : {}) })) });
  });

  it.each([
    ['no name', { list_id: 'LIST' }, /body\.name/],
    ['a blank name', { name: '  ', list_id: 'LIST' }, /body\.name/],
    ['no list', { name: 'x' }, /body\.list_id/],
    ['an unknown field', { name: 'x', list_id: 'LIST', colour: 'red' }, /colour/],
    ['a plain-http redirect', { name: 'x', list_id: 'LIST', redirect_url: 'http://example.com/' }, /body\.redirect_url/],
    ['a javascript: redirect', { name: 'x', list_id: 'LIST', redirect_url: 'javascript:alert(1)' }, /body\.redirect_url/],
    ['a redirect with credentials', { name: 'x', list_id: 'LIST', redirect_url: 'https://user:pw@example.com/' }, /body\.redirect_url/],
    ['a field key that is not a contact field', { name: 'x', list_id: 'LIST', fields: [{ key: 'phone', label: 'Phone' }] }, /body\.fields\.0\.key/],
    ['a bad data key', { name: 'x', list_id: 'LIST', fields: [{ key: 'data.my key', label: 'x' }] }, /body\.fields\.0\.key/],
    ['a field twice', { name: 'x', list_id: 'LIST', fields: [{ key: 'first_name', label: 'a' }, { key: 'first_name', label: 'b' }] }, /body\.fields\.1\.key/],
    ['email not required', { name: 'x', list_id: 'LIST', fields: [{ key: 'email', label: 'Email', required: false }] }, /body\.fields\.0\.required/],
    ['a blank label', { name: 'x', list_id: 'LIST', fields: [{ key: 'first_name', label: ' ' }] }, /body\.fields\.0\.label/],
    ['no fields', { name: 'x', list_id: 'LIST', fields: [] }, /body\.fields/],
    ['21 fields', { name: 'x', list_id: 'LIST', fields: Array.from({ length: 21 }, (_, i) => ({ key: `data.k${i}`, label: `K${i}` })) }, /body\.fields/],
    ['20 data fields and the email it adds', { name: 'x', list_id: 'LIST', fields: Array.from({ length: 20 }, (_, i) => ({ key: `data.k${i}`, label: `K${i}` })) }, /body\.fields/],
    ['a bad language tag', { name: 'x', list_id: 'LIST', language: 'english please' }, /body\.language/],
    ['double_opt_in not a boolean', { name: 'x', list_id: 'LIST', double_opt_in: 'yes' }, /body\.double_opt_in/],
    ['not an object', ['x'], /body/],
  ])('refuses %s with 400 naming the field', async (_case, template, message) => {
    const listId = await createList();
    const body = JSON.parse(JSON.stringify(template).replaceAll('LIST', listId));

    expectError(await create(body), 400, 'invalid_request', message);
  });

  it('answers 404 for a list the account does not have, another account\'s included, and 422 for a dynamic list', async () => {
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const theirs = await createList('static', other.admin_key);
    const dynamic = await createList('dynamic');

    expectError(await create({ name: 'x', list_id: 'lst_01jzzzzzzzzzzzzzzzzzzzzzzz' }), 404, 'not_found');
    expectError(await create({ name: 'x', list_id: theirs }), 404, 'not_found');
    expectError(await create({ name: 'x', list_id: dynamic }), 422, 'invalid_request', /dynamic/);
  });

  it('takes send and admin keys, not read keys, and live keys only', async () => {
    const listId = await createList();

    expect((await create({ name: 'x', list_id: listId }, bed.sendKey)).status).toBe(201);
    expectError(await create({ name: 'x', list_id: listId }, bed.readKey), 403, 'forbidden');
    expectError(await create({ name: 'x', list_id: listId }, bed.account.test_admin_key), 403, 'forbidden', /live key/);
    expectError(await create({ name: 'x', list_id: listId }, 'sk_live_' + 'x'.repeat(40)), 401, 'unauthorized');
  });
});

describe('GET /v1/forms and GET /v1/forms/{id}', () => {
  it('lists the account\'s forms newest first, page by page, and never another account\'s', async () => {
    const first = await makeForm();
    const second = await makeForm();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const theirList = await createList('static', other.admin_key);
    expect((await create({ name: 'theirs', list_id: theirList }, other.admin_key)).status).toBe(201);

    const page1 = await list({ limit: '1' }, bed.readKey);
    const page2 = await list({ limit: '1', cursor: page1.body.next_cursor });

    expect(page1.status).toBe(200);
    expect(page1.body.forms.map((f: any) => f.id)).toEqual([second.id]);
    expect(page2.body.forms.map((f: any) => f.id)).toEqual([first.id]);
    expect(page2.body.next_cursor).toBeNull();
    expectError(await list({ cursor: 'not-a-cursor' }), 400, 'invalid_request');
  });

  it('reads one form with any scope and a test key; another account\'s or an unknown id is 404', async () => {
    const { id } = await makeForm();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const testKey = (await createKey(bed.c, bed.account.account_id, { scope: 'read', test_mode: true }, { testMode: true })).key;

    expect((await get(id, bed.readKey)).body.id).toBe(id);
    expect((await get(id, testKey)).status).toBe(200);
    expectError(await get(id, other.admin_key), 404, 'not_found');
    expectError(await get('frm_01jzzzzzzzzzzzzzzzzzzzzzzz'), 404, 'not_found');
    expectError(await get('not-a-form-id'), 404, 'not_found');
  });
});

describe('PUT /v1/forms/{id}', () => {
  it('replaces the whole form: what the body leaves out goes back to its default; id, URLs and created_at stay', async () => {
    const { id, listId } = await makeForm({ double_opt_in: true, redirect_url: 'https://example.com/', title: 'T', submit_label: 'Join' });
    const before = (await get(id)).body;
    const newList = await createList();

    const res = await replace(id, { name: 'Renamed', list_id: newList });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...before,
      name: 'Renamed',
      list_id: newList,
      fields: [{ key: 'email', label: 'Email', required: true }],
      double_opt_in: false,
      redirect_url: null,
      title: null,
      submit_label: 'Subscribe',
      updated_at: bed.c.clock.now().toISOString(),
    });
    expect((await get(id)).body).toEqual(res.body);
    expect(listId).not.toBe(newList);
  });

  it('answers 404 for another account\'s or an unknown form, 404 for a missing list, 422 for a dynamic one, 400 for a bad body, 403 for a read key', async () => {
    const { id, listId } = await makeForm();
    const other = await createAccount(bed.c, { email: 'other@example.com' });

    expectError(await replace(id, { name: 'x', list_id: listId }, other.admin_key), 404, 'not_found');
    expectError(await replace('frm_01jzzzzzzzzzzzzzzzzzzzzzzz', { name: 'x', list_id: listId }), 404, 'not_found');
    expectError(await replace(id, { name: 'x', list_id: 'lst_01jzzzzzzzzzzzzzzzzzzzzzzz' }), 404, 'not_found');
    expectError(await replace(id, { name: 'x', list_id: await createList('dynamic') }), 422, 'invalid_request');
    expectError(await replace(id, { list_id: listId }), 400, 'invalid_request', /body\.name/);
    expectError(await replace(id, { name: 'x', list_id: listId }, bed.readKey), 403, 'forbidden');
    expect((await get(id)).body.name).toBe('Newsletter');
  });
});

describe('DELETE /v1/forms/{id}', () => {
  it('deletes the form: its page, config and sign-ups answer 404 from then on; a second delete is 404', async () => {
    const { id } = await makeForm();

    expect((await remove(id)).status).toBe(204);

    expectError(await get(id), 404, 'not_found');
    expectError(await config(id), 404, 'not_found');
    expectError(await submit(id, { email: 'a@example.com', first_name: 'A' }), 404, 'not_found');
    expect((await raw({ method: 'GET', path: `/v1/forms/${id}/page` })).statusCode).toBe(404);
    expectError(await remove(id), 404, 'not_found');
  });

  it('answers 404 for another account\'s form and leaves it', async () => {
    const { id } = await makeForm();
    const other = await createAccount(bed.c, { email: 'other@example.com' });

    expectError(await remove(id, other.admin_key), 404, 'not_found');
    expectError(await remove(id, bed.readKey), 403, 'forbidden');
    expect((await get(id)).status).toBe(200);
  });
});

describe('GET /v1/forms/{id}/config', () => {
  it('answers what an embed needs, readable from any origin, without the list', async () => {
    const { id } = await makeForm({ double_opt_in: true, description: 'Monthly.' });

    const res = await config(id, { origin: 'https://shop.example' });

    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toEqual({
      id,
      title: 'Newsletter',
      description: 'Monthly.',
      language: 'en',
      fields: FIELDS.map((f) => ({ required: f.key === 'email', ...f })),
      submit_label: 'Subscribe',
      success_message: 'Almost done: check your inbox and follow the link to confirm your subscription.',
      double_opt_in: true,
      honeypot_field: 'website',
      submit_url: `http://api.test/v1/forms/${id}/submit`,
      page_url: `http://api.test/v1/forms/${id}/page`,
    });
  });

  it('answers 404 in the envelope, readable from any origin, for an unknown or malformed id', async () => {
    for (const id of ['frm_01jzzzzzzzzzzzzzzzzzzzzzzz', 'nope', 'x'.repeat(200)]) {
      const res = await config(id);
      expectError(res, 404, 'not_found');
      expect(res.headers['access-control-allow-origin']).toBe('*');
    }
  });
});

describe('GET /v1/forms/{id}/page', () => {
  it('is an accessible page that works without JavaScript: lang, labelled inputs, a hidden honeypot, a plain post to the configured origin', async () => {
    const { id } = await makeForm({ language: 'fr', title: 'Les <nouvelles>' });

    const res = await raw({ method: 'GET', path: `/v1/forms/${id}/page`, headers: { accept: BROWSER_ACCEPT, host: 'evil.example' } });
    const page = res.body ?? '';

    expect(res.statusCode).toBe(200);
    expect(res.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers?.['content-security-policy']).toMatch(/default-src 'none'/);
    expect(res.headers?.['content-security-policy']).toMatch(/form-action 'self' http:\/\/api\.test/);
    expect(page).toMatch(/^<!doctype html>\n<html lang="fr">/);
    expect(page).toContain('<title>Les &lt;nouvelles&gt;</title>');
    expect(page).toContain('<h1>Les &lt;nouvelles&gt;</h1>');
    expect(page).not.toContain('<script');
    expect(page).toContain(`<form method="post" action="http://api.test/v1/forms/${id}/submit">`);
    expect(page).not.toContain('evil.example');
    // Every visible input has a label bound to it by id.
    const inputs = [...page.matchAll(/<input id="([^"]+)" name="([^"]+)"([^>]*)>/g)];
    expect(inputs.map((m) => m[2])).toEqual(['email', 'first_name', 'last_name', 'data.company', 'website']);
    for (const [, inputId] of inputs) expect(page).toContain(`<label for="${inputId}">`);
    expect(page).toMatch(/<label for="field-0">Email address \(required\)<\/label><input id="field-0" name="email" type="email" autocomplete="email" required>/);
    expect(page).toMatch(/<input id="field-1" name="first_name" type="text" autocomplete="given-name" required>/);
    expect(page).toMatch(/<input id="field-2" name="last_name" type="text" autocomplete="family-name">/);
    // The honeypot sits in a `hidden` container: out of sight, of the accessibility tree and of the tab order.
    expect(page).toMatch(/<div hidden><label for="website-field">[^<]+<\/label><input id="website-field" name="website" type="text" tabindex="-1" autocomplete="off"><\/div>/);
    expect(page).toContain('<button type="submit">Subscribe</button>');
  });

  it('lets the form post redirect to the redirect_url\'s origin', async () => {
    const { id } = await makeForm({ redirect_url: 'https://shop.example/thanks' });

    const res = await raw({ method: 'GET', path: `/v1/forms/${id}/page` });

    expect(res.headers?.['content-security-policy']).toMatch(/form-action 'self' http:\/\/api\.test https:\/\/shop\.example/);
  });

  it('answers an unknown form with a page for a browser and the envelope otherwise', async () => {
    const browser = await raw({ method: 'GET', path: '/v1/forms/frm_01jzzzzzzzzzzzzzzzzzzzzzzz/page', headers: { accept: BROWSER_ACCEPT } });
    const program = await raw({ method: 'GET', path: '/v1/forms/frm_01jzzzzzzzzzzzzzzzzzzzzzzz/page' });

    expect(browser.statusCode).toBe(404);
    expect(browser.body).toContain('<html lang="en">');
    expect(program.statusCode).toBe(404);
    expect(JSON.parse(program.body ?? '').error.code).toBe('not_found');
  });
});

describe('POST /v1/forms/{id}/submit without double opt-in', () => {
  it('creates the contact with the given names and data and adds it to the list at once', async () => {
    const { id, listId } = await makeForm();

    const res = await submit(id, { email: ' Ada@Example.COM ', first_name: 'Ada', last_name: 'Lovelace', data: { company: 'Engines' } });

    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'subscribed', message: 'Thank you for subscribing.' });
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const [contact] = await contactByEmail('ada@example.com');
    expect(contact).toMatchObject({ email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', data: { company: 'Engines' }, list_ids: [listId], unsubscribed: false });
    expect(await memberCount(listId)).toBe(1);
    expect(bed.c.mailed).toHaveLength(0);
  });

  it('never makes a second contact or membership, submitted twice in a row or at once', async () => {
    const { id, listId } = await makeForm();

    expect((await submit(id, { email: 'ada@example.com', first_name: 'Ada' })).status).toBe(202);
    expect((await submit(id, { email: 'ada@example.com', first_name: 'Ada' })).status).toBe(202);
    const together = await Promise.all([1, 2, 3].map(() => submit(id, { email: 'grace@example.com', first_name: 'Grace' })));

    expect(together.map((r) => r.status)).toEqual([202, 202, 202]);
    expect(await contactByEmail('ada@example.com')).toHaveLength(1);
    expect(await contactByEmail('grace@example.com')).toHaveLength(1);
    expect((await members(listId)).map((m) => m.email).sort()).toEqual(['ada@example.com', 'grace@example.com']);
    expect(await memberCount(listId)).toBe(2);
  });

  it('answers 503 with Retry-After while the address is claimed by a contact another request has not written, and signs up once the claim is stale', async () => {
    const { id, listId } = await makeForm();
    // What a create that died after its claim leaves: the address held by a contact that does not exist.
    await new ContactClaimRepository(bed.c.store).claimEmail(bed.account.account_id, 'ada@example.com', 'ctc_01jzzzzzzzzzzzzzzzzzzzzzzz', bed.c.clock.now().getTime());

    const busy = await submit(id, { email: 'ada@example.com', first_name: 'Ada' });
    expectError(busy, 503, 'service_unavailable');
    expect(busy.headers['retry-after']).toBe('1');
    bed.c.clock.advance(61_000);
    expect((await submit(id, { email: 'ada@example.com', first_name: 'Ada' })).status).toBe(202);

    expect(await contactByEmail('ada@example.com')).toHaveLength(1);
    expect(await memberCount(listId)).toBe(1);
  });

  it('updates an existing contact: given names replace, data keys merge, unsubscribed stays', async () => {
    const { id, listId } = await makeForm();
    const made = await request({
      method: 'POST',
      path: '/v1/contacts',
      key: admin(),
      body: { email: 'ada@example.com', first_name: 'A.', last_name: 'Lovelace', data: { plan: 'pro' }, unsubscribed: true },
    });

    expect((await submit(id, { email: 'ada@example.com', first_name: 'Ada', data: { company: 'Engines' } })).status).toBe(202);

    const [contact] = await contactByEmail('ada@example.com');
    expect(contact).toMatchObject({ id: made.body.id, first_name: 'Ada', last_name: 'Lovelace', data: { plan: 'pro', company: 'Engines' }, unsubscribed: true, list_ids: [listId] });
  });

  it('takes a browser\'s form post and answers a thank-you page, or a 303 to the redirect_url', async () => {
    const plain = await makeForm({ success_message: 'Welcome <aboard>!' });
    const redirecting = await makeForm({ redirect_url: 'https://shop.example/thanks' });

    const page = await submitForm(plain.id, { email: 'ada@example.com', first_name: 'Ada', 'data.company': 'Engines', website: '' });
    const moved = await submitForm(redirecting.id, { email: 'grace@example.com', first_name: 'Grace' });

    expect(page.statusCode).toBe(202);
    expect(page.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('Welcome &lt;aboard&gt;!');
    expect(moved.statusCode).toBe(303);
    expect(moved.headers?.location).toBe('https://shop.example/thanks');
    expect((await contactByEmail('ada@example.com'))[0]).toMatchObject({ data: { company: 'Engines' }, list_ids: [plain.listId] });
    expect((await contactByEmail('grace@example.com'))[0]).toMatchObject({ list_ids: [redirecting.listId] });
  });

  it('answers JSON to a form-encoded post that asks for JSON, and reads multipart too', async () => {
    const { id, listId } = await makeForm();
    const form = new FormData();
    form.append('email', 'grace@example.com');
    form.append('first_name', 'Grace');
    const multipart = new Request('http://x', { method: 'POST', body: form });
    const multipartBody = Buffer.from(await multipart.arrayBuffer());

    const encoded = await submitForm(id, { email: 'ada@example.com', first_name: 'Ada' }, 'application/json');
    const fromFormData = await raw({
      method: 'POST',
      path: `/v1/forms/${id}/submit`,
      rawBody: multipartBody.toString('base64'),
      base64: true,
      headers: { 'content-type': multipart.headers.get('content-type')! },
    });

    expect(encoded.statusCode).toBe(202);
    expect(JSON.parse(encoded.body ?? '')).toEqual({ status: 'subscribed', message: 'Thank you for subscribing.' });
    expect(fromFormData.statusCode).toBe(202);
    expect(await memberCount(listId)).toBe(2);
  });

  it('answers a filled honeypot like a success and stores nothing', async () => {
    const { id, listId } = await makeForm();

    const json = await submit(id, { email: 'bot@example.com', first_name: 'Bot', website: 'https://spam.example' });
    const page = await submitForm(id, { email: 'bot2@example.com', first_name: 'Bot', website: 'x' });

    expect(json.status).toBe(202);
    expect(json.body).toEqual({ status: 'subscribed', message: 'Thank you for subscribing.' });
    expect(page.statusCode).toBe(202);
    expect(await contactByEmail('bot@example.com')).toEqual([]);
    expect(await contactByEmail('bot2@example.com')).toEqual([]);
    expect(await memberCount(listId)).toBe(0);
  });

  it.each([
    ['a missing required field', { email: 'ada@example.com' }, /body\.first_name: First name is required/],
    ['a blank required field', { email: 'ada@example.com', first_name: '   ' }, /body\.first_name/],
    ['no email', { first_name: 'Ada' }, /body\.email: Email address is required/],
    ['not an address', { email: 'not-an-address', first_name: 'Ada' }, /body\.email: .*not a valid email address/],
    ['an input the form lacks', { email: 'ada@example.com', first_name: 'Ada', phone: '1' }, /body\.phone: not a field of this form/],
    ['a data key the form lacks', { email: 'ada@example.com', first_name: 'Ada', data: { plan: 'pro' } }, /body\.data\.plan: not a field of this form/],
    ['a name past 200 characters', { email: 'ada@example.com', first_name: 'A'.repeat(201) }, /body\.first_name/],
    ['a data value past 500 characters', { email: 'ada@example.com', first_name: 'Ada', data: { company: 'x'.repeat(501) } }, /body\.data\.company/],
    ['a number', { email: 'ada@example.com', first_name: 7 }, /body\.first_name: must be a string/],
    ['data not an object', { email: 'ada@example.com', first_name: 'Ada', data: 'x' }, /body\.data/],
    ['a data value not a string', { email: 'ada@example.com', first_name: 'Ada', data: { company: 1 } }, /body\.data\.company/],
    ['not an object', ['ada@example.com'], /body/],
  ])('refuses %s with 400 naming it, and stores nothing', async (_case, body, message) => {
    const { id, listId } = await makeForm();

    expectError(await submit(id, body), 400, 'invalid_request', message);
    expect(await memberCount(listId)).toBe(0);
  });

  it('refuses malformed bodies with 400', async () => {
    const { id } = await makeForm();
    const send = (rawBody: string | undefined, contentType: string) =>
      request({ method: 'POST', path: `/v1/forms/${id}/submit`, rawBody, headers: { 'content-type': contentType } });

    expectError(await send('{', 'application/json'), 400, 'invalid_request', /malformed JSON/);
    expectError(await send(undefined, 'application/json'), 400, 'invalid_request', /sign-up is required/);
    expectError(await send('email=a%40example.com&email=b%40example.com', FORM_POST), 400, 'invalid_request', /body\.email: given more than once/);
    expectError(await send('--x\r\nbroken', 'multipart/form-data; boundary=x'), 400, 'invalid_request');
    expectError(await send('1e999', 'application/json'), 400, 'invalid_request');
  });

  it('shows a refused browser post the form again, with an error summary, the values kept (escaped) and the bad inputs marked', async () => {
    const { id } = await makeForm();

    const res = await submitForm(id, { email: 'not-an-address', first_name: '', 'data.company': '"><script>x</script>' });
    const page = res.body ?? '';

    expect(res.statusCode).toBe(400);
    expect(res.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(page).toContain('<title>Error: Newsletter</title>');
    expect(page).toMatch(/<div class="summary" role="alert"/);
    expect(page).toContain('<li><a href="#field-0">Email address is not a valid email address</a></li>');
    expect(page).toContain('<li><a href="#field-1">First name is required</a></li>');
    expect(page).toMatch(/<input id="field-0" name="email" [^>]*value="not-an-address" aria-invalid="true" aria-describedby="field-0-error">/);
    expect(page).toContain('<p class="error" id="field-0-error">');
    expect(page).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(page).not.toContain('<script>');
  });

  it('answers 404 for an unknown form, and for a form whose list was deleted (a page for a browser)', async () => {
    const { id, listId } = await makeForm();
    expect((await request({ method: 'DELETE', path: `/v1/lists/${listId}`, key: admin() })).status).toBe(204);

    expectError(await submit('frm_01jzzzzzzzzzzzzzzzzzzzzzzz', { email: 'ada@example.com' }), 404, 'not_found');
    expectError(await submit(id, { email: 'ada@example.com', first_name: 'Ada' }), 404, 'not_found', /no longer takes sign-ups/);
    const page = await submitForm(id, { email: 'ada@example.com', first_name: 'Ada' });
    expect(page.statusCode).toBe(404);
    expect(page.headers?.['content-type']).toBe('text/html; charset=utf-8');
    expect(await contactByEmail('ada@example.com')).toEqual([]);
  });
});

describe('double opt-in', () => {
  const signUp = (id: string, email = 'ada@example.com') => submit(id, { email, first_name: 'Ada', data: { company: 'Engines' } });

  it('adds nothing at the sign-up and mails a one-time link on the configured origin from the shared sender', async () => {
    const { id, listId } = await makeForm({ double_opt_in: true, title: 'Launch news' });

    const res = await request({
      method: 'POST',
      path: `/v1/forms/${id}/submit`,
      body: { email: 'Ada@Example.com', first_name: 'Ada' },
      headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
    });

    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'pending_confirmation', message: 'Almost done: check your inbox and follow the link to confirm your subscription.' });
    expect(await contactByEmail('ada@example.com')).toEqual([]);
    expect(await memberCount(listId)).toBe(0);
    expect(bed.c.mailed).toHaveLength(1);
    expect(bed.c.mailed[0]).toMatchObject({ from: 'onboarding@sandbox.test', to: 'ada@example.com', subject: 'Confirm your subscription: Launch news', accountId: bed.account.account_id });
    const link = `http://api.test/v1/forms/confirm?token=${tokenOf()}`;
    expect(bed.c.mailed[0]?.text).toContain(link);
    expect(bed.c.mailed[0]?.html).toContain(`href="${link}"`);
    expect(`${bed.c.mailed[0]?.text}${bed.c.mailed[0]?.html}`).not.toContain('evil');
  });

  it('mails no link to a suppressed address, and answers alike', async () => {
    const { id } = await makeForm({ double_opt_in: true });
    expect((await request({ method: 'POST', path: '/v1/suppressions', key: admin(), body: { channel: 'email', recipient: 'gone@example.com', reason: 'complaint' } })).status).toBe(201);

    const res = await signUp(id, 'gone@example.com');

    expect(res.status).toBe(202);
    expect(res.body.status).toBe('pending_confirmation');
    expect(bed.c.mailed).toEqual([]);
    expect(await contactByEmail('gone@example.com')).toEqual([]);
  });

  it('holds a sandboxed account to the sandbox: a link only to its own address or a verified test recipient, 403 recipient_not_verified otherwise', async () => {
    const sandboxed = await createAccount(bed.c, { email: 'founder@example.com' });
    const listId = await createList('static', sandboxed.admin_key);
    const made = await create({ name: 'Beta list', list_id: listId, fields: FIELDS, double_opt_in: true }, sandboxed.admin_key);
    expect(made.status).toBe(201);

    const stranger = await signUp(made.body.id, 'stranger@example.com');
    expect(stranger.status).toBe(403);
    expect(stranger.body.error).toMatchObject({ code: 'recipient_not_verified', status: 403 });
    expect(bed.c.mailed).toEqual([]);

    expect((await signUp(made.body.id, 'founder@example.com')).status).toBe(202);
    expect(bed.c.mailed.map((m) => m.to)).toEqual(['founder@example.com']);
  });

  it('stores only the SHA-256 of the token', async () => {
    const { id } = await makeForm({ double_opt_in: true });
    await signUp(id);
    const token = tokenOf();

    expect(await bed.c.store.get(keys.oneTimeToken(token))).toBeUndefined();
    const stored = await bed.c.store.get(keys.oneTimeToken(createHash('sha256').update(token).digest('hex')));
    expect(stored).toMatchObject({ purpose: 'form_confirmation', data: { email: 'ada@example.com', form_id: id } });
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it('confirms once: the contact joins the list; the link is used up', async () => {
    const { id, listId } = await makeForm({ double_opt_in: true });
    await signUp(id);
    const token = tokenOf();

    const described = await describeLink(token);
    const confirmed = await confirm(token);
    const again = await confirm(token);

    expect(described.status).toBe(200);
    expect(described.body).toEqual({ status: 'pending_confirmation', form_id: id, email: 'ada@example.com', expires_at: expect.any(String) });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ status: 'confirmed', form_id: id, list_id: listId, email: 'ada@example.com' });
    expectError(again, 400, 'invalid_token');
    expectError(await describeLink(token), 400, 'invalid_token');
    expect((await contactByEmail('ada@example.com'))[0]).toMatchObject({ first_name: 'Ada', data: { company: 'Engines' }, list_ids: [listId] });
    expect(await memberCount(listId)).toBe(1);
  });

  it('works for 7 days and not after', async () => {
    const { id } = await makeForm({ double_opt_in: true });
    await signUp(id, 'late@example.com');
    const late = tokenOf();
    await signUp(id, 'early@example.com');
    const early = tokenOf();

    bed.c.clock.advance(7 * 24 * 3600_000 - 60_000);
    expect((await confirm(early)).status).toBe(200);
    bed.c.clock.advance(60_000);
    expectError(await confirm(late), 400, 'invalid_token');
    expect(await contactByEmail('late@example.com')).toEqual([]);
  });

  it.each([
    ['an unknown token', '0123456789abcdefghijABCDEFGHIJ0123456789'],
    ['a short token', 'abc'],
    ['a token of other characters', '0123456789abcdefghijABCDEFGHIJ012345678!'],
  ])('answers %s with 400 invalid_token', async (_case, token) => {
    expectError(await confirm(token), 400, 'invalid_token');
    expectError(await describeLink(token), 400, 'invalid_token');
  });

  it('answers a body without a token, or a malformed one, with 400 invalid_request', async () => {
    expectError(await request({ method: 'POST', path: '/v1/forms/confirm', body: {} }), 400, 'invalid_request', /body\.token/);
    expectError(await confirm(42), 400, 'invalid_request', /body\.token/);
    expectError(await request({ method: 'POST', path: '/v1/forms/confirm', body: { token: 'x', extra: 1 } }), 400, 'invalid_request');
    expectError(await request({ method: 'POST', path: '/v1/forms/confirm', rawBody: '{', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request');
    expectError(await request({ method: 'POST', path: '/v1/forms/confirm', rawBody: 'other=1', headers: { 'content-type': FORM_POST } }), 400, 'invalid_request');
    expectError(await request({ method: 'GET', path: '/v1/forms/confirm' }), 400, 'invalid_token');
    expectError(await request({ method: 'GET', path: '/v1/forms/confirm', query: { token: 'x', other: '1' } }), 400, 'invalid_request');
  });

  it('gives a browser a page whose button posts the token, then a confirmation page; a spent link gets the invalid-link page', async () => {
    const { id, listId } = await makeForm({ double_opt_in: true, language: 'de', title: 'Neuigkeiten' });
    await signUp(id);
    const token = tokenOf();

    const landing = await raw({ method: 'GET', path: '/v1/forms/confirm', query: { token }, headers: { accept: BROWSER_ACCEPT } });
    expect(await memberCount(listId)).toBe(0); // opening the link confirms nothing
    const pressed = await raw({ method: 'POST', path: '/v1/forms/confirm', rawBody: `token=${token}`, headers: { 'content-type': FORM_POST, accept: BROWSER_ACCEPT } });
    const spent = await raw({ method: 'GET', path: '/v1/forms/confirm', query: { token }, headers: { accept: BROWSER_ACCEPT } });
    const pressedAgain = await raw({ method: 'POST', path: '/v1/forms/confirm', rawBody: `token=${token}`, headers: { 'content-type': FORM_POST, accept: BROWSER_ACCEPT } });

    expect(landing.statusCode).toBe(200);
    expect(landing.headers?.['cache-control']).toBe('no-store');
    expect(landing.headers?.['referrer-policy']).toBe('no-referrer');
    expect(landing.body).toContain('<html lang="de">');
    expect(landing.body).toContain('<form method="post" action="http://api.test/v1/forms/confirm">');
    expect(landing.body).toContain(`<input type="hidden" name="token" value="${token}">`);
    expect(landing.body).toContain('<button type="submit">Confirm subscription</button>');
    expect(pressed.statusCode).toBe(200);
    expect(pressed.body).toContain('Subscription confirmed');
    expect(spent.statusCode).toBe(400);
    expect(spent.body).toContain('Link not valid');
    expect(pressedAgain.statusCode).toBe(400);
    expect(await memberCount(listId)).toBe(1);
  });

  it('never makes a second contact or membership: signed up twice, both links confirmed, or one link confirmed twice at once', async () => {
    const { id, listId } = await makeForm({ double_opt_in: true });
    await signUp(id);
    const first = tokenOf();
    await signUp(id);
    const second = tokenOf();

    expect(first).not.toBe(second);
    expect((await confirm(second)).status).toBe(200);
    expect((await confirm(first)).status).toBe(200);
    expect(await contactByEmail('ada@example.com')).toHaveLength(1);
    expect(await memberCount(listId)).toBe(1);

    await signUp(id, 'grace@example.com');
    const raced = tokenOf();
    const answers = await Promise.all([confirm(raced), confirm(raced)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(await contactByEmail('grace@example.com')).toHaveLength(1);
    expect(await memberCount(listId)).toBe(2);
  });

  it('finishes a confirmation whose earlier use stopped after the subscription was written', async () => {
    const { id, listId } = await makeForm({ double_opt_in: true });
    await signUp(id);
    const token = tokenOf();
    // What a use that died after subscribing left: the contact in the list, the token still there.
    await request({ method: 'POST', path: `/v1/lists/${listId}/members`, key: admin(), body: { email: 'ada@example.com' } });

    expect((await confirm(token)).status).toBe(200);
    expect(await memberCount(listId)).toBe(1);
    expectError(await confirm(token), 400, 'invalid_token');
  });

  it('mails an address at most 3 times an hour per account; past that a sign-up is answered alike and stores nothing', async () => {
    const { id } = await makeForm({ double_opt_in: true });

    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await signUp(id));

    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).toBe(1);
    expect(bed.c.mailed).toHaveLength(3);
    expect((await signUp(id, 'grace@example.com')).status).toBe(202);
    expect(bed.c.mailed).toHaveLength(4);
    bed.c.clock.advance(3600_000);
    await signUp(id);
    expect(bed.c.mailed).toHaveLength(5);
  });

  it('clears unsubscribed when the address owner confirms', async () => {
    const { id, listId } = await makeForm({ double_opt_in: true });
    await request({ method: 'POST', path: '/v1/contacts', key: admin(), body: { email: 'ada@example.com', unsubscribed: true } });
    await signUp(id);

    expect((await confirm(tokenOf())).status).toBe(200);

    expect((await contactByEmail('ada@example.com'))[0]).toMatchObject({ unsubscribed: false, list_ids: [listId] });
  });

  it('refuses the link once its form is deleted or its list is gone', async () => {
    const deleted = await makeForm({ double_opt_in: true });
    await signUp(deleted.id);
    const orphan = tokenOf();
    await remove(deleted.id);
    const listless = await makeForm({ double_opt_in: true });
    await signUp(listless.id, 'grace@example.com');
    const token = tokenOf();
    await request({ method: 'DELETE', path: `/v1/lists/${listless.listId}`, key: admin() });

    expectError(await confirm(orphan), 400, 'invalid_token');
    expectError(await confirm(token), 400, 'invalid_token', /no longer takes sign-ups/);
  });

  it('answers a filled honeypot as pending and mails nothing', async () => {
    const { id } = await makeForm({ double_opt_in: true });

    const res = await submit(id, { email: 'victim@example.com', first_name: 'V', website: 'spam' });

    expect(res.body.status).toBe('pending_confirmation');
    expect(bed.c.mailed).toHaveLength(0);
  });

  it('answers 503 when the provider refuses the confirmation mail for good, and leaves no working link', async () => {
    const { id } = await makeForm({ double_opt_in: true });
    const mailer = bed.c.mailer;
    const refused: string[] = [];
    bed.c.mailer = {
      send: async (email) => {
        refused.push(email.text ?? '');
        throw new PermanentSendError('sender not verified');
      },
    };
    try {
      expectError(await signUp(id), 503, 'service_unavailable');
    } finally {
      bed.c.mailer = mailer;
    }

    const token = /token=([0-9A-Za-z]+)/.exec(refused[0] ?? '')?.[1];
    expect(token).toBeDefined();
    expectError(await confirm(token), 400, 'invalid_token');
    await signUp(id);
    expect(bed.c.mailed).toHaveLength(1);
  });
});

describe('hostile sign-ups on a real form', () => {
  const value = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('a'.repeat(600), '', ' ', 'ada@example.com', '\u0000', '<script>', '__proto__'), fc.jsonValue({ maxDepth: 2 }));
  const key = fc.oneof(fc.constantFrom('email', 'first_name', 'last_name', 'data', 'website', 'data.company', '__proto__', 'constructor'), fc.string({ maxLength: 12 }));
  const body = fc.oneof(
    fc.dictionary(key, value, { maxKeys: 6 }).map((v) => ({ contentType: 'application/json', raw: JSON.stringify(v) })),
    fc.dictionary(key, fc.string({ maxLength: 30 }), { maxKeys: 6 }).map((v) => ({ contentType: FORM_POST, raw: new URLSearchParams(v).toString() })),
    fc.tuple(fc.constantFrom('application/json', FORM_POST, 'multipart/form-data; boundary=b', 'text/plain'), fc.string({ maxLength: 80 })).map(([contentType, raw]) => ({ contentType, raw })),
  );

  it('answers every body with 202 or the envelope, never a 5xx, and never more than one contact per address', async () => {
    const { id, listId } = await makeForm();
    await fc.assert(
      fc.asyncProperty(body, fc.constantFrom(undefined, BROWSER_ACCEPT, 'application/json'), async ({ contentType, raw: rawBody }, accept) => {
        const res = await raw({ method: 'POST', path: `/v1/forms/${id}/submit`, rawBody, headers: { 'content-type': contentType, ...(accept ? { accept } : {}) } });
        const status = res.statusCode ?? 0;
        expect(status, res.body).toBeLessThan(500);
        const html = String(res.headers?.['content-type'] ?? '').startsWith('text/html');
        if (status >= 400 && !html) expect(JSON.parse(res.body ?? '').error).toEqual({ code: expect.any(String), message: expect.any(String), status });
        if (html) expect(res.body).not.toMatch(/<script>/);
      }),
      { numRuns: 60, seed: Number(process.env.FUZZ_SEED ?? 20261123), endOnFailure: true },
    );
    const listed = await members(listId);
    expect(new Set(listed.map((m) => m.email)).size).toBe(listed.length);
  });

  it('answers every confirmation body with the envelope, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(body, async ({ contentType, raw: rawBody }) => {
        const res = await raw({ method: 'POST', path: '/v1/forms/confirm', rawBody, headers: { 'content-type': contentType } });
        expect(res.statusCode).toBe(400);
        expect(['invalid_request', 'invalid_token']).toContain(JSON.parse(res.body ?? '').error.code);
      }),
      { numRuns: 40, seed: Number(process.env.FUZZ_SEED ?? 20261123), endOnFailure: true },
    );
  });
});

describe('the public routes', () => {
  it('are limited to 10 requests a second per client IP', async () => {
    const { id } = await makeForm();
    const address = nextIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      bed.c.clock.advance(1);
      statuses.push((await runningAs.run(functionNamed('forms'), () => handler(httpEvent({ method: 'GET', path: `/v1/forms/${id}/config`, sourceIp: address })))).statusCode ?? 0);
    }
    const elsewhere = await request({ method: 'POST', path: `/v1/forms/${id}/submit`, body: { email: 'a@example.com', first_name: 'A' }, sourceIp: nextIp() });

    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    expect(statuses[10]).toBe(429);
    expect(elsewhere.status).toBe(202);
  });
});

describe('a suspended account’s form', () => {
  let staffIp = 0;
  const setSuspended = async (suspended: boolean) => {
    const path = `/v1/admin/accounts/${bed.account.account_id}/${suspended ? 'suspend' : 'unsuspend'}`;
    expect((await request({ method: 'POST', path, key: TEST_SECRETS['staff-token'], sourceIp: `198.51.100.${++staffIp}` })).status).toBe(200);
  };

  it('takes no sign-up, with or without double opt-in, answered as an unknown form; mails nothing and stores nothing', async () => {
    const single = await makeForm();
    const double = await makeForm({ double_opt_in: true });
    await setSuspended(true);

    expectError(await submit(single.id, { email: 'ada@example.com', first_name: 'Ada' }), 404, 'not_found', new RegExp(`form ${single.id} not found`));
    expectError(await submit(double.id, { email: 'owner@example.com', first_name: 'Owner' }), 404, 'not_found');
    expectError(await submit(double.id, { email: 'bob@example.com', first_name: 'Bob' }), 404, 'not_found');
    const page = await submitForm(single.id, { email: 'ada@example.com', first_name: 'Ada' });
    expect(page.statusCode).toBe(404);
    expect(bed.c.mailed).toEqual([]);

    await setSuspended(false);
    expect(await contactByEmail('ada@example.com')).toEqual([]);
    expect(await memberCount(single.listId)).toBe(0);
    // Unsuspended, the same form takes sign-ups again.
    expect((await submit(single.id, { email: 'ada@example.com', first_name: 'Ada' })).status).toBe(202);
  });
});
