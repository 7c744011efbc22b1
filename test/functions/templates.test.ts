// Templates through the handler: create, list, read (and earlier versions), update with versions,
// delete, render; the syntax check on write; and sends (single and batch) with template_id, which
// record the template and version they were rendered from and are mailed as rendered.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { keys } from '../../shared/db/keys';
import { loadContent } from '../../shared/sending/messages/content';
import type { SendJob } from '../../shared/sending/messages/messages';
import type { MessageItem } from '../../shared/sending/messages/model';
import { MessageRepository } from '../../shared/sending/messages/repository';
import { TemplateRepository } from '../../shared/sending/templates/repository';
import { updateTemplate, VERSION_TRIES } from '../../shared/sending/templates/service';
import { SnippetRepository } from '../../shared/sending/templates/snippets-repository';
import type { Store } from '../../shared/db/store';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker } from '../support/consumers';
import { expectError, expectInvalid } from '../support/errors';

let sequence = 0;

const bed = useTestbed({ scopedKeys: true });

const request = bed.request;
const create = (body: unknown, key = bed.sendKey) => request({ method: 'POST', path: '/v1/templates', key, body });
const list = (query: Record<string, string> = {}, key = bed.readKey) => request({ method: 'GET', path: '/v1/templates', key, query });
const get = (id: string, query: Record<string, string> = {}, key = bed.readKey) => request({ method: 'GET', path: `/v1/templates/${id}`, key, query });
const update = (id: string, body: unknown, key = bed.sendKey) => request({ method: 'PUT', path: `/v1/templates/${id}`, key, body });
const remove = (id: string, key = bed.sendKey) => request({ method: 'DELETE', path: `/v1/templates/${id}`, key });
const render = (id: string, body: unknown, key = bed.readKey) => request({ method: 'POST', path: `/v1/templates/${id}/render`, key, body });
const send = (body: Record<string, unknown>, key = bed.sendKey) =>
  request({
    method: 'POST',
    path: '/v1/send',
    key,
    body: { channel: 'email', idempotency_key: `tmpl-test-${++sequence}`, destination: { email: 'ada@example.com' }, metadata: { from_email: 'hello@acme.test' }, ...body },
  });
const sendBatch = (items: Array<Record<string, unknown>>, key = bed.sendKey) =>
  request({
    method: 'POST',
    path: '/v1/send/batch',
    key,
    body: items.map((item) => ({ channel: 'email', idempotency_key: `tmpl-test-${++sequence}`, destination: { email: 'ada@example.com' }, metadata: { from_email: 'hello@acme.test' }, ...item })),
  });

const welcome = {
  name: 'Welcome',
  channel: 'email',
  subject: 'Welcome, {{ first_name }}',
  body_html: '<h1>Hello {{ first_name }}</h1>\n<p>Your plan: {{ plan }}. <a href="https://example.com/start?u={{ first_name }}">Get started</a></p>\n{{# tips }}<li>{{ . }}</li>{{/ tips }}{{^ tips }}<p>No tips.</p>{{/ tips }}',
  variables: [
    { name: 'first_name', required: true, sample: 'Ada' },
    { name: 'plan', default_value: 'free' },
    { name: 'tips', sample: 'a tip' },
  ],
};

async function made(body: Record<string, unknown> = welcome): Promise<Record<string, any>> {
  const res = await create(body);
  expect(res.status).toBe(201);
  return res.body;
}

async function mailedOf(messageId: string): Promise<void> {
  const found = bed.c.sent.find((s) => s.queue === 'send' && (s.body as SendJob).message_id === messageId);
  expect(found).toBeDefined();
  expect((await sendWorker(sqsEvent([sqsRecord(found!.body as SendJob)]))).batchItemFailures).toEqual([]);
}

describe('POST /v1/templates', () => {
  it('answers 201 with every field of the Template at version 1', async () => {
    const res = await create(welcome);

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^tmpl_[0-9a-z]{26}$/),
      name: 'Welcome',
      channel: 'email',
      subject: welcome.subject,
      body_html: welcome.body_html,
      body_text: null,
      variables: [
        { name: 'first_name', required: true, default_value: null, sample: 'Ada' },
        { name: 'plan', required: false, default_value: 'free', sample: null },
        { name: 'tips', required: false, default_value: null, sample: 'a tip' },
      ],
      version: 1,
      is_active: true,
      created_at: bed.c.clock.now().toISOString(),
      updated_at: bed.c.clock.now().toISOString(),
    });
  });

  it.each([
    ['name', { ...welcome, name: undefined }],
    ['channel', { ...welcome, channel: 'sms' }],
    ['subject', { ...welcome, subject: '' }],
    ['body_html', { ...welcome, body_html: 42 }],
    ['variables.0.name', { ...welcome, variables: [{ name: 'has space' }] }],
    ['variables.0.default_value', { ...welcome, variables: [{ name: 'x', required: true, default_value: 'y' }] }],
    ['variables.1.name', { ...welcome, variables: [{ name: 'x' }, { name: 'x' }] }],
  ])('refuses a bad %s with 400 naming it', async (field, body) => {
    expectInvalid(await create(body), `body.${field}`);
  });

  it('refuses an unknown field, naming it', async () => {
    const res = await create({ ...welcome, extra: true });
    expectInvalid(res, 'body');
    expect(res.body.error.message).toContain('extra');
  });

  it('refuses a missing body', async () => {
    expectInvalid(await request({ method: 'POST', path: '/v1/templates', key: bed.sendKey }), 'body');
  });

  it.each([
    ['an unclosed section, at the line it opened', { body_html: '<p>hi</p>\n<ul>\n{{# tips }}<li>{{ . }}</li>\n</ul>' }, /^body_html line 3: section "tips" is opened and never closed$/],
    ['a section closed but never opened', { body_html: '<p>hi</p>\n{{/ tips }}' }, /^body_html line 2: section "tips" is closed but was never opened$/],
    ['an unclosed tag', { subject: 'Hi {{ first_name' }, /^subject line 1: unclosed tag$/],
    ['a partial (no snippet exists)', { body_html: '<p>hi</p>\n\n{{> footer }}' }, /^body_html line 3: partial "footer" is not a snippet of this account$/],
    ['a variable missing from variables', { body_text: 'Hello {{ first_name }}\nRef {{ order_id }}' }, /^body_text line 2: variable "order_id" is used but not listed in variables$/],
  ])('refuses %s with 400 invalid_template naming the line', async (_title, change, message) => {
    expectError(await create({ ...welcome, ...change }), 400, 'invalid_template', message);
  });

  it('accepts undeclared variables when variables is not given, and names inside sections as item fields', async () => {
    await made({ name: 'free', channel: 'email', subject: '{{ a }}', body_html: '<p>{{ b.c }}</p>' });
    await made({ ...welcome, body_html: '{{# tips }}{{ title }}{{/ tips }}' });
  });

  it('needs the send or admin scope', async () => {
    expectError(await create(welcome, bed.readKey), 403, 'forbidden');
    expect((await create(welcome, bed.account.admin_key)).status).toBe(201);
  });
});

describe('GET /v1/templates', () => {
  it('lists newest first with exactly the list fields, paginated', async () => {
    const first = await made();
    const second = await made({ ...welcome, name: 'Second' });

    const page = await list({ limit: '1' });
    expect(page.status).toBe(200);
    expect(page.body.templates).toEqual([
      { id: second.id, name: 'Second', channel: 'email', version: 1, is_active: true, created_at: second.created_at },
    ]);
    const next = await list({ limit: '1', cursor: page.body.next_cursor });
    expect(next.body.templates.map((t: { id: string }) => t.id)).toEqual([first.id]);
    expect(next.body.next_cursor).toBeNull();
  });

  it('refuses a cursor from elsewhere', async () => {
    expectInvalid(await list({ cursor: 'nonsense' }), 'cursor');
  });

  it("never shows another account's templates", async () => {
    await made();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const res = await list({}, other.admin_key);
    expect(res.body).toEqual({ templates: [], next_cursor: null });
  });
});

describe('GET /v1/templates/{id}', () => {
  it('answers the full template to any scope', async () => {
    const template = await made();
    for (const key of [bed.readKey, bed.sendKey, bed.account.admin_key]) expect((await get(template.id, {}, key)).body).toEqual(template);
  });

  it("answers 404 template_not_found for an unknown id, a malformed one and another account's template", async () => {
    const template = await made();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const theirs = await get(template.id, {}, other.admin_key);
    const missing = await get('tmpl_01jxxxxxxxxxxxxxxxxxxxxxxx');
    expectError(theirs, 404, 'template_not_found');
    expectError(missing, 404, 'template_not_found');
    expect(theirs.body.error.message).toBe(`template ${template.id} not found`);
    expectError(await get('nonsense'), 404, 'template_not_found');
  });

  it('refuses a version that is not a number, and answers 404 for one that does not exist', async () => {
    const template = await made();
    expectInvalid(await get(template.id, { version: 'first' }), 'query.version');
    expectInvalid(await get(template.id, { version: '0' }), 'query.version');
    expectError(await get(template.id, { version: '2' }), 404, 'template_not_found', /has no version 2/);
  });
});

describe('PUT /v1/templates/{id}', () => {
  it('makes a new version for a content change and keeps the earlier one readable', async () => {
    const template = await made();
    const res = await update(template.id, { subject: 'Hi {{ first_name }}', name: 'Renamed' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: template.id, name: 'Renamed', version: 2 });

    const current = await get(template.id);
    expect(current.body).toMatchObject({ name: 'Renamed', subject: 'Hi {{ first_name }}', version: 2, body_html: welcome.body_html, created_at: template.created_at });
    expect(current.body.updated_at > template.updated_at).toBe(true);
    const earlier = await get(template.id, { version: '1' });
    expect(earlier.body).toEqual({ ...template, name: 'Renamed' });
    expect((await get(template.id, { version: '2' })).body).toEqual(current.body);

    const third = await update(template.id, { variables: [{ name: 'first_name' }, { name: 'plan' }, { name: 'tips' }] });
    expect(third.body.version).toBe(3);
    expect((await get(template.id, { version: '2' })).body.subject).toBe('Hi {{ first_name }}');
  });

  it('changes name and is_active without a new version; the same content again is no change', async () => {
    const template = await made();
    expect((await update(template.id, { name: 'Only the name' })).body).toEqual({ id: template.id, name: 'Only the name', version: 1 });
    expect((await update(template.id, { is_active: false })).body.version).toBe(1);
    expect((await update(template.id, { subject: welcome.subject, body_html: welcome.body_html })).body.version).toBe(1);
    expect((await update(template.id, {})).body).toEqual({ id: template.id, name: 'Only the name', version: 1 });
    expect((await get(template.id)).body).toMatchObject({ name: 'Only the name', is_active: false, version: 1 });
  });

  it('checks the new content, against the listed variables', async () => {
    const template = await made();
    expectError(await update(template.id, { body_html: '<p>{{ last_name }}</p>' }), 400, 'invalid_template', /^body_html line 1: variable "last_name"/);
    expectError(await update(template.id, { body_html: '{{# a }}' }), 400, 'invalid_template', /section "a"/);
    expectInvalid(await update(template.id, { body_html: '' }), 'body.body_html');
    expectInvalid(await update(template.id, { version: 3 }), 'body');
    expect((await get(template.id)).body.version).toBe(1);
  });

  it("answers 404 for another account's template and refuses a read key", async () => {
    const template = await made();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await update(template.id, { name: 'x' }, other.admin_key), 404, 'template_not_found');
    expectError(await update(template.id, { name: 'x' }, bed.readKey), 403, 'forbidden');
    expect((await get(template.id)).body.name).toBe('Welcome');
  });

  it('lets only one of two concurrent updates make each version; the other applies its change after it', async () => {
    const template = await made();
    const [a, b] = await Promise.all([update(template.id, { subject: 'A {{ first_name }}' }), update(template.id, { body_html: '<p>B {{ first_name }}</p>' })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect([a.body.version, b.body.version].sort()).toEqual([2, 3]);
    const current = (await get(template.id)).body;
    expect(current).toMatchObject({ version: 3, subject: 'A {{ first_name }}', body_html: '<p>B {{ first_name }}</p>' });
    const second = (await get(template.id, { version: '2' })).body;
    // Version 2 is one of the two changes over version 1, never a mix of both.
    expect(second.subject === welcome.subject || second.body_html === welcome.body_html).toBe(true);
    expect(second.subject === welcome.subject && second.body_html === welcome.body_html).toBe(false);
  });
});

describe('TemplateRepository.addVersion', () => {
  it('moves the template on only from the version the writer read: a second writer from the same read loses', async () => {
    const template = await made();
    const templates = new TemplateRepository(bed.c.store);
    const read = (await templates.get(bed.account.account_id, template.id))!;
    const content = { subject: 's', body_html: 'h', body_text: null, variables: [] };

    const first = await templates.addVersion(read, content, {}, bed.c.clock.now().toISOString());
    const second = await templates.addVersion(read, { ...content, subject: 'other' }, {}, bed.c.clock.now().toISOString());

    expect([first, second]).toEqual([true, false]);
    expect((await templates.get(bed.account.account_id, template.id))!.version).toBe(2);
    expect((await get(template.id)).body.subject).toBe('s');
    expect((await get(template.id, { version: '1' })).body.subject).toBe(welcome.subject);
  });
});

describe('updateTemplate under concurrent writers', () => {
  it(`re-applies its fields over each winner, and after ${VERSION_TRIES} lost races answers 409 conflict with nothing of its own left behind`, async () => {
    expect((await request({ method: 'POST', path: '/v1/templates/snippets', key: bed.sendKey, body: { name: 'footer', body_html: '<p>f</p>' } })).status).toBe(201);
    const template = await made();
    const templates = new TemplateRepository(bed.c.store);
    // Before each of this writer's version writes, another writer takes the next version first.
    let raced = 0;
    const racing = new Proxy(bed.c.store, {
      get(target, property, receiver) {
        if (property !== 'update') return Reflect.get(target, property, receiver);
        return async (...args: Parameters<Store['update']>) => {
          const [key] = args;
          if (String(key.sk) === keys.template(bed.account.account_id, template.id).sk && String(key.pk) === keys.template(bed.account.account_id, template.id).pk) {
            const winner = (await templates.get(bed.account.account_id, template.id))!;
            raced++;
            await templates.addVersion(winner, { subject: `winner ${raced}`, body_html: '<p>w</p>', body_text: null, variables: [] }, {}, bed.c.clock.now().toISOString());
          }
          return target.update(...args);
        };
      },
    });

    const loser = updateTemplate({ store: racing, clock: bed.c.clock, ids: bed.c.ids }, bed.account.account_id, template.id, { body_html: '<p>{{ first_name }}</p>{{> footer }}' });

    await expect(loser).rejects.toMatchObject({ code: 'conflict', status: 409 });
    expect(raced).toBe(VERSION_TRIES);
    const now = await get(template.id);
    expect(now.body).toMatchObject({ version: 1 + VERSION_TRIES, subject: `winner ${VERSION_TRIES}`, body_html: '<p>w</p>' });
    // The loser's marks on the snippet it would have included are gone: it can be deleted.
    expect((await new SnippetRepository(bed.c.store).nameItem(bed.account.account_id, 'footer'))!.used_by).toBeUndefined();
  });
});

describe('DELETE /v1/templates/{id}', () => {
  it('answers 403 forbidden to a read key, and the template stays', async () => {
    const template = await made();
    expectError(await remove(template.id, bed.readKey), 403, 'forbidden');
    expect((await get(template.id)).status).toBe(200);
  });

  it('deletes the template and its versions; reads and sends with it answer 404', async () => {
    const template = await made();
    await update(template.id, { subject: 'v2 {{ first_name }}' });

    const res = await remove(template.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'template deleted' });
    expectError(await get(template.id), 404, 'template_not_found');
    expectError(await get(template.id, { version: '1' }), 404, 'template_not_found');
    expect(await new TemplateRepository(bed.c.store).getVersion(template.id, 1)).toBeUndefined();
    expectError(await send({ template_id: template.id, template_vars: { first_name: 'Ada' } }), 404, 'template_not_found');
    expectError(await remove(template.id), 404, 'template_not_found');
  });

  it("answers 404 for another account's template, which stays", async () => {
    const template = await made();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await remove(template.id, other.admin_key), 404, 'template_not_found');
    expect((await get(template.id)).status).toBe(200);
  });
});

describe('POST /v1/templates/{id}/render', () => {
  it('renders with values, defaults and samples; escapes HTML in body_html only; a text part made from the HTML when the template has none', async () => {
    const template = await made({ ...welcome, body_html: `${welcome.body_html}\n{{{ first_name }}}` });
    const res = await render(template.id, { vars: { first_name: 'Ada <3 & Bo' } });

    expect(res.status).toBe(200);
    expect(res.body.subject).toBe('Welcome, Ada <3 & Bo');
    expect(res.body.body_html).toContain('<h1>Hello Ada &lt;3 &amp; Bo</h1>');
    expect(res.body.body_html).toContain('Your plan: free.');
    expect(res.body.body_html).toContain('<li>a tip</li>');
    expect(res.body.body_html).toContain('\nAda <3 & Bo');
    // As a send mails it: made from the HTML, its link kept.
    expect(res.body.body_text).toContain('Hello Ada <3 & Bo');
    expect(res.body.body_text).toContain('Get started [https://example.com/start?u=Ada <3 & Bo]');
    expect(res.body.body_text).not.toContain('<li>');
    expect(bed.c.sent).toEqual([]);
    expect(bed.c.mailed).toEqual([]);
  });

  it('runs sections over lists and inverted sections over empty ones', async () => {
    const template = await made();
    const listed = await render(template.id, { vars: { first_name: 'A', tips: ['one', 'two'] } });
    expect(listed.body.body_html).toContain('<li>one</li><li>two</li>');
    const empty = await render(template.id, { vars: { first_name: 'A', tips: [] } });
    expect(empty.body.body_html).toContain('<p>No tips.</p>');
  });

  it('uses body_text as written when the template has one', async () => {
    const template = await made({ ...welcome, body_text: 'Hi {{ first_name }} & co' });
    expect((await render(template.id, { vars: { first_name: '<Ada>' } })).body.body_text).toBe('Hi <Ada> & co');
  });

  it('answers 400 missing_variable naming every required variable without a value', async () => {
    const template = await made({ ...welcome, variables: [...welcome.variables, { name: 'code', required: true }], body_text: '{{ code }}' });
    expectError(await render(template.id, { vars: { first_name: null } }), 400, 'missing_variable', /first_name, code$/);
  });

  it('answers 422 template_error for a render that runs past its bounds', async () => {
    const template = await made({ name: 'bomb', channel: 'email', subject: 'x', body_html: '{{#a}}{{#a}}{{#a}}{{#a}}xxxxxxxxxx{{/a}}{{/a}}{{/a}}{{/a}}' });
    expectError(await render(template.id, { vars: { a: Array.from({ length: 100 }, (_, i) => i) } }), 422, 'template_error', /^body_html: rendering/);
  });

  it('never reaches what the values did not hold (prototype names render nothing)', async () => {
    const template = await made({ name: 'proto', channel: 'email', subject: 's', body_html: '[{{ constructor }}][{{ a.constructor }}][{{# a.map }}x{{/ a.map }}][{{ a.length }}]' });
    expect((await render(template.id, { vars: { a: [1, 2] } })).body.body_html).toBe('[][][][2]');
  });

  it("refuses bad input and another account's template", async () => {
    const template = await made();
    expectInvalid(await render(template.id, { vars: 'nope' }), 'body.vars');
    expectInvalid(await render(template.id, { variables: {} }), 'body');
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await render(template.id, { vars: { first_name: 'A' } }, other.admin_key), 404, 'template_not_found');
  });
});

describe('sending with template_id', () => {
  it('renders the current version, mails it, and records the template and version on the message', async () => {
    const template = await made();
    const res = await send({ template_id: template.id, template_vars: { first_name: 'Ada', tips: ['t1'] } });
    expect(res.status).toBe(201);

    const stored = (await bed.c.store.get<MessageItem>(keys.message(res.body.id)))!;
    const content = await loadContent({ objects: bed.c.objects, messages: new MessageRepository(bed.c.store) }, stored);
    expect(content).toMatchObject({ subject: 'Welcome, Ada', template_id: template.id, template_version: 1 });
    expect(content.body_html).toContain('<li>t1</li>');
    expect(content.body_text).toBeUndefined();

    // A later edit never changes what the message was.
    await update(template.id, { subject: 'Changed {{ first_name }}' });
    await mailedOf(res.body.id);
    expect(bed.c.mailed.at(-1)).toMatchObject({ messageId: res.body.id, subject: 'Welcome, Ada' });
    // The worker made the text part from the rendered HTML, links kept.
    expect(bed.c.mailed.at(-1)!.text).toContain('Hello Ada');
    expect(bed.c.mailed.at(-1)!.text).toContain('Get started [https://example.com/start?u=Ada]');
    expect(bed.c.mailed.at(-1)!.text).not.toContain('<');
    const after = await send({ template_id: template.id, template_vars: { first_name: 'Bo' } });
    const later = (await bed.c.store.get<MessageItem>(keys.message(after.body.id)))!;
    expect(await loadContent({ objects: bed.c.objects, messages: new MessageRepository(bed.c.store) }, later)).toMatchObject({ subject: 'Changed Bo', template_version: 2 });
  });

  it("mails a template's CSS inlined onto its elements, keeping the style block for clients that read it", async () => {
    const styled = await made({
      name: 'styled',
      channel: 'email',
      subject: 'Hi {{ n }}',
      body_html: '<html><head><style>p.lead { color: #123456; } @media (max-width: 600px) { p.lead { font-size: 18px; } }</style></head><body><p class="lead">Hello {{ n }}</p></body></html>',
    });
    const res = await send({ template_id: styled.id, template_vars: { n: 'Ada' } });
    expect(res.status).toBe(201);

    await mailedOf(res.body.id);
    const html = bed.c.mailed.at(-1)!.html!;
    expect(html).toMatch(/<p class="lead" style="color: #123456;">Hello Ada<\/p>/);
    expect(html).toContain('@media (max-width: 600px)');
  });

  it('mails inline content as given: only templates are inlined', async () => {
    const body_html = '<html><head><style>p { color: red; }</style></head><body><p>Hi</p></body></html>';
    const res = await send({ payload: { subject: 'Inline', body_html } });
    expect(res.status).toBe(201);

    await mailedOf(res.body.id);
    expect(bed.c.mailed.at(-1)!.html).toBe(body_html);
  });

  it('answers each template error as the spec names it', async () => {
    const template = await made();
    expectError(await send({ template_id: template.id, template_vars: {} }), 400, 'missing_variable', /first_name/);
    expectError(await send({ template_id: 'tmpl_01jxxxxxxxxxxxxxxxxxxxxxxx' }), 404, 'template_not_found');
    const bomb = await made({ name: 'bomb', channel: 'email', subject: 'x', body_html: '{{#a}}{{#a}}{{#a}}{{#a}}xxxxxxxxxx{{/a}}{{/a}}{{/a}}{{/a}}' });
    expectError(await send({ template_id: bomb.id, template_vars: { a: Array.from({ length: 100 }, (_, i) => i) } }), 422, 'template_error');
    await update(template.id, { is_active: false });
    expectError(await send({ template_id: template.id, template_vars: { first_name: 'A' } }), 422, 'template_error', /inactive/);
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const theirs = await made();
    expect(theirs.id).not.toBe(template.id);
    expectError(
      await request({
        method: 'POST',
        path: '/v1/send',
        key: other.admin_key,
        body: { channel: 'email', idempotency_key: 'theirs', destination: { email: 'other@example.com' }, template_id: theirs.id, template_vars: { first_name: 'A' } },
      }),
      404,
      'template_not_found',
    );
    expect(bed.c.sent.filter((s) => s.queue === 'send')).toEqual([]);
  });

  it('takes a payload beside template_id (the spec makes payload required) and sends the template instead', async () => {
    const template = await made();
    const res = await send({ template_id: template.id, template_vars: { first_name: 'Ada' }, payload: { subject: 'inline', body_text: 'inline' } });
    expect(res.status).toBe(201);
    const stored = (await bed.c.store.get<MessageItem>(keys.message(res.body.id)))!;
    expect(await loadContent({ objects: bed.c.objects, messages: new MessageRepository(bed.c.store) }, stored)).toMatchObject({ subject: 'Welcome, Ada', template_version: 1 });
  });

  it('renders each batch item with its own values, and fails only the items that cannot render', async () => {
    const template = await made();
    const res = await sendBatch([
      { template_id: template.id, template_vars: { first_name: 'Ada' } },
      { template_id: template.id, template_vars: {} },
      { template_id: template.id, template_vars: { first_name: 'Bo', plan: 'pro' } },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.map((r: { success: boolean }) => r.success)).toEqual([true, false, true]);
    expect(res.body[1].error).toMatchObject({ code: 'missing_variable', status: 400 });
    const subjects = [];
    for (const item of [res.body[0], res.body[2]]) {
      const stored = (await bed.c.store.get<MessageItem>(keys.message(item.response.id)))!;
      const content = await loadContent({ objects: bed.c.objects, messages: new MessageRepository(bed.c.store) }, stored);
      expect(content).toMatchObject({ template_id: template.id, template_version: 1 });
      subjects.push(content.subject);
      if (content.body_html?.includes('Bo')) expect(content.body_html).toContain('Your plan: pro.');
    }
    expect(subjects).toEqual(['Welcome, Ada', 'Welcome, Bo']);
  });
});
