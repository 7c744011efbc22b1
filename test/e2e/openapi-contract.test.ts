// The committed OpenAPI document (docs/openapi.json) against the running service: every example of
// every operation is sent to the local runtime (`npm start`'s bin/local.ts, in its own process),
// and each answer must be the example's status, a status the operation documents, a body valid
// against the documented schema of that status and content type, with the documented required
// headers. An answer the document does not describe fails. One test per operation.
//
// What an example can count on (shared/http/contract.ts, RouteExample):
// - A new account per operation, in the sandbox, whose address is `{{owner_email}}`; its keys:
//   `admin` (live, the default for every key route), `send`, `read` (live), `test` (a test-mode admin
//   key); `staff` (the deployment's staff token, the default for staff routes); `none` (the default
//   for public routes).
// - Fixtures, made fresh through the API for each example that names them, one value per name and
//   example: see `fixtures` below (test/support/openapi.ts lists the names).
// - DNS from a server on loopback (DNS_SERVERS): example.com takes mail (MX), example.net has an
//   address but no MX, every other name does not exist. Webhook endpoints may be private
//   addresses (WEBHOOK_ALLOW_PRIVATE): http://127.0.0.1:<port> and https://localhost/… are accepted.
// - A JSON body is sent as JSON (a string body too, JSON-encoded). A multipart body is an object,
//   each property one part: `{filename, content_type, content}` is a file part; a string is a file
//   part named after its field (image/svg+xml when it starts with `<`, text/plain otherwise).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, type RunningDns } from '../support/dns-server';
import { startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { deref, examplesOf, fixturesIn, operationsOf, schemaValidator, substitute, type CredentialName, type Example, type Json, type Operation } from '../support/openapi';
import { Pacer, refusedBeforeRoute } from '../support/pacer';
import { startHttpReceiver, type Receiver } from '../support/receivers';
import { unsubscribeToken } from '../../shared/sending/unsubscribe/token';

const doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as Json;
const operations = operationsOf(doc);
const validatorFor = schemaValidator(doc);

let dns: RunningDns;
let receiver: Receiver;
let dataDir: string;
let runtime: RuntimeProcess;
let staffToken: string;

beforeAll(async () => {
  dns = await startDnsServer({
    'example.com': { mx: [{ exchange: 'mx.example.com', priority: 10 }], a: ['192.0.2.1'] },
    'mx.example.com': { a: ['192.0.2.2'] },
    'example.net': { a: ['192.0.2.3'] },
  });
  receiver = await startHttpReceiver();
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-contract-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, DNS_SERVERS: dns.server, WEBHOOK_ALLOW_PRIVATE: 'true' });
  staffToken = (JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { staff_token: string }).staff_token;
});
afterAll(async () => {
  await runtime?.stop();
  await receiver?.close();
  await dns?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// ---- requests, paced under the limits (10 a second per account, and per client IP) ----

const pacer = new Pacer(8);

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

interface Outgoing {
  method: string;
  /** Path and query. */
  target: string;
  secret?: string;
  /** The pacer's bucket: the account the secret belongs to, or the client IP. */
  bucket: string;
  body?: { contentType: string; value: unknown };
}

function encodeBody(contentType: string, value: unknown): { headers: Record<string, string>; body: string | FormData } {
  if (!contentType.startsWith('multipart/form-data')) {
    return { headers: { 'content-type': contentType }, body: typeof value === 'string' && contentType !== 'application/json' ? value : JSON.stringify(value) };
  }
  const form = new FormData();
  const parts = value !== null && typeof value === 'object' ? Object.entries(value as Record<string, unknown>) : [['file', value] as const];
  for (const [name, part] of parts) {
    const file = part as { filename?: string; content_type?: string; content?: unknown } | null;
    if (file !== null && typeof file === 'object' && typeof file.content === 'string') {
      form.append(name, new Blob([file.content], { type: file.content_type ?? 'application/octet-stream' }), file.filename ?? name);
    } else if (typeof part === 'string') {
      form.append(name, new Blob([part], { type: part.trimStart().startsWith('<') ? 'image/svg+xml' : 'text/plain' }), name);
    } else form.append(name, JSON.stringify(part));
  }
  return { headers: {}, body: form };
}

async function send(out: Outgoing): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    await pacer.slot(out.bucket);
    const encoded = out.body ? encodeBody(out.body.contentType, out.body.value) : undefined;
    const res = await fetch(`${runtime.url}${out.target}`, {
      method: out.method,
      headers: { ...(out.secret ? { authorization: `Bearer ${out.secret}` } : {}), ...(encoded?.headers ?? {}) },
      body: encoded?.body,
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const wait = refusedBeforeRoute(res.status, res.headers, json);
    if (wait === undefined) return { status: res.status, headers: res.headers, text, json };
    if (attempt >= 10) throw new Error(`${out.method} ${out.target} was refused ${attempt} times before it ran: ${res.status} ${text}`);
    await pause(wait * 1000);
  }
}

// ---- the account of an operation, its credentials and the fixtures ----

let counter = 0;
/** Lower-case letters and digits: fits ids, names, idempotency keys, local parts and DNS labels. */
const uniqueToken = (): string => `t${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

class Account {
  private readonly keys = new Map<CredentialName, Promise<string>>();
  private constructor(
    readonly id: string,
    readonly email: string,
    private readonly adminKey: string,
  ) {}

  static async create(): Promise<Account> {
    const email = `owner-${uniqueToken()}@example.com`;
    const created = await expectStatus('the account', 201, { method: 'POST', target: '/v1/admin/accounts', secret: staffToken, bucket: 'ip', body: json({ name: 'contract test', email }) });
    const body = created.json as { account_id: string; admin_key: string };
    return new Account(body.account_id, email, body.admin_key);
  }

  /** The secret of a credential; keys are made through POST /v1/keys when first asked for. */
  async secret(as: CredentialName): Promise<string | undefined> {
    if (as === 'none') return undefined;
    if (as === 'staff') return staffToken;
    if (as === 'admin') return this.adminKey;
    if (!this.keys.has(as)) {
      const body = as === 'test' ? { scope: 'admin', test_mode: true, name: 'contract test-mode admin' } : { scope: as, name: `contract ${as}` };
      this.keys.set(as, this.call('admin', 'POST', '/v1/keys', body, 201, `the ${as} key`).then((a) => (a.json as { key: string }).key));
    }
    return this.keys.get(as);
  }

  bucketOf(as: CredentialName): string {
    return as === 'none' || as === 'staff' ? 'ip' : this.id;
  }

  async request(as: CredentialName, method: string, target: string, body?: { contentType: string; value: unknown }): Promise<Answer> {
    return send({ method, target, secret: await this.secret(as), bucket: this.bucketOf(as), body });
  }

  /** A call a fixture needs: anything but `status` fails the example, naming the fixture. */
  async call(as: CredentialName, method: string, target: string, body: unknown, status: number, what: string): Promise<Answer> {
    return expectStatus(what, status, { method, target, secret: await this.secret(as), bucket: this.bucketOf(as), body: body === undefined ? undefined : json(body) });
  }
}

const json = (value: unknown) => ({ contentType: 'application/json', value });

async function expectStatus(what: string, status: number, out: Outgoing): Promise<Answer> {
  const answer = await send(out);
  if (answer.status !== status) throw new Error(`making ${what}: ${out.method} ${out.target} answered ${answer.status} (expected ${status}): ${answer.text}`);
  return answer;
}

let sharedSender: Promise<string> | undefined;
const sharedSenderOf = (account: Account): Promise<string> =>
  (sharedSender ??= account.call('read', 'GET', '/v1/account/verification', undefined, 200, 'the shared sender').then((a) => (a.json as { shared_email_sender: string }).shared_email_sender));

const email = (account: Account, id: string, extra: Json = {}) => ({
  channel: 'email',
  idempotency_key: id,
  destination: { email: account.email },
  payload: { subject: `contract ${id}`, body_text: 'A message made for the contract test.' },
  ...extra,
});

/** Makes one fixture for one example; `values` holds what the example has so far. */
const fixtures: Record<string, (account: Account, values: Record<string, string>) => Promise<void>> = {
  unique: async (_, values) => {
    values.unique = uniqueToken();
  },
  owner_email: async (account, values) => {
    values.owner_email = account.email;
  },
  spare_key_id: async (account, values) => {
    const key = await account.call('admin', 'POST', '/v1/keys', { scope: 'read', name: `spare ${uniqueToken()}` }, 201, '{{spare_key_id}}');
    values.spare_key_id = (key.json as { id: string }).id;
  },
  // A message sent live to the account's own address (the sandbox allows it), with its key.
  message_id: async (account, values) => {
    const key = `fixture-${uniqueToken()}`;
    const sent = await account.call('send', 'POST', '/v1/send', email(account, key), 201, '{{message_id}}');
    values.message_id = (sent.json as { id: string }).id;
    values.idempotency_key = key;
  },
  idempotency_key: (account, values) => fixtures.message_id!(account, values),
  scheduled_message_id: async (account, values) => {
    const key = `fixture-${uniqueToken()}`;
    const body = email(account, key, { scheduled_at: new Date(Date.now() + 3600_000).toISOString() });
    const sent = await account.call('send', 'POST', '/v1/send', body, 201, '{{scheduled_message_id}}');
    values.scheduled_message_id = (sent.json as { id: string }).id;
  },
  domain: async (account, values) => {
    const added = await account.call('admin', 'POST', '/v1/domains', { domain: `${uniqueToken()}.example.com` }, 201, '{{domain}}');
    values.domain = (added.json as { domain: string }).domain;
  },
  webhook_id: async (account, values) => {
    const made = await account.call('send', 'POST', '/v1/webhooks', { endpoint_url: `${receiver.url}/hooks` }, 201, '{{webhook_id}}');
    values.webhook_id = (made.json as { id: string }).id;
  },
  // Registered, not yet verified (the confirmation link goes to the SES emulator).
  test_recipient_id: async (account, values) => {
    const made = await account.call('send', 'POST', '/v1/test-recipients', { email: `tester-${uniqueToken()}@example.com` }, 201, '{{test_recipient_id}}');
    values.test_recipient_id = (made.json as { id: string }).id;
  },
  // A bulk send from the shared sender to the account's own address.
  broadcast_id: async (account, values) => {
    const body = { from_email: await sharedSenderOf(account), subject: 'contract broadcast', body_text: 'hello', recipients: [{ email: account.email }] };
    const made = await account.call('send', 'POST', '/v1/send/bulk', body, 202, '{{broadcast_id}}');
    values.broadcast_id = (made.json as { id: string }).id;
  },
  // A draft broadcast (inline content, one inline recipient), to edit, send or cancel.
  draft_broadcast_id: async (account, values) => {
    const body = { from_email: await sharedSenderOf(account), subject: 'contract draft', body_text: 'hello', recipients: [{ email: account.email }] };
    const made = await account.call('send', 'POST', '/v1/broadcasts', body, 201, '{{draft_broadcast_id}}');
    values.draft_broadcast_id = (made.json as { id: string }).id;
  },
  // Another account, for the staff routes.
  account_id: async (account, values) => {
    const made = await account.call('staff', 'POST', '/v1/admin/accounts', { name: `spare ${uniqueToken()}` }, 201, '{{account_id}}');
    values.account_id = (made.json as { account_id: string }).account_id;
  },
  // An email template with one required variable, first_name.
  template_id: async (account, values) => {
    const body = {
      name: `contract ${uniqueToken()}`,
      channel: 'email',
      subject: 'Hello {{ first_name }}',
      body_html: '<p>Hello {{ first_name }}, <a href="https://example.com/start">get started</a>.</p>',
      variables: [{ name: 'first_name', required: true, sample: 'Ada' }],
    };
    const made = await account.call('send', 'POST', '/v1/templates', body, 201, '{{template_id}}');
    values.template_id = (made.json as { id: string }).id;
  },
  // A snippet with its own name; no template includes it, so it may be renamed and deleted.
  snippet_id: async (account, values) => {
    const body = { name: `contract_${uniqueToken()}`, body_html: '<p>Sent by {{ company }}</p>' };
    const made = await account.call('send', 'POST', '/v1/templates/snippets', body, 201, '{{snippet_id}}');
    values.snippet_id = (made.json as { id: string }).id;
  },
  // A contact with an address of its own (in no list).
  contact_id: async (account, values) => {
    const body = { email: `contact-${uniqueToken()}@example.com`, first_name: 'Ada', data: { plan: 'pro' } };
    const made = await account.call('send', 'POST', '/v1/contacts', body, 201, '{{contact_id}}');
    values.contact_id = (made.json as { id: string }).id;
    values.contact_email = (made.json as { email: string }).email;
  },
  contact_email: (account, values) => fixtures.contact_id!(account, values),
  // A static list.
  list_id: async (account, values) => {
    const made = await account.call('send', 'POST', '/v1/lists', { name: `contract ${uniqueToken()}`, type: 'static' }, 201, '{{list_id}}');
    values.list_id = (made.json as { id: string }).id;
  },
  // A dynamic list: the contacts on the pro plan.
  dynamic_list_id: async (account, values) => {
    const filter = { match: 'all', conditions: [{ field: 'data.plan', op: 'eq', value: 'pro' }] };
    const made = await account.call('send', 'POST', '/v1/lists', { name: `contract ${uniqueToken()}`, type: 'dynamic', filter }, 201, '{{dynamic_list_id}}');
    values.dynamic_list_id = (made.json as { id: string }).id;
  },
  // A contact that is a member of the example's static list ({{list_id}}, made first when the example has none).
  member_id: async (account, values) => {
    if (values.list_id === undefined) await fixtures.list_id!(account, values);
    const made = await account.call('send', 'POST', '/v1/contacts', { email: `member-${uniqueToken()}@example.com`, list_ids: [values.list_id] }, 201, '{{member_id}}');
    values.member_id = (made.json as { id: string }).id;
  },
  // A CSV of two contacts stored with POST /v1/uploads.
  upload_key: async (account, values) => {
    const csv = `email,first_name\nimport-${uniqueToken()}@example.com,Ada\nimport-${uniqueToken()}@example.com,Grace\n`;
    const made = await account.request('send', 'POST', '/v1/uploads', { contentType: 'text/csv', value: csv });
    if (made.status !== 201) throw new Error(`making {{upload_key}}: POST /v1/uploads answered ${made.status} (expected 201): ${made.text}`);
    values.upload_key = (made.json as { key: string }).key;
  },
  // An import of {{upload_key}} (made first when the example has none).
  import_id: async (account, values) => {
    if (values.upload_key === undefined) await fixtures.upload_key!(account, values);
    const made = await account.call('send', 'POST', '/v1/contacts/import', { object_key: values.upload_key }, 202, '{{import_id}}');
    values.import_id = (made.json as { id: string }).id;
  },
  // The unsubscribe token of a marketing message sent live to the account's own address, signed
  // with the runtime's unsubscribe key (DATA_DIR/secrets.json), as its List-Unsubscribe link says.
  unsubscribe_token: async (account, values) => {
    const sent = await account.call('send', 'POST', '/v1/send', email(account, `fixture-${uniqueToken()}`, { message_type: 'marketing' }), 201, '{{unsubscribe_token}}');
    const secret = (JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8')) as Record<string, string>)['unsubscribe-signing-key']!;
    values.unsubscribe_token = unsubscribeToken(secret, { id: (sent.json as { id: string }).id, account_id: account.id, channel: 'email', recipient: account.email });
  },
  // A sign-up form (single opt-in, email and first name) on the example's static list ({{list_id}}, made first when the example has none).
  form_id: async (account, values) => {
    if (values.list_id === undefined) await fixtures.list_id!(account, values);
    const body = { name: `contract ${uniqueToken()}`, list_id: values.list_id, fields: [{ key: 'email', label: 'Email' }, { key: 'first_name', label: 'First name' }] };
    const made = await account.call('send', 'POST', '/v1/forms', body, 201, '{{form_id}}');
    values.form_id = (made.json as { id: string }).id;
  },
  // A domain with inbound email on: registered, its records published on the loopback DNS server,
  // verified through the API (which takes the account out of the sandbox), then enabled.
  inbound_domain: async (account, values) => {
    const name = `${uniqueToken()}.example.com`;
    const added = await account.call('admin', 'POST', '/v1/domains', { domain: name }, 201, '{{inbound_domain}}');
    for (const record of (added.json as { dns_records: Array<{ type: string; name: string; value: string }> }).dns_records) {
      if (record.type === 'CNAME') dns.publish(record.name, { cname: record.value });
      if (record.type === 'TXT') dns.publish(record.name, { txt: [record.value] });
    }
    await account.call('admin', 'POST', `/v1/domains/${name}/verify`, undefined, 200, '{{inbound_domain}}');
    await account.call('admin', 'POST', `/v1/domains/${name}/inbound`, { enabled: true }, 200, '{{inbound_domain}}');
    values.inbound_domain = name;
  },
  // A webhook route forwarding to the loopback receiver, on the example's {{inbound_domain}} (made first when the example has none).
  inbound_route_id: async (account, values) => {
    if (values.inbound_domain === undefined) await fixtures.inbound_domain!(account, values);
    const body = { domain: values.inbound_domain, match_prefix: `route-${uniqueToken()}`.toLowerCase(), destination_type: 'webhook', forward_url: `${receiver.url}/inbound` };
    const made = await account.call('send', 'POST', '/v1/inbound/routes', body, 201, '{{inbound_route_id}}');
    values.inbound_route_id = (made.json as { id: string }).id;
  },
  // A spare live key with a spend cap of its own.
  capped_key_id: async (account, values) => {
    const key = await account.call('admin', 'POST', '/v1/keys', { scope: 'read', name: `capped ${uniqueToken()}` }, 201, '{{capped_key_id}}');
    values.capped_key_id = (key.json as { id: string }).id;
    await account.call('admin', 'PUT', '/v1/spend-caps', { key_id: values.capped_key_id, hard_limit_micros: 1_000_000 }, 200, '{{capped_key_id}}');
  },
  suppressed_email: async (account, values) => {
    const recipient = `suppressed-${uniqueToken()}@example.com`;
    await account.call('send', 'POST', '/v1/suppressions', { channel: 'email', recipient, reason: 'contract test' }, 201, '{{suppressed_email}}');
    values.suppressed_email = recipient;
  },
};

// ---- replaying an example and checking its answer against the document ----

function defaultCredential(op: Json): CredentialName {
  const kind = (op['x-postbox-access'] as { kind?: string } | undefined)?.kind;
  if (kind === 'staff') return 'staff';
  if (kind === 'public') return 'none';
  return 'admin';
}

function targetOf(o: Operation, example: Example, values: Record<string, string>): string {
  const params = substitute(example.params ?? {}, values);
  const path = o.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? `{${name}}`));
  const query = new URLSearchParams(substitute(example.query ?? {}, values)).toString();
  return query ? `${path}?${query}` : path;
}

const mediaType = (header: string | null): string => (header ?? '').split(';')[0]!.trim().toLowerCase();
const isJson = (media: string): boolean => media === 'application/json' || media.endsWith('+json');

/** Why the answer is not what the document says (empty when it is). */
function check(o: Operation, example: Example, answer: Answer): string[] {
  const problems: string[] = [];
  const shown = answer.text.length > 500 ? `${answer.text.slice(0, 500)}…` : answer.text;
  if (answer.status !== example.status) problems.push(`answered ${answer.status}, the example says ${example.status}: ${shown}`);
  const documented = (o.op.responses as Json)[String(answer.status)] as Json | undefined;
  if (!documented) return [...problems, `${answer.status} is not a documented response of ${o.key}: ${shown}`];
  const response = deref(doc, documented);
  const content = response.content as Record<string, Json> | undefined;
  if (!content) {
    if (answer.text !== '') problems.push(`${answer.status} is documented without a body, but the answer has one: ${shown}`);
  } else {
    const media = mediaType(answer.headers.get('content-type'));
    const described = content[media];
    if (!described) problems.push(`${answer.status} answered ${media || 'no content type'}; the document describes ${Object.keys(content).join(', ')}`);
    else {
      const value = isJson(media) ? answer.json : answer.text;
      if (isJson(media) && value === undefined) problems.push(`${answer.status} answered ${media} that does not parse: ${shown}`);
      else if (described.schema) {
        const validate = validatorFor(deref(doc, described.schema));
        if (!validate(value)) {
          const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
          problems.push(`${answer.status} body does not match the documented schema: ${errors.join('; ')}; body ${shown}`);
        }
      }
    }
  }
  for (const [name, ref] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    const header = deref(doc, ref);
    const value = answer.headers.get(name);
    if (value === null) {
      if (header.required) problems.push(`${answer.status} lacks the required header ${name}`);
      continue;
    }
    const schema = header.schema ? deref(doc, header.schema) : undefined;
    if (!schema) continue;
    const typed = schema.type === 'integer' || schema.type === 'number' ? (/^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value) : value;
    if (!validatorFor(schema)(typed)) problems.push(`${answer.status} header ${name}: ${value} does not match ${JSON.stringify(schema)}`);
  }
  return problems;
}

async function replay(o: Operation, example: Example, account: Account): Promise<string[]> {
  const values: Record<string, string> = {};
  for (const name of fixturesIn([example.params, example.query, example.body])) {
    const make = fixtures[name];
    if (!make) return [`names {{${name}}}, which is not a fixture of this test`];
    if (values[name] === undefined) await make(account, values);
  }
  const requestBody = o.op.requestBody ? (deref(doc, o.op.requestBody as Json).content as Record<string, Json> | undefined) : undefined;
  const contentType = Object.keys(requestBody ?? {})[0] ?? 'application/json';
  const body = example.body === undefined ? undefined : { contentType, value: substitute(example.body, values) };
  const answer = await account.request(example.as ?? defaultCredential(o.op), o.method.toUpperCase(), targetOf(o, example, values), body);
  return check(o, example, answer);
}

describe('docs/openapi.json against the local runtime', () => {
  it('has operations to replay', () => {
    expect(operations.length).toBeGreaterThan(0);
  });

  for (const o of operations) {
    it(`${String(o.op.operationId)}: ${o.key}`, async () => {
      const account = await Account.create();
      const problems: string[] = [];
      for (const example of examplesOf(o.op)) {
        try {
          problems.push(...(await replay(o, example, account)).map((p) => `"${example.name}": ${p}`));
        } catch (error) {
          problems.push(`"${example.name}": ${error instanceof Error ? error.message : String(error)}`);
        }
      }

      expect(problems).toEqual([]);
    });
  }
});
