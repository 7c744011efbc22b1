// Snippets through the handler: create, list, read, update, delete and their failure cases; the
// route next to /v1/templates/{id}; and templates including snippets as partials on write, render
// and send, with a rename or delete refused while a template includes the snippet.
import { describe, expect, it } from 'vitest';
import { functions } from '../../functions/manifest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { keys } from '../../shared/db/keys';
import { createRouteMatcher } from '../../shared/http/route-match';
import { loadContent } from '../../shared/sending/messages/content';
import type { SendJob } from '../../shared/sending/messages/messages';
import type { MessageItem } from '../../shared/sending/messages/model';
import { MessageRepository } from '../../shared/sending/messages/repository';
import { SnippetRepository } from '../../shared/sending/templates/snippets-repository';
import { STALE_NAME_CLAIM_MS, updateSnippet } from '../../shared/sending/templates/snippets';
import type { Store } from '../../shared/db/store';
import { MARK_LEASE_MS } from '../../shared/sending/templates/usage';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker } from '../support/consumers';
import { expectError, expectInvalid } from '../support/errors';

let sequence = 0;

const bed = useTestbed({ scopedKeys: true });

const request = bed.request;
const create = (body: unknown, key = bed.sendKey) => request({ method: 'POST', path: '/v1/templates/snippets', key, body });
const list = (query: Record<string, string> = {}, key = bed.readKey) => request({ method: 'GET', path: '/v1/templates/snippets', key, query });
const get = (id: string, key = bed.readKey) => request({ method: 'GET', path: `/v1/templates/snippets/${id}`, key });
const update = (id: string, body: unknown, key = bed.sendKey) => request({ method: 'PATCH', path: `/v1/templates/snippets/${id}`, key, body });
const remove = (id: string, key = bed.sendKey) => request({ method: 'DELETE', path: `/v1/templates/snippets/${id}`, key });
const createTemplate = (body: unknown) => request({ method: 'POST', path: '/v1/templates', key: bed.sendKey, body });
const updateTemplate = (id: string, body: unknown) => request({ method: 'PUT', path: `/v1/templates/${id}`, key: bed.sendKey, body });
const removeTemplate = (id: string) => request({ method: 'DELETE', path: `/v1/templates/${id}`, key: bed.sendKey });
const render = (id: string, vars: Record<string, unknown> = {}) => request({ method: 'POST', path: `/v1/templates/${id}/render`, key: bed.readKey, body: { vars } });
const send = (body: Record<string, unknown>) =>
  request({
    method: 'POST',
    path: '/v1/send',
    key: bed.sendKey,
    body: { channel: 'email', idempotency_key: `snip-test-${++sequence}`, destination: { email: 'ada@example.com' }, metadata: { from_email: 'hello@acme.test' }, ...body },
  });

const footer = { name: 'Footer', body_html: '<p>Sent by {{ company }}</p>', body_text: 'Sent by {{ company }}' };

async function made(body: Record<string, unknown> = footer): Promise<Record<string, any>> {
  const res = await create(body);
  expect(res.status).toBe(201);
  return res.body;
}

const withFooter = (html = '<h1>Hi {{ name }}</h1>\n{{> footer }}') => ({ name: 'Newsletter', channel: 'email', subject: 'Hi {{ name }}', body_html: html });

async function template(html?: string): Promise<Record<string, any>> {
  const res = await createTemplate(withFooter(html));
  expect(res.status).toBe(201);
  return res.body;
}

describe('routes beside /v1/templates/{id}', () => {
  it('matches the literal /v1/templates/snippets paths before /v1/templates/{id}, as API Gateway does', () => {
    const match = createRouteMatcher(functions);
    expect(match('GET', '/v1/templates/snippets')).toMatchObject({ kind: 'route', routeKey: 'GET /v1/templates/snippets', fn: { name: 'snippets' } });
    expect(match('POST', '/v1/templates/snippets')).toMatchObject({ kind: 'route', routeKey: 'POST /v1/templates/snippets' });
    expect(match('GET', '/v1/templates/snippets/snip_x')).toMatchObject({ routeKey: 'GET /v1/templates/snippets/{id}', params: { id: 'snip_x' } });
    expect(match('GET', '/v1/templates/tmpl_x')).toMatchObject({ routeKey: 'GET /v1/templates/{id}', fn: { name: 'templates' } });
    // No snippet route has PUT: the method picks /v1/templates/{id}, in API Gateway too (route and method match).
    expect(match('PUT', '/v1/templates/snippets')).toMatchObject({ routeKey: 'PUT /v1/templates/{id}', params: { id: 'snippets' } });
  });

  it('answers the snippet list at /v1/templates/snippets, not a template named "snippets"', async () => {
    await made();
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.snippets).toHaveLength(1);
  });
});

describe('POST /v1/templates/snippets', () => {
  it('answers 201 with every field of the Snippet', async () => {
    const res = await create(footer);
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^snip_[0-9a-z]{26}$/),
      account_id: bed.account.account_id,
      name: 'Footer',
      body_html: footer.body_html,
      body_text: footer.body_text,
      created_at: expect.stringMatching(/^2026-03-01T12:\d\d:\d\d\.\d{3}Z$/),
      updated_at: res.body.created_at,
    });
    expect((await create({ name: 'plain', body_html: '<p>x</p>' })).body.body_text).toBeNull();
  });

  it('answers 409 conflict on a name another snippet has, in any case', async () => {
    await made();
    expectError(await create({ ...footer, name: 'FOOTER' }), 409, 'conflict', /"FOOTER" exists already/);
    expect((await list()).body.snippets).toHaveLength(1);
  });

  it('names the field of a malformed body', async () => {
    expectInvalid(await create({ body_html: '<p>x</p>' }), 'body.name');
    expectInvalid(await create({ name: 'has space', body_html: '<p>x</p>' }), 'body.name');
    expectInvalid(await create({ name: 'x'.repeat(65), body_html: '<p>x</p>' }), 'body.name');
    expectInvalid(await create({ name: 'x' }), 'body.body_html');
    expectInvalid(await create({ name: 'x', body_html: '' }), 'body.body_html');
    expectInvalid(await create({ name: 'x', body_html: 'y'.repeat(50_001) }), 'body.body_html');
    expectInvalid(await create({ name: 'x', body_html: '<p>x</p>', body_text: 5 }), 'body.body_text');
    expectInvalid(await create({ ...footer, extra: true }), 'body');
    expect((await list()).body.snippets).toEqual([]);
  });

  it('checks the bodies: Mustache syntax, and no snippet inside a snippet', async () => {
    expectError(await create({ name: 'x', body_html: '<p>\n{{# items }}x' }), 400, 'invalid_template', /^body_html line 2: section "items" is opened and never closed/);
    await made();
    expectError(await create({ name: 'x', body_html: '<div>\n{{> footer }}</div>' }), 400, 'invalid_template', /^body_html line 2: partial "footer": a snippet cannot include another snippet/);
    expectError(await create({ name: 'x', body_html: 'x', body_text: '{{> footer }}' }), 400, 'invalid_template', /^body_text line 1/);
    expect((await list()).body.snippets).toHaveLength(1);
  });

  it('takes send and admin keys, not read keys', async () => {
    expectError(await create(footer, bed.readKey), 403, 'forbidden');
    expect((await create(footer, bed.account.admin_key)).status).toBe(201);
  });
});

describe('GET /v1/templates/snippets and /v1/templates/snippets/{id}', () => {
  it('lists the account’s snippets newest first, paginated, and reads one with any key', async () => {
    const first = await made();
    bed.c.clock.advance(1000);
    const second = await made({ name: 'header', body_html: '<h1>Acme</h1>' });
    expect((await list()).body).toEqual({ snippets: [second, first], next_cursor: null });
    const page = await list({ limit: '1' });
    expect(page.body.snippets).toEqual([second]);
    expect((await list({ cursor: page.body.next_cursor })).body.snippets).toEqual([first]);
    expect((await get(first.id)).body).toEqual(first);
    expect((await get(first.id, bed.sendKey)).status).toBe(200);
  });

  it('refuses a cursor that is not one it issued, a tampered one and another account’s, with 400 naming the cursor', async () => {
    await made();
    bed.c.clock.advance(1000);
    await made({ name: 'header', body_html: '<h1>Acme</h1>' });
    const cursor = (await list({ limit: '1' })).body.next_cursor as string;
    expectInvalid(await list({ cursor: 'nonsense' }), 'cursor');
    expectInvalid(await list({ cursor: `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}` }), 'cursor');
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectInvalid(await list({ cursor }, other.admin_key), 'cursor');
  });

  it("answers 404 not_found for an unknown id, a malformed one and another account's snippet, whose list it never shows", async () => {
    const mine = await made();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await get(mine.id, other.admin_key), 404, 'not_found');
    expectError(await get('snip_01hzzzzzzzzzzzzzzzzzzzzzzz'), 404, 'not_found');
    expectError(await get('nope'), 404, 'not_found');
    expect((await list({}, other.admin_key)).body.snippets).toEqual([]);
    expectError(await update(mine.id, { body_html: 'x' }, other.admin_key), 404, 'not_found');
    expectError(await remove(mine.id, other.admin_key), 404, 'not_found');
    expect((await get(mine.id)).body).toEqual(mine);
  });
});

describe('PATCH /v1/templates/snippets/{id}', () => {
  it('changes only the fields sent', async () => {
    const snippet = await made();
    bed.c.clock.advance(1000);
    const res = await update(snippet.id, { body_html: '<p>From {{ company }}</p>' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...snippet, body_html: '<p>From {{ company }}</p>', updated_at: expect.any(String) });
    expect(res.body.updated_at > snippet.updated_at).toBe(true);
    expect((await update(snippet.id, { body_text: null })).body.body_text).toBeNull();
    expect((await update(snippet.id, { name: 'signature' })).body.name).toBe('signature');
    expect((await get(snippet.id)).body.name).toBe('signature');
  });

  it('frees the old name on a rename and refuses a name another snippet has (in another case)', async () => {
    const snippet = await made();
    const header = await made({ name: 'header', body_html: '<h1>Acme</h1>' });
    expectError(await update(snippet.id, { name: 'HEADER' }), 409, 'conflict', /exists already/);
    expect((await get(snippet.id)).body.name).toBe('Footer');
    expect((await update(snippet.id, { name: 'bottom' })).status).toBe(200);
    expect((await create({ name: 'footer', body_html: 'x' })).status).toBe(201);
    // A change of case alone keeps the name.
    expect((await update(header.id, { name: 'Header' })).body.name).toBe('Header');
    expectError(await create({ name: 'HEADER', body_html: 'x' }), 409, 'conflict');
  });

  it('names the field of a malformed body and checks the bodies', async () => {
    const snippet = await made();
    expectInvalid(await update(snippet.id, { name: '' }), 'body.name');
    expectInvalid(await update(snippet.id, { body_html: '' }), 'body.body_html');
    expectInvalid(await update(snippet.id, { id: 'x' }), 'body');
    expectError(await update(snippet.id, { body_html: '{{/ x }}' }), 400, 'invalid_template', /^body_html line 1/);
    expectError(await update(snippet.id, { body_text: '{{> header }}' }), 400, 'invalid_template', /^body_text line 1/);
    expectError(await update(snippet.id, { body_html: 'x' }, bed.readKey), 403, 'forbidden');
    expect((await get(snippet.id)).body).toEqual(snippet);
  });
});

describe('updateSnippet racing another rename', () => {
  it('answers 409 conflict when the snippet was renamed between its read and its write, and gives back the name it took', async () => {
    const snippet = await made();
    const key = keys.snippet(bed.account.account_id, snippet.id);
    let raced = false;
    // Just before this update writes the snippet, another request renames it.
    const racing = new Proxy(bed.c.store, {
      get(target, property, receiver) {
        if (property !== 'update') return Reflect.get(target, property, receiver);
        return async (...args: Parameters<Store['update']>) => {
          if (!raced && args[0].pk === key.pk && args[0].sk === key.sk) {
            raced = true;
            await updateSnippet(bed.c, bed.account.account_id, snippet.id, { name: 'winner' });
          }
          return target.update(...args);
        };
      },
    });

    await expect(updateSnippet({ ...bed.c, store: racing }, bed.account.account_id, snippet.id, { name: 'loser' })).rejects.toMatchObject({ code: 'conflict', status: 409 });
    expect((await get(snippet.id)).body.name).toBe('winner');
    // The loser's name is free again; the winner's is held.
    expect(await new SnippetRepository(bed.c.store).nameItem(bed.account.account_id, 'loser')).toBeUndefined();
    expect((await create({ name: 'loser', body_html: '<p>x</p>' })).status).toBe(201);
    expectError(await create({ name: 'Winner', body_html: '<p>x</p>' }), 409, 'conflict');
  });
});

describe('DELETE /v1/templates/snippets/{id}', () => {
  it('answers 204, then 404; the name is free again', async () => {
    const snippet = await made();
    const res = await remove(snippet.id);
    expect(res.status).toBe(204);
    expectError(await get(snippet.id), 404, 'not_found');
    expectError(await remove(snippet.id), 404, 'not_found');
    expect((await create(footer)).status).toBe(201);
  });

  it('refuses read keys', async () => {
    const snippet = await made();
    expectError(await remove(snippet.id, bed.readKey), 403, 'forbidden');
  });
});

describe('templates including snippets', () => {
  it('accepts a partial naming an account snippet in any case, and still refuses an unknown one with its line', async () => {
    await made();
    expect((await createTemplate(withFooter('<p>x</p>\n{{> FOOTER }}'))).status).toBe(201);
    expectError(await createTemplate(withFooter('<p>x</p>\n\n{{> missing }}')), 400, 'invalid_template', /^body_html line 3: partial "missing" is not a snippet of this account/);
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const res = await request({ method: 'POST', path: '/v1/templates', key: other.admin_key, body: withFooter() });
    expectError(res, 400, 'invalid_template', /partial "footer" is not a snippet/);
    expectError(await createTemplate({ ...withFooter(), subject: '{{> footer }}' }), 400, 'invalid_template', /^subject line 1: partial "footer": only body_html and body_text/);
  });

  it('renders the snippet’s current bodies: its body_html in body_html, its body_text in body_text', async () => {
    const snippet = await made();
    const tmpl = await template();
    expect((await updateTemplate(tmpl.id, { body_text: 'Hi {{ name }}\n{{> footer }}' })).status).toBe(200);
    const res = await render(tmpl.id, { name: 'Ada', company: 'Acme & Co' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ subject: 'Hi Ada', body_html: '<h1>Hi Ada</h1>\n<p>Sent by Acme &amp; Co</p>', body_text: 'Hi Ada\nSent by Acme & Co' });

    await update(snippet.id, { body_html: '<p>Yours, {{ company }}</p>', body_text: null });
    const later = await render(tmpl.id, { name: 'Ada', company: 'Acme' });
    expect(later.body.body_html).toBe('<h1>Hi Ada</h1>\n<p>Yours, Acme</p>');
    // Without a text part of its own, the snippet's body_html goes into the text as written.
    expect(later.body.body_text).toBe('Hi Ada\n<p>Yours, Acme</p>');
  });

  it('sends with the snippet rendered in', async () => {
    await made();
    const tmpl = await template();
    const res = await send({ template_id: tmpl.id, template_vars: { name: 'Ada', company: 'Acme' } });
    expect(res.status).toBe(201);
    const stored = (await bed.c.store.get<MessageItem>(keys.message(res.body.id)))!;
    const content = await loadContent({ objects: bed.c.objects, messages: new MessageRepository(bed.c.store) }, stored);
    expect(content.body_html).toBe('<h1>Hi Ada</h1>\n<p>Sent by Acme</p>');
    const job = bed.c.sent.find((s) => s.queue === 'send' && (s.body as SendJob).message_id === res.body.id);
    expect((await sendWorker(sqsEvent([sqsRecord(job!.body as SendJob)]))).batchItemFailures).toEqual([]);
  });

  it('refuses a rename or delete while a template includes the snippet, and allows it once the template stops', async () => {
    const snippet = await made();
    const tmpl = await template();
    expectError(await update(snippet.id, { name: 'bottom' }), 409, 'conflict', new RegExp(`"Footer" is included by template ${tmpl.id}`));
    expectError(await remove(snippet.id), 409, 'conflict', new RegExp(tmpl.id));
    // Nothing half-done: the name and the snippet stand, and the template still renders.
    expect((await get(snippet.id)).body.name).toBe('Footer');
    expect((await render(tmpl.id, { name: 'A', company: 'B' })).body.body_html).toContain('Sent by B');
    // Bodies may change while it is included.
    expect((await update(snippet.id, { body_html: '<p>{{ company }}</p>' })).status).toBe(200);

    expect((await updateTemplate(tmpl.id, { body_html: '<h1>Hi {{ name }}</h1>' })).status).toBe(200);
    expect((await update(snippet.id, { name: 'bottom' })).status).toBe(200);
    expect((await remove(snippet.id)).status).toBe(204);
  });

  it('allows the delete once the template that included it is deleted', async () => {
    const snippet = await made();
    const tmpl = await template();
    const second = await template('{{> Footer }}');
    expectError(await remove(snippet.id), 409, 'conflict', new RegExp(`${tmpl.id}|${second.id}`));
    expect((await removeTemplate(tmpl.id)).status).toBe(200);
    expectError(await remove(snippet.id), 409, 'conflict', new RegExp(second.id));
    expect((await removeTemplate(second.id)).status).toBe(200);
    expect((await remove(snippet.id)).status).toBe(204);
  });

  it('keeps the mark of a version that still includes the snippet when another version supersedes it', async () => {
    const snippet = await made();
    const tmpl = await template();
    expect((await updateTemplate(tmpl.id, { subject: 'Hello {{ name }}' })).body.version).toBe(2);
    expectError(await remove(snippet.id), 409, 'conflict');
    const name = (await new SnippetRepository(bed.c.store).nameItem(bed.account.account_id, 'footer'))!;
    expect(name.used_by?.size).toBe(1);
  });

  it('answers invalid_template when the snippet goes between the check and the write (its mark fails)', async () => {
    const snippet = await made();
    const snippets = new SnippetRepository(bed.c.store);
    // The name now belongs to another snippet id, as after a delete and a new snippet of that name.
    expect(await snippets.mark(bed.account.account_id, 'footer', 'snip_someoneelse', 'tmpl_x#t')).toBe(false);
    expect(await snippets.mark(bed.account.account_id, 'footer', snippet.id, 'tmpl_x#t')).toBe(true);
    await snippets.unmark(bed.account.account_id, 'footer', 'tmpl_x#t');
    expect((await snippets.nameItem(bed.account.account_id, 'footer'))!.used_by).toBeUndefined();
  });

  it('clears marks a crash left: at once when their template is gone, after the lease when their write never landed', async () => {
    const snippet = await made();
    const tmpl = await template('<p>no snippet</p>');
    const snippets = new SnippetRepository(bed.c.store);
    const token = (id: string) => id.slice('tmpl_'.length);
    await snippets.mark(bed.account.account_id, 'footer', snippet.id, `tmpl_01hzzzzzzzzzzzzzzzzzzzzzzz#${token(tmpl.id)}`);
    await snippets.mark(bed.account.account_id, 'footer', snippet.id, `${tmpl.id}#${token(bed.c.ids.next('tmpl'))}`);
    // The live template's unmatched mark is young: its write may still land.
    expectError(await remove(snippet.id), 409, 'conflict', new RegExp(tmpl.id));
    bed.c.clock.advance(MARK_LEASE_MS + 1);
    expect((await remove(snippet.id)).status).toBe(204);
  });
});

describe('a name left taken by a create that died between its two writes', () => {
  // Written raw on purpose: a claim with no snippet behind it is the state no use case leaves.
  const orphan = (name: string, claimedAt: number) =>
    bed.c.store.put({ ...keys.snippetName(bed.account.account_id, name.toLowerCase()), entity: 'snippet_name', account_id: bed.account.account_id, snippet_id: 'snip_01deadrequest000000000000', claimed_at: claimedAt });

  it('is taken over once the claim is older than a live create could be', async () => {
    await orphan('Footer', bed.c.clock.now().getTime());
    bed.c.clock.advance(STALE_NAME_CLAIM_MS + 1);

    const res = await create({ name: 'footer', body_html: '<p>Acme</p>' });

    expect(res.status).toBe(201);
    expect((await bed.c.store.get<{ snippet_id: string }>(keys.snippetName(bed.account.account_id, 'footer')))?.snippet_id).toBe(res.body.id);
  });

  it('is not taken while the claim is fresh: that create may still be writing its snippet', async () => {
    await orphan('Header', bed.c.clock.now().getTime());

    const res = await create({ name: 'Header', body_html: '<p>Acme</p>' });

    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
  });
});
