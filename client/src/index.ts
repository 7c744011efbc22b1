// @postbox/client: a thin typed wrapper over fetch. Types come from the OpenAPI document
// (schema.d.ts, generated; types.ts reads them by path and method); the only runtime needs are
// fetch and, for verifySignature, WebCrypto.
//
// Retries: 429, 503, 409 idempotency_key_in_use and other 5xx are sent again, up to maxRetries,
// with the very same body (so the same idempotency_key: the service answers a repeat with the
// first answer and sends nothing twice), after Retry-After when the answer gives it, else after an
// exponential backoff with jitter. A 5xx other than 503, or no answer at all, may come after the
// work was done: those are sent again only when repeating the request is harmless (GET, PUT,
// DELETE, the sends, whose items carry idempotency keys, and the upserts), never for a create
// such as a new key or a new webhook.
import { PostboxError } from './errors';
import type { Body, ItemOf, Ok, PageOf, PathParams, Query } from './types';

export { PostboxError } from './errors';
export type { ClientErrorCode, ErrorCode, PostboxErrorInit } from './errors';
export { verifySignature } from './signature';
export type { VerifySignatureInput, WebhookHeaders } from './signature';
export type { Body, HttpMethod, ItemOf, KnownErrorCode, MethodOf, Ok, Operation, PageOf, PathParams, Query } from './types';
export type { components, operations, paths } from './types';
export type {
  AccountVerification,
  AddListMember,
  BatchItemResult,
  BimiState,
  Broadcast,
  BroadcastsPage,
  BroadcastWithStats,
  BulkSendRequest,
  CanceledMessage,
  Channel,
  Contact,
  ContactList,
  ContactListsPage,
  ContactsPage,
  ContactsQuery,
  CreateContact,
  CreateContactList,
  CreateAccount,
  CreatedAccount,
  CreateSuppression,
  CreateSnippet,
  CreateTemplate,
  CreateWebhook,
  DeliveriesPage,
  DnsRecord,
  Domain,
  DomainVerification,
  ErrorBody,
  ImportResult,
  ImportSuppressions,
  ListFilter,
  Message,
  MessagesPage,
  MessagesQuery,
  MessageSummary,
  PageQuery,
  RemoveSuppression,
  RenderedTemplate,
  SendRequest,
  SendResponse,
  Snippet,
  SnippetsPage,
  Suppression,
  SuppressionsPage,
  SuppressionsQuery,
  Template,
  TemplatesPage,
  TemplateSummary,
  TestRecipient,
  TestRecipientsPage,
  TimelineEvent,
  UpdateContact,
  UpdateContactList,
  UpdateSnippet,
  UpdateTemplate,
  UpdateWebhook,
  Usage,
  ValidateRequest,
  ValidateResult,
  Webhook,
  WebhookDelivery,
  WebhookEventType,
  WebhooksPage,
  WebhookWithSecret,
} from './types';

export interface PostboxOptions {
  /**
   * An API key (sk_live_…, sk_test_…); the staff token for the `admin` routes. `null` in a
   * browser page that signs in with the console's session cookie instead: the browser sends the
   * cookie itself, and no Authorization header is sent (one would win over the cookie).
   */
  apiKey: string | null;
  /** With `apiKey: null` and a session: its CSRF token (GET /v1/auth/session), sent as X-CSRF-Token on every call but GET. */
  csrfToken?: string;
  /** Where the API is served, e.g. https://api.example.com or http://localhost:3000. */
  baseUrl: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Further attempts after the first on a retryable answer; default 2. */
  maxRetries?: number;
  /** Per attempt, answer body included; default 30000. */
  timeoutMs?: number;
  /** Ceiling of the backoff between attempts when the answer gives no Retry-After; default 8000. */
  maxBackoffMs?: number;
  /**
   * A Retry-After longer than this is not waited for: the error is thrown at once, carrying
   * `retryAfter` (a daily limit asks to wait until tomorrow). Default 60.
   */
  maxRetryAfterSeconds?: number;
  /** For tests: how the client waits between attempts. */
  sleep?: (ms: number) => Promise<void>;
  /** For tests: the jitter's randomness, in [0, 1). */
  random?: () => number;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Call {
  method: Method;
  path: string;
  query?: object;
  body?: unknown;
  /** Repeating it after no answer cannot do anything twice. */
  resendable?: boolean;
}

const enc = encodeURIComponent;
const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function retryAfterSeconds(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * 429 and 503 are refusals before the work (a limiter, a shed request) and 409
 * idempotency_key_in_use asks to come back: always sent again. Another 5xx may come after the
 * work was done, so it is sent again only when repeating the request is harmless. A 503 whose
 * code ends in `_not_configured` (billing, OAuth, test sends) is the deployment's setting, which
 * no retry changes: never sent again.
 */
const retryable = (error: PostboxError, resendable: boolean): boolean => {
  if (error.code.endsWith('_not_configured')) return false;
  return error.status === 429 || error.status === 503 || (error.status === 409 && error.code === 'idempotency_key_in_use') || (error.status >= 500 && resendable);
};

export class Postbox {
  readonly #apiKey: string | null;
  readonly #csrfToken: string | undefined;
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #maxBackoffMs: number;
  readonly #maxRetryAfterSeconds: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;

  constructor(options: PostboxOptions) {
    if (options.apiKey !== null && !options.apiKey) throw new TypeError('Postbox: apiKey is required (null for a browser session)');
    if (!options.baseUrl) throw new TypeError('Postbox: baseUrl is required');
    this.#apiKey = options.apiKey;
    this.#csrfToken = options.csrfToken;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('Postbox: no fetch in this runtime; pass options.fetch');
    // Called unbound: some runtimes refuse a fetch called with another `this`.
    this.#fetch = (input, init) => f(input, init);
    this.#maxRetries = Math.max(0, options.maxRetries ?? 2);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxBackoffMs = options.maxBackoffMs ?? 8_000;
    this.#maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? 60;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
  }

  // ---- Sending ------------------------------------------------------------------------------

  /** Sends one message; a repeat with the same idempotency_key and body answers the first result. */
  send = (body: Body<'/v1/send', 'post'>) => this.#request<Ok<'/v1/send', 'post'>>({ method: 'POST', path: '/v1/send', body, resendable: true });

  /** Up to 1000 sends, each on its own: the answer holds one result per item, in order. */
  sendBatch = (items: Body<'/v1/send/batch', 'post'>) =>
    this.#request<Ok<'/v1/send/batch', 'post'>>({ method: 'POST', path: '/v1/send/batch', body: items, resendable: true });

  /** A bulk email to inline recipients or a contact list, fanned out asynchronously (a broadcast, 202). */
  sendBulk = (body: Body<'/v1/send/bulk', 'post'>) => this.#request<Ok<'/v1/send/bulk', 'post'>>({ method: 'POST', path: '/v1/send/bulk', body });

  /** Checks an address: syntax and a domain that takes mail. */
  validate = (body: Body<'/v1/validate', 'post'>) =>
    this.#request<Ok<'/v1/validate', 'post'>>({ method: 'POST', path: '/v1/validate', body, resendable: true });

  // ---- Resources ----------------------------------------------------------------------------

  readonly messages = {
    /** Newest first; walk every page with `paginate(postbox.messages.list, query)`. */
    list: (query?: Omit<Query<'/v1/messages', 'get'>, 'idempotency_key'>) =>
      this.#request<PageOf<Ok<'/v1/messages', 'get'>>>({ method: 'GET', path: '/v1/messages', query }),
    /** A message with its event timeline. */
    get: (id: PathParams<'/v1/messages/{id}', 'get'>['id']) =>
      this.#request<Ok<'/v1/messages/{id}', 'get'>>({ method: 'GET', path: `/v1/messages/${enc(id)}` }),
    /** The message a send with this idempotency_key made, with its timeline. */
    getByIdempotencyKey: (idempotencyKey: NonNullable<Query<'/v1/messages', 'get'>['idempotency_key']>) =>
      this.#request<Exclude<Ok<'/v1/messages', 'get'>, PageOf<Ok<'/v1/messages', 'get'>>>>({
        method: 'GET',
        path: '/v1/messages',
        query: { idempotency_key: idempotencyKey } satisfies Query<'/v1/messages', 'get'>,
      }),
    /** Cancels a scheduled message before it is sent. */
    cancel: (id: PathParams<'/v1/messages/{id}/cancel', 'post'>['id']) =>
      this.#request<Ok<'/v1/messages/{id}/cancel', 'post'>>({ method: 'POST', path: `/v1/messages/${enc(id)}/cancel`, resendable: true }),
  };

  readonly suppressions = {
    list: (query?: Query<'/v1/suppressions', 'get'>) => this.#request<Ok<'/v1/suppressions', 'get'>>({ method: 'GET', path: '/v1/suppressions', query }),
    add: (body: Body<'/v1/suppressions', 'post'>) =>
      this.#request<Ok<'/v1/suppressions', 'post'>>({ method: 'POST', path: '/v1/suppressions', body, resendable: true }),
    remove: (query: Query<'/v1/suppressions', 'delete'>) =>
      this.#request<Ok<'/v1/suppressions', 'delete'>>({ method: 'DELETE', path: '/v1/suppressions', query }),
    /** Upserts up to 10000 entries: a repeat is safe. */
    import: (body: Body<'/v1/suppressions/import', 'post'>) =>
      this.#request<Ok<'/v1/suppressions/import', 'post'>>({ method: 'POST', path: '/v1/suppressions/import', body, resendable: true }),
  };

  readonly domains = {
    list: () => this.#request<Ok<'/v1/domains', 'get'>>({ method: 'GET', path: '/v1/domains' }),
    create: (body: Body<'/v1/domains', 'post'>) => this.#request<Ok<'/v1/domains', 'post'>>({ method: 'POST', path: '/v1/domains', body }),
    get: (domain: PathParams<'/v1/domains/{domain}', 'get'>['domain']) =>
      this.#request<Ok<'/v1/domains/{domain}', 'get'>>({ method: 'GET', path: `/v1/domains/${enc(domain)}` }),
    /** Open and click tracking of the domain's marketing mail; only the fields sent change. */
    update: (domain: PathParams<'/v1/domains/{domain}', 'patch'>['domain'], body: Body<'/v1/domains/{domain}', 'patch'>) =>
      this.#request<Ok<'/v1/domains/{domain}', 'patch'>>({ method: 'PATCH', path: `/v1/domains/${enc(domain)}`, body }),
    remove: (domain: PathParams<'/v1/domains/{domain}', 'delete'>['domain']) =>
      this.#request<Ok<'/v1/domains/{domain}', 'delete'>>({ method: 'DELETE', path: `/v1/domains/${enc(domain)}` }),
    verify: (domain: PathParams<'/v1/domains/{domain}/verify', 'post'>['domain']) =>
      this.#request<Ok<'/v1/domains/{domain}/verify', 'post'>>({ method: 'POST', path: `/v1/domains/${enc(domain)}/verify`, resendable: true }),
    setFromName: (domain: PathParams<'/v1/domains/{domain}/from-name', 'put'>['domain'], body: Body<'/v1/domains/{domain}/from-name', 'put'>) =>
      this.#request<Ok<'/v1/domains/{domain}/from-name', 'put'>>({ method: 'PUT', path: `/v1/domains/${enc(domain)}/from-name`, body }),
    /** The DNS setup guide for the domain's DNS provider. */
    dnsSetup: (domain: PathParams<'/v1/domains/{domain}/dns-setup', 'get'>['domain']) =>
      this.#request<Ok<'/v1/domains/{domain}/dns-setup', 'get'>>({ method: 'GET', path: `/v1/domains/${enc(domain)}/dns-setup` }),
    /** The records as a zone file fragment (text). */
    zoneFile: (domain: PathParams<'/v1/domains/{domain}/dns-setup/zonefile', 'get'>['domain']) =>
      this.#request<Ok<'/v1/domains/{domain}/dns-setup/zonefile', 'get'>>({ method: 'GET', path: `/v1/domains/${enc(domain)}/dns-setup/zonefile` }),
    bimi: {
      get: (domain: PathParams<'/v1/domains/{domain}/bimi', 'get'>['domain']) =>
        this.#request<Ok<'/v1/domains/{domain}/bimi', 'get'>>({ method: 'GET', path: `/v1/domains/${enc(domain)}/bimi` }),
      setLogoUrl: (domain: PathParams<'/v1/domains/{domain}/bimi', 'put'>['domain'], body: Body<'/v1/domains/{domain}/bimi', 'put'>) =>
        this.#request<Ok<'/v1/domains/{domain}/bimi', 'put'>>({ method: 'PUT', path: `/v1/domains/${enc(domain)}/bimi`, body }),
      /** Uploads an SVG Tiny PS logo (at most 1 MiB), served from this API for mailbox providers. */
      uploadLogo: (domain: PathParams<'/v1/domains/{domain}/bimi/logo', 'post'>['domain'], svg: string | Blob) => {
        const form = new FormData();
        form.append('file', typeof svg === 'string' ? new Blob([svg], { type: 'image/svg+xml' }) : svg, 'logo.svg');
        return this.#request<Ok<'/v1/domains/{domain}/bimi/logo', 'post'>>({ method: 'POST', path: `/v1/domains/${enc(domain)}/bimi/logo`, body: form, resendable: true });
      },
    },
  };

  readonly testRecipients = {
    list: (query?: Query<'/v1/test-recipients', 'get'>) =>
      this.#request<Ok<'/v1/test-recipients', 'get'>>({ method: 'GET', path: '/v1/test-recipients', query }),
    /** Registers a sandbox test recipient (at most 3); it gets a one-time link to confirm. */
    add: (body: Body<'/v1/test-recipients', 'post'>) => this.#request<Ok<'/v1/test-recipients', 'post'>>({ method: 'POST', path: '/v1/test-recipients', body }),
    remove: (id: PathParams<'/v1/test-recipients/{id}', 'delete'>['id']) =>
      this.#request<Ok<'/v1/test-recipients/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/test-recipients/${enc(id)}` }),
    /** What the one-time link in the confirmation mail does (a public route: the key is sent, not needed). */
    verify: (token: Query<'/v1/test-recipients/verify', 'get'>['token']) =>
      this.#request<Ok<'/v1/test-recipients/verify', 'get'>>({
        method: 'GET',
        path: '/v1/test-recipients/verify',
        query: { token } satisfies Query<'/v1/test-recipients/verify', 'get'>,
      }),
  };

  /** The unsubscribe link of a marketing message (public routes: the token is the credential). */
  readonly unsubscribe = {
    /** What the link would do; changes nothing. */
    show: (token: PathParams<'/v1/unsubscribe/{token}', 'get'>['token']) =>
      this.#request<Ok<'/v1/unsubscribe/{token}', 'get'>>({ method: 'GET', path: `/v1/unsubscribe/${enc(token)}` }),
    /** Unsubscribes the message's recipient on its channel; a repeat changes nothing. */
    confirm: (token: PathParams<'/v1/unsubscribe/{token}', 'post'>['token']) =>
      this.#request<Ok<'/v1/unsubscribe/{token}', 'post'>>({ method: 'POST', path: `/v1/unsubscribe/${enc(token)}`, resendable: true }),
  };

  readonly templates = {
    /** The 20 built-in templates to start from, each with sample variables. */
    gallery: () => this.#request<Ok<'/v1/templates/gallery', 'get'>>({ method: 'GET', path: '/v1/templates/gallery' }),
    /** Version 1 of a new template; 400 invalid_template names the part, line and problem. */
    create: (body: Body<'/v1/templates', 'post'>) => this.#request<Ok<'/v1/templates', 'post'>>({ method: 'POST', path: '/v1/templates', body }),
    list: (query?: Query<'/v1/templates', 'get'>) => this.#request<Ok<'/v1/templates', 'get'>>({ method: 'GET', path: '/v1/templates', query }),
    /** The current version, or `{ version: '2' }` for an earlier one. */
    get: (id: PathParams<'/v1/templates/{id}', 'get'>['id'], query?: Query<'/v1/templates/{id}', 'get'>) =>
      this.#request<Ok<'/v1/templates/{id}', 'get'>>({ method: 'GET', path: `/v1/templates/${enc(id)}`, query }),
    /** A change to subject, bodies or variables answers the new version. */
    update: (id: PathParams<'/v1/templates/{id}', 'put'>['id'], body: Body<'/v1/templates/{id}', 'put'>) =>
      this.#request<Ok<'/v1/templates/{id}', 'put'>>({ method: 'PUT', path: `/v1/templates/${enc(id)}`, body }),
    remove: (id: PathParams<'/v1/templates/{id}', 'delete'>['id']) =>
      this.#request<Ok<'/v1/templates/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/templates/${enc(id)}` }),
    /** Renders the current version with `vars`, as mailed (CSS inlined, a text part); sends nothing. */
    render: (id: PathParams<'/v1/templates/{id}/render', 'post'>['id'], body: Body<'/v1/templates/{id}/render', 'post'>) =>
      this.#request<Ok<'/v1/templates/{id}/render', 'post'>>({ method: 'POST', path: `/v1/templates/${enc(id)}/render`, body }),
    /** Renders a template that is not stored; its problems come back in `warnings` and `errors`, not as an error answer. */
    preview: (body: Body<'/v1/templates/preview', 'post'>) =>
      this.#request<Ok<'/v1/templates/preview', 'post'>>({ method: 'POST', path: '/v1/templates/preview', body }),
    /** Snippets: partials templates include as `{{> name }}`; a rename or delete is 409 while a template includes one. */
    snippets: {
      create: (body: Body<'/v1/templates/snippets', 'post'>) =>
        this.#request<Ok<'/v1/templates/snippets', 'post'>>({ method: 'POST', path: '/v1/templates/snippets', body }),
      list: (query?: Query<'/v1/templates/snippets', 'get'>) =>
        this.#request<Ok<'/v1/templates/snippets', 'get'>>({ method: 'GET', path: '/v1/templates/snippets', query }),
      get: (id: PathParams<'/v1/templates/snippets/{id}', 'get'>['id']) =>
        this.#request<Ok<'/v1/templates/snippets/{id}', 'get'>>({ method: 'GET', path: `/v1/templates/snippets/${enc(id)}` }),
      update: (id: PathParams<'/v1/templates/snippets/{id}', 'patch'>['id'], body: Body<'/v1/templates/snippets/{id}', 'patch'>) =>
        this.#request<Ok<'/v1/templates/snippets/{id}', 'patch'>>({ method: 'PATCH', path: `/v1/templates/snippets/${enc(id)}`, body }),
      remove: (id: PathParams<'/v1/templates/snippets/{id}', 'delete'>['id']) =>
        this.#request<Ok<'/v1/templates/snippets/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/templates/snippets/${enc(id)}` }),
    },
  };

  readonly contacts = {
    /** Addresses are normalized and unique per account (409 duplicate_contact); `list_ids` must be static lists of the account. */
    create: (body: Body<'/v1/contacts', 'post'>) => this.#request<Ok<'/v1/contacts', 'post'>>({ method: 'POST', path: '/v1/contacts', body }),
    /** Newest first; `email`, `list_id` or a prefix `q`. A filtered page may be short with a next_cursor: walk with `paginate`. */
    list: (query?: Query<'/v1/contacts', 'get'>) => this.#request<Ok<'/v1/contacts', 'get'>>({ method: 'GET', path: '/v1/contacts', query }),
    get: (id: PathParams<'/v1/contacts/{id}', 'get'>['id']) => this.#request<Ok<'/v1/contacts/{id}', 'get'>>({ method: 'GET', path: `/v1/contacts/${enc(id)}` }),
    /** Only the fields given change; `data` is replaced whole. */
    update: (id: PathParams<'/v1/contacts/{id}', 'patch'>['id'], body: Body<'/v1/contacts/{id}', 'patch'>) =>
      this.#request<Ok<'/v1/contacts/{id}', 'patch'>>({ method: 'PATCH', path: `/v1/contacts/${enc(id)}`, body }),
    /** The contact leaves every list. */
    remove: (id: PathParams<'/v1/contacts/{id}', 'delete'>['id']) =>
      this.#request<Ok<'/v1/contacts/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/contacts/${enc(id)}` }),
  };

  readonly lists = {
    /** A static list, or a dynamic one with a filter. */
    create: (body: Body<'/v1/lists', 'post'>) => this.#request<Ok<'/v1/lists', 'post'>>({ method: 'POST', path: '/v1/lists', body }),
    list: (query?: Query<'/v1/lists', 'get'>) => this.#request<Ok<'/v1/lists', 'get'>>({ method: 'GET', path: '/v1/lists', query }),
    get: (id: PathParams<'/v1/lists/{id}', 'get'>['id']) => this.#request<Ok<'/v1/lists/{id}', 'get'>>({ method: 'GET', path: `/v1/lists/${enc(id)}` }),
    /** The name, and a dynamic list's filter. */
    update: (id: PathParams<'/v1/lists/{id}', 'patch'>['id'], body: Body<'/v1/lists/{id}', 'patch'>) =>
      this.#request<Ok<'/v1/lists/{id}', 'patch'>>({ method: 'PATCH', path: `/v1/lists/${enc(id)}`, body }),
    /** The contacts stay. */
    remove: (id: PathParams<'/v1/lists/{id}', 'delete'>['id']) => this.#request<Ok<'/v1/lists/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/lists/${enc(id)}` }),
    /** `{ contact_id }` or `{ email }` (the contact is created when absent); 409 duplicate_member for a member. */
    addMember: (id: PathParams<'/v1/lists/{id}/members', 'post'>['id'], body: Body<'/v1/lists/{id}/members', 'post'>) =>
      this.#request<Ok<'/v1/lists/{id}/members', 'post'>>({ method: 'POST', path: `/v1/lists/${enc(id)}/members`, body }),
    /** A static list's members, or the contacts a dynamic list matches now; walk with `paginate`. */
    members: (id: PathParams<'/v1/lists/{id}/members', 'get'>['id'], query?: Query<'/v1/lists/{id}/members', 'get'>) =>
      this.#request<Ok<'/v1/lists/{id}/members', 'get'>>({ method: 'GET', path: `/v1/lists/${enc(id)}/members`, query }),
    removeMember: (id: PathParams<'/v1/lists/{id}/members/{contact_id}', 'delete'>['id'], contactId: PathParams<'/v1/lists/{id}/members/{contact_id}', 'delete'>['contact_id']) =>
      this.#request<Ok<'/v1/lists/{id}/members/{contact_id}', 'delete'>>({ method: 'DELETE', path: `/v1/lists/${enc(id)}/members/${enc(contactId)}` }),
  };

  readonly forms = {
    /** A sign-up form bound to a static list (404 for a list the account lacks, 422 for a dynamic one). A live key is needed. */
    create: (body: Body<'/v1/forms', 'post'>) => this.#request<Ok<'/v1/forms', 'post'>>({ method: 'POST', path: '/v1/forms', body }),
    list: (query?: Query<'/v1/forms', 'get'>) => this.#request<Ok<'/v1/forms', 'get'>>({ method: 'GET', path: '/v1/forms', query }),
    get: (id: PathParams<'/v1/forms/{id}', 'get'>['id']) => this.#request<Ok<'/v1/forms/{id}', 'get'>>({ method: 'GET', path: `/v1/forms/${enc(id)}` }),
    /** Replaces the whole form: what the body leaves out takes its default. */
    replace: (id: PathParams<'/v1/forms/{id}', 'put'>['id'], body: Body<'/v1/forms/{id}', 'put'>) =>
      this.#request<Ok<'/v1/forms/{id}', 'put'>>({ method: 'PUT', path: `/v1/forms/${enc(id)}`, body }),
    remove: (id: PathParams<'/v1/forms/{id}', 'delete'>['id']) => this.#request<Ok<'/v1/forms/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/forms/${enc(id)}` }),
    /** The public configuration an embed draws the form from (a public route: the key is sent, not needed). */
    config: (id: PathParams<'/v1/forms/{id}/config', 'get'>['id']) =>
      this.#request<Ok<'/v1/forms/{id}/config', 'get'>>({ method: 'GET', path: `/v1/forms/${enc(id)}/config` }),
    /** Signs an address up (public; 202). Safe to repeat: a second sign-up makes no second contact or membership. */
    submit: (id: PathParams<'/v1/forms/{id}/submit', 'post'>['id'], body: Body<'/v1/forms/{id}/submit', 'post'>) =>
      this.#request<Ok<'/v1/forms/{id}/submit', 'post'>>({ method: 'POST', path: `/v1/forms/${enc(id)}/submit`, body, resendable: true }),
    /** The pending sign-up a confirmation link's token names (public; confirms nothing). */
    describeConfirmation: (token: Query<'/v1/forms/confirm', 'get'>['token']) =>
      this.#request<Ok<'/v1/forms/confirm', 'get'>>({ method: 'GET', path: '/v1/forms/confirm', query: { token } satisfies Query<'/v1/forms/confirm', 'get'> }),
    /** Confirms a double opt-in sign-up with its mailed token (public); a used token is 400 invalid_token. */
    confirm: (body: Body<'/v1/forms/confirm', 'post'>) =>
      this.#request<Ok<'/v1/forms/confirm', 'post'>>({ method: 'POST', path: '/v1/forms/confirm', body, resendable: true }),
  };

  /** Received mail and its settings (deployment-gated: 404 where inbound is off). */
  readonly inbound = {
    /** Newest first, without the bodies. */
    list: (query?: Query<'/v1/inbound', 'get'>) => this.#request<Ok<'/v1/inbound', 'get'>>({ method: 'GET', path: '/v1/inbound', query }),
    /** The full form: text, html (as received), headers, rfc_message_id. */
    get: (id: PathParams<'/v1/inbound/{id}', 'get'>['id']) => this.#request<Ok<'/v1/inbound/{id}', 'get'>>({ method: 'GET', path: `/v1/inbound/${enc(id)}` }),
    /** The message as received, read as text (an 8-bit message loses its non-UTF-8 bytes: fetch the route itself for the bytes). */
    raw: (id: PathParams<'/v1/inbound/{id}/raw', 'get'>['id']) => this.#request<string>({ method: 'GET', path: `/v1/inbound/${enc(id)}/raw` }),
    /** Turns inbound on or off for a domain (its id or name); answers the MX record to publish. 422 domain_not_ready unless verified. */
    setDomainInbound: (domain: PathParams<'/v1/domains/{domain}/inbound', 'post'>['domain'], body: Body<'/v1/domains/{domain}/inbound', 'post'>) =>
      this.#request<Ok<'/v1/domains/{domain}/inbound', 'post'>>({ method: 'POST', path: `/v1/domains/${enc(domain)}/inbound`, body }),
    routes: {
      /** The route with its signing secret, shown once. */
      create: (body: Body<'/v1/inbound/routes', 'post'>) => this.#request<Ok<'/v1/inbound/routes', 'post'>>({ method: 'POST', path: '/v1/inbound/routes', body }),
      list: () => this.#request<Ok<'/v1/inbound/routes', 'get'>>({ method: 'GET', path: '/v1/inbound/routes' }),
      get: (id: PathParams<'/v1/inbound/routes/{id}', 'get'>['id']) =>
        this.#request<Ok<'/v1/inbound/routes/{id}', 'get'>>({ method: 'GET', path: `/v1/inbound/routes/${enc(id)}` }),
      /** Only the fields sent change. */
      update: (id: PathParams<'/v1/inbound/routes/{id}', 'put'>['id'], body: Body<'/v1/inbound/routes/{id}', 'put'>) =>
        this.#request<Ok<'/v1/inbound/routes/{id}', 'put'>>({ method: 'PUT', path: `/v1/inbound/routes/${enc(id)}`, body }),
      remove: (id: PathParams<'/v1/inbound/routes/{id}', 'delete'>['id']) =>
        this.#request<Ok<'/v1/inbound/routes/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/inbound/routes/${enc(id)}` }),
    },
  };

  /** The Mail app: inboxes, threads, stars, folders and labels (deployment-gated like inbound: 404 where it is off). */
  readonly mail = {
    inboxes: {
      list: () => this.#request<Ok<'/v1/mail/inboxes', 'get'>>({ method: 'GET', path: '/v1/mail/inboxes' }),
      /** 422 domain_not_ready unless the domain is verified with inbound enabled; 409 conflict for an address that has an inbox. */
      create: (body: Body<'/v1/mail/inboxes', 'post'>) => this.#request<Ok<'/v1/mail/inboxes', 'post'>>({ method: 'POST', path: '/v1/mail/inboxes', body }),
      /** Its mail stays, detached from the inbox. */
      remove: (id: PathParams<'/v1/mail/inboxes/{id}', 'delete'>['id']) =>
        this.#request<Ok<'/v1/mail/inboxes/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/mail/inboxes/${enc(id)}` }),
    },
    threads: {
      /** One folder (default inbox), newest message first; `inbox_id` or `inbox` narrows it to an address. */
      list: (query?: Query<'/v1/mail/threads', 'get'>) => this.#request<Ok<'/v1/mail/threads', 'get'>>({ method: 'GET', path: '/v1/mail/threads', query }),
      /** The thread with its messages, oldest first; marks it read. */
      get: (id: PathParams<'/v1/mail/threads/{id}', 'get'>['id']) => this.#request<Ok<'/v1/mail/threads/{id}', 'get'>>({ method: 'GET', path: `/v1/mail/threads/${enc(id)}` }),
      setRead: (id: PathParams<'/v1/mail/threads/{id}/read', 'put'>['id'], body: Body<'/v1/mail/threads/{id}/read', 'put'> = {}) =>
        this.#request<Ok<'/v1/mail/threads/{id}/read', 'put'>>({ method: 'PUT', path: `/v1/mail/threads/${enc(id)}/read`, body }),
      setStarred: (id: PathParams<'/v1/mail/threads/{id}/star', 'put'>['id'], body: Body<'/v1/mail/threads/{id}/star', 'put'> = {}) =>
        this.#request<Ok<'/v1/mail/threads/{id}/star', 'put'>>({ method: 'PUT', path: `/v1/mail/threads/${enc(id)}/star`, body }),
      /** inbox, archive, trash or spam. */
      move: (id: PathParams<'/v1/mail/threads/{id}/folder', 'put'>['id'], body: Body<'/v1/mail/threads/{id}/folder', 'put'>) =>
        this.#request<Ok<'/v1/mail/threads/{id}/folder', 'put'>>({ method: 'PUT', path: `/v1/mail/threads/${enc(id)}/folder`, body }),
      /** Label names, without regard to case; unknown names are ignored. */
      setLabels: (id: PathParams<'/v1/mail/threads/{id}/labels', 'put'>['id'], body: Body<'/v1/mail/threads/{id}/labels', 'put'>) =>
        this.#request<Ok<'/v1/mail/threads/{id}/labels', 'put'>>({ method: 'PUT', path: `/v1/mail/threads/${enc(id)}/labels`, body }),
    },
    /** Stars one message: source inbound or outbound. */
    setMessageStarred: (
      source: PathParams<'/v1/mail/messages/{source}/{id}/star', 'put'>['source'],
      id: PathParams<'/v1/mail/messages/{source}/{id}/star', 'put'>['id'],
      body: Body<'/v1/mail/messages/{source}/{id}/star', 'put'> = {},
    ) => this.#request<Ok<'/v1/mail/messages/{source}/{id}/star', 'put'>>({ method: 'PUT', path: `/v1/mail/messages/${enc(source)}/${enc(id)}/star`, body }),
    /** Newest first; `q` takes words, "phrases", from:, to:, subject:, has:attachment, after:YYYY-MM-DD, before:YYYY-MM-DD. */
    search: (query: Query<'/v1/mail/search', 'get'>) => this.#request<Ok<'/v1/mail/search', 'get'>>({ method: 'GET', path: '/v1/mail/search', query }),
    /** One page of the Export document (format json); pass its next_cursor as cursor until it is null. */
    export: (query?: Omit<Query<'/v1/mail/export', 'get'>, 'format'>) =>
      this.#request<Ok<'/v1/mail/export', 'get'>>({ method: 'GET', path: '/v1/mail/export', query: { ...query, format: 'json' } }),
    labels: {
      /** Ordered by name. */
      list: () => this.#request<Ok<'/v1/mail/labels', 'get'>>({ method: 'GET', path: '/v1/mail/labels' }),
      /** 409 conflict for a name taken without regard to case. */
      create: (body: Body<'/v1/mail/labels', 'post'>) => this.#request<Ok<'/v1/mail/labels', 'post'>>({ method: 'POST', path: '/v1/mail/labels', body }),
      /** It leaves every thread. */
      remove: (id: PathParams<'/v1/mail/labels/{id}', 'delete'>['id']) =>
        this.#request<Ok<'/v1/mail/labels/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/mail/labels/${enc(id)}` }),
    },
    /** A new message from a verified domain, starting a thread; give `idempotency_key` to retry safely. */
    compose: (body: Body<'/v1/mail/compose', 'post'>) => this.#request<Ok<'/v1/mail/compose', 'post'>>({ method: 'POST', path: '/v1/mail/compose', body }),
    /** Replies in the thread to its newest received message (In-Reply-To, References); `to` omitted: the first sender. */
    reply: (id: PathParams<'/v1/mail/threads/{id}/reply', 'post'>['id'], body: Body<'/v1/mail/threads/{id}/reply', 'post'>) =>
      this.#request<Ok<'/v1/mail/threads/{id}/reply', 'post'>>({ method: 'POST', path: `/v1/mail/threads/${enc(id)}/reply`, body }),
    /** Forwards the thread's newest received message to `to`, the original attached. */
    forward: (id: PathParams<'/v1/mail/threads/{id}/forward', 'post'>['id'], body: Body<'/v1/mail/threads/{id}/forward', 'post'>) =>
      this.#request<Ok<'/v1/mail/threads/{id}/forward', 'post'>>({ method: 'POST', path: `/v1/mail/threads/${enc(id)}/forward`, body }),
  };

  readonly webhooks = {
    /** The answer holds the signing_secret, once: keep it for verifySignature. */
    create: (body: Body<'/v1/webhooks', 'post'>) => this.#request<Ok<'/v1/webhooks', 'post'>>({ method: 'POST', path: '/v1/webhooks', body }),
    list: (query?: Query<'/v1/webhooks', 'get'>) => this.#request<Ok<'/v1/webhooks', 'get'>>({ method: 'GET', path: '/v1/webhooks', query }),
    get: (id: PathParams<'/v1/webhooks/{id}', 'get'>['id']) => this.#request<Ok<'/v1/webhooks/{id}', 'get'>>({ method: 'GET', path: `/v1/webhooks/${enc(id)}` }),
    /** Only the fields given change. */
    update: (id: PathParams<'/v1/webhooks/{id}', 'put'>['id'], body: Body<'/v1/webhooks/{id}', 'put'>) =>
      this.#request<Ok<'/v1/webhooks/{id}', 'put'>>({ method: 'PUT', path: `/v1/webhooks/${enc(id)}`, body }),
    remove: (id: PathParams<'/v1/webhooks/{id}', 'delete'>['id']) =>
      this.#request<Ok<'/v1/webhooks/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/webhooks/${enc(id)}` }),
    /** A new signing secret, shown once in the answer. */
    rotateSecret: (id: PathParams<'/v1/webhooks/{id}/rotate-secret', 'post'>['id']) =>
      this.#request<Ok<'/v1/webhooks/{id}/rotate-secret', 'post'>>({ method: 'POST', path: `/v1/webhooks/${enc(id)}/rotate-secret` }),
    /** The delivery log, most recent first. */
    deliveries: (id: PathParams<'/v1/webhooks/{id}/deliveries', 'get'>['id'], query?: Query<'/v1/webhooks/{id}/deliveries', 'get'>) =>
      this.#request<Ok<'/v1/webhooks/{id}/deliveries', 'get'>>({ method: 'GET', path: `/v1/webhooks/${enc(id)}/deliveries`, query }),
    /** Delivers a logged event again as a new delivery (202, pending): same body and event id, signed afresh. */
    replayDelivery: (id: PathParams<'/v1/webhooks/{id}/deliveries/{delivery_id}/replay', 'post'>['id'], deliveryId: PathParams<'/v1/webhooks/{id}/deliveries/{delivery_id}/replay', 'post'>['delivery_id']) =>
      this.#request<Ok<'/v1/webhooks/{id}/deliveries/{delivery_id}/replay', 'post'>>({ method: 'POST', path: `/v1/webhooks/${enc(id)}/deliveries/${enc(deliveryId)}/replay` }),
    /** Replays every exhausted event of the log, at most 100 a call (`has_more`: call again). */
    replayFailed: (id: PathParams<'/v1/webhooks/{id}/replay-failed', 'post'>['id']) =>
      this.#request<Ok<'/v1/webhooks/{id}/replay-failed', 'post'>>({ method: 'POST', path: `/v1/webhooks/${enc(id)}/replay-failed` }),
    /** A signed webhook.test event to this subscription (202, pending; its outcome is in the log). */
    sendTest: (id: PathParams<'/v1/webhooks/{id}/test', 'post'>['id']) =>
      this.#request<Ok<'/v1/webhooks/{id}/test', 'post'>>({ method: 'POST', path: `/v1/webhooks/${enc(id)}/test` }),
  };

  readonly keys = {
    list: (query?: Query<'/v1/keys', 'get'>) => this.#request<Ok<'/v1/keys', 'get'>>({ method: 'GET', path: '/v1/keys', query }),
    /** The answer holds the secret, once. */
    create: (body: Body<'/v1/keys', 'post'> = {}) => this.#request<Ok<'/v1/keys', 'post'>>({ method: 'POST', path: '/v1/keys', body }),
    /** A new secret for the same key id; the old one stops working at once. */
    rotate: (id: PathParams<'/v1/keys/{id}/rotate', 'post'>['id']) =>
      this.#request<Ok<'/v1/keys/{id}/rotate', 'post'>>({ method: 'POST', path: `/v1/keys/${enc(id)}/rotate` }),
    /** Revokes for good. */
    revoke: (id: PathParams<'/v1/keys/{id}', 'delete'>['id']) => this.#request<Ok<'/v1/keys/{id}', 'delete'>>({ method: 'DELETE', path: `/v1/keys/${enc(id)}` }),
  };

  readonly broadcasts = {
    list: (query?: Query<'/v1/broadcasts', 'get'>) => this.#request<Ok<'/v1/broadcasts', 'get'>>({ method: 'GET', path: '/v1/broadcasts', query }),
    get: (id: PathParams<'/v1/broadcasts/{id}', 'get'>['id']) => this.#request<Ok<'/v1/broadcasts/{id}', 'get'>>({ method: 'GET', path: `/v1/broadcasts/${enc(id)}` }),
    /** A draft, unless `send_now` (sending) or `scheduled_at` (scheduled). */
    create: (body: Body<'/v1/broadcasts', 'post'>) => this.#request<Ok<'/v1/broadcasts', 'post'>>({ method: 'POST', path: '/v1/broadcasts', body }),
    /** Edits a draft; null clears a field. */
    update: (id: PathParams<'/v1/broadcasts/{id}', 'patch'>['id'], body: Body<'/v1/broadcasts/{id}', 'patch'>) =>
      this.#request<Ok<'/v1/broadcasts/{id}', 'patch'>>({ method: 'PATCH', path: `/v1/broadcasts/${enc(id)}`, body }),
    /** A draft or scheduled broadcast starts sending now (202). */
    send: (id: PathParams<'/v1/broadcasts/{id}/send', 'post'>['id']) =>
      this.#request<Ok<'/v1/broadcasts/{id}/send', 'post'>>({ method: 'POST', path: `/v1/broadcasts/${enc(id)}/send` }),
    /** A draft or scheduled broadcast becomes cancelled; 409 otherwise. */
    cancel: (id: PathParams<'/v1/broadcasts/{id}/cancel', 'post'>['id']) =>
      this.#request<Ok<'/v1/broadcasts/{id}/cancel', 'post'>>({ method: 'POST', path: `/v1/broadcasts/${enc(id)}/cancel` }),
  };

  readonly uploads = {
    /**
     * Stores a file (CSV, text or JSON, at most 2 MiB) for a contact import and answers its key.
     * A string is sent as `upload.csv` (text/csv) unless `filename` and `contentType` say otherwise.
     */
    create: (file: string | Blob, options: { filename?: string; contentType?: string } = {}) => {
      const form = new FormData();
      const blob = typeof file === 'string' ? new Blob([file], { type: options.contentType ?? 'text/csv' }) : file;
      form.append('file', blob, options.filename ?? 'upload.csv');
      return this.#request<Ok<'/v1/uploads', 'post'>>({ method: 'POST', path: '/v1/uploads', body: form });
    },
  };

  readonly contactImports = {
    /** Imports an uploaded CSV in the background (202); follow it with `get`. */
    start: (body: Body<'/v1/contacts/import', 'post'>) => this.#request<Ok<'/v1/contacts/import', 'post'>>({ method: 'POST', path: '/v1/contacts/import', body }),
    /** Status, counts and the first 100 row errors. */
    get: (id: PathParams<'/v1/contacts/imports/{id}', 'get'>['id']) =>
      this.#request<Ok<'/v1/contacts/imports/{id}', 'get'>>({ method: 'GET', path: `/v1/contacts/imports/${enc(id)}` }),
  };

  readonly usage = {
    /** Sends and estimated cost of a period, YYYY-MM (default the current one). */
    get: (query?: Query<'/v1/usage', 'get'>) => this.#request<Ok<'/v1/usage', 'get'>>({ method: 'GET', path: '/v1/usage', query }),
  };

  readonly spendCaps = {
    /** Creates or changes the account cap (no key_id) or one key's; the same body again changes nothing. */
    put: (body: Body<'/v1/spend-caps', 'put'>) => this.#request<Ok<'/v1/spend-caps', 'put'>>({ method: 'PUT', path: '/v1/spend-caps', body, resendable: true }),
    list: () => this.#request<Ok<'/v1/spend-caps', 'get'>>({ method: 'GET', path: '/v1/spend-caps' }),
    /** Removes the account cap, or with key_id that key's. */
    remove: (query?: Query<'/v1/spend-caps', 'delete'>) => this.#request<Ok<'/v1/spend-caps', 'delete'>>({ method: 'DELETE', path: '/v1/spend-caps', query }),
  };

  /** Plans and billing through Stripe (admin keys; checkout and portal with a live one). */
  readonly billing = {
    /** The plan in force, its subscription status and the included emails left this cycle. */
    get: () => this.#request<Ok<'/v1/billing', 'get'>>({ method: 'GET', path: '/v1/billing' }),
    /** `{url}` of a Stripe Checkout page, or `{updated: true, plan}` when a live subscription was changed in place. */
    checkout: (body: Body<'/v1/billing/checkout', 'post'>) => this.#request<Ok<'/v1/billing/checkout', 'post'>>({ method: 'POST', path: '/v1/billing/checkout', body }),
    /** `{url}` of a Stripe customer portal session. */
    portal: () => this.#request<Ok<'/v1/billing/portal', 'post'>>({ method: 'POST', path: '/v1/billing/portal' }),
  };

  readonly account = {
    /** Per-channel sending readiness; any key may ask. */
    verification: () => this.#request<Ok<'/v1/account/verification', 'get'>>({ method: 'GET', path: '/v1/account/verification' }),
    setChannel: (channel: PathParams<'/v1/account/channels/{channel}', 'put'>['channel'], body: Body<'/v1/account/channels/{channel}', 'put'>) =>
      this.#request<Ok<'/v1/account/channels/{channel}', 'put'>>({ method: 'PUT', path: `/v1/account/channels/${enc(channel)}`, body }),
  };

  /** Staff routes: construct the client with the deployment's staff token as apiKey. */
  readonly admin = {
    createAccount: (body: Body<'/v1/admin/accounts', 'post'> = {}) =>
      this.#request<Ok<'/v1/admin/accounts', 'post'>>({ method: 'POST', path: '/v1/admin/accounts', body }),
    /** Newest first; by status, or every account with an address (walk with `paginate`). */
    listAccounts: (query?: Query<'/v1/admin/accounts', 'get'>) =>
      this.#request<Ok<'/v1/admin/accounts', 'get'>>({ method: 'GET', path: '/v1/admin/accounts', query }),
    getAccount: (id: PathParams<'/v1/admin/accounts/{id}', 'get'>['id']) =>
      this.#request<Ok<'/v1/admin/accounts/{id}', 'get'>>({ method: 'GET', path: `/v1/admin/accounts/${enc(id)}` }),
    suspend: (id: PathParams<'/v1/admin/accounts/{id}/suspend', 'post'>['id']) =>
      this.#request<Ok<'/v1/admin/accounts/{id}/suspend', 'post'>>({ method: 'POST', path: `/v1/admin/accounts/${enc(id)}/suspend`, resendable: true }),
    unsuspend: (id: PathParams<'/v1/admin/accounts/{id}/unsuspend', 'post'>['id']) =>
      this.#request<Ok<'/v1/admin/accounts/{id}/unsuspend', 'post'>>({ method: 'POST', path: `/v1/admin/accounts/${enc(id)}/unsuspend`, resendable: true }),
    /** Makes a signed-up user (verified address) staff, or an owner again; ends their sessions. */
    setUserRole: (body: Body<'/v1/admin/users/role', 'post'>) =>
      this.#request<Ok<'/v1/admin/users/role', 'post'>>({ method: 'POST', path: '/v1/admin/users/role', body, resendable: true }),
    /** The staff audit log, newest first (walk with `paginate`). */
    listAudit: (query?: Query<'/v1/admin/audit', 'get'>) =>
      this.#request<Ok<'/v1/admin/audit', 'get'>>({ method: 'GET', path: '/v1/admin/audit', query }),
    /** Each queue's DLQ: its depth and up to 10 messages with why they failed. */
    listDeadLetters: () => this.#request<Ok<'/v1/admin/dead-letters', 'get'>>({ method: 'GET', path: '/v1/admin/dead-letters' }),
    /** Puts DLQ messages back on their queue: `ids`, or all (up to 1,000 a call). Audited. */
    redriveDeadLetters: (queue: PathParams<'/v1/admin/dead-letters/{queue}/redrive', 'post'>['queue'], body: Body<'/v1/admin/dead-letters/{queue}/redrive', 'post'> = {}) =>
      this.#request<Ok<'/v1/admin/dead-letters/{queue}/redrive', 'post'>>({ method: 'POST', path: `/v1/admin/dead-letters/${enc(queue)}/redrive`, body }),
  };

  /**
   * Sign-up and sign-in (public routes; the API key is not needed). The session they start is a
   * cookie (`__Host-postbox_session`, HttpOnly): a browser keeps it, this client in Node does not.
   */
  readonly auth = {
    /** A new account and its owner, signed in at once; mails a verification link. */
    signUp: (body: Body<'/v1/auth/signup', 'post'>) => this.#request<Ok<'/v1/auth/signup', 'post'>>({ method: 'POST', path: '/v1/auth/signup', body }),
    /** Redeems the verification link's token. */
    verifyEmail: (body: Body<'/v1/auth/verify-email', 'post'>) =>
      this.#request<Ok<'/v1/auth/verify-email', 'post'>>({ method: 'POST', path: '/v1/auth/verify-email', body }),
    logIn: (body: Body<'/v1/auth/login', 'post'>) => this.#request<Ok<'/v1/auth/login', 'post'>>({ method: 'POST', path: '/v1/auth/login', body }),
    /** `{email}` mails a six-digit code (202); `{email, code}` signs in with it. */
    logInWithCode: (body: Body<'/v1/auth/login-code', 'post'>) =>
      this.#request<Ok<'/v1/auth/login-code', 'post'>>({ method: 'POST', path: '/v1/auth/login-code', body }),
    logOut: () => this.#request<Ok<'/v1/auth/logout', 'post'>>({ method: 'POST', path: '/v1/auth/logout' }),
    /** `{email}` mails a reset link (202); `{token, password}` sets the new password and ends every session. */
    resetPassword: (body: Body<'/v1/auth/password-reset', 'post'>) =>
      this.#request<Ok<'/v1/auth/password-reset', 'post'>>({ method: 'POST', path: '/v1/auth/password-reset', body }),
    /** Who is signed in with the session cookie. */
    session: () => this.#request<Ok<'/v1/auth/session', 'get'>>({ method: 'GET', path: '/v1/auth/session' }),
  };

  /** The OpenAPI document this deployment serves. */
  openapi = () => this.#request<Ok<'/v1/openapi.json', 'get'>>({ method: 'GET', path: '/v1/openapi.json' });

  /**
   * Every item of a list, page after page (`next_cursor`), e.g.
   * `for await (const m of postbox.paginate(postbox.messages.list, { channel: 'email' }))`.
   * A list with a path parameter: `postbox.paginate((q) => postbox.webhooks.deliveries(id, q))`.
   */
  async *paginate<Q extends object, P extends { next_cursor: string | null }>(
    list: (query?: Q) => Promise<P>,
    query?: Omit<Q, 'cursor'>,
  ): AsyncGenerator<ItemOf<Omit<P, 'next_cursor'>>, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await list({ ...(query ?? {}), ...(cursor === undefined ? {} : { cursor }) } as Q);
      for (const [key, value] of Object.entries(page)) {
        if (key !== 'next_cursor' && Array.isArray(value)) yield* value as Array<ItemOf<Omit<P, 'next_cursor'>>>;
      }
      cursor = page.next_cursor ?? undefined;
    } while (cursor !== undefined);
  }

  // ---- Transport ----------------------------------------------------------------------------

  async #request<T>(call: Call): Promise<T> {
    const url = this.#url(call.path, call.query);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#apiKey !== null) headers.authorization = `Bearer ${this.#apiKey}`;
    else if (this.#csrfToken !== undefined && call.method !== 'GET') headers['x-csrf-token'] = this.#csrfToken;
    // Serialized once: every attempt sends these exact bytes, so the same idempotency keys.
    let body: string | FormData | undefined;
    if (call.body instanceof FormData) body = call.body;
    else if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const resendable = call.resendable === true || call.method !== 'POST';

    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#attempt(url, { method: call.method, headers, body });
      if (outcome.ok) return outcome.value as T;
      const error = outcome.error;
      if (attempt >= this.#maxRetries) throw error;
      if (error.status === 0) {
        if (!resendable) throw error;
        await this.#sleep(this.#backoffMs(attempt));
        continue;
      }
      if (!retryable(error, resendable)) throw error;
      if (error.retryAfter !== undefined) {
        if (error.retryAfter > this.#maxRetryAfterSeconds) throw error;
        await this.#sleep(error.retryAfter * 1000);
      } else {
        await this.#sleep(this.#backoffMs(attempt));
      }
    }
  }

  /** One attempt, answer body read within the timeout. */
  async #attempt(url: string, init: { method: Method; headers: Record<string, string>; body: string | FormData | undefined }): Promise<{ ok: true; value: unknown } | { ok: false; error: PostboxError }> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#timeoutMs);
    try {
      const res = await this.#fetch(url, { ...init, signal: controller.signal });
      const text = await res.text();
      const requestId = res.headers.get('x-request-id') ?? undefined;
      const type = res.headers.get('content-type') ?? '';
      if (res.ok) {
        if (res.status === 204 || text === '') return { ok: true, value: undefined };
        return { ok: true, value: type.includes('json') ? JSON.parse(text) : text };
      }
      return { ok: false, error: this.#errorOf(res.status, text, requestId, res.headers.get('retry-after')) };
    } catch (cause) {
      const code = timedOut ? 'timeout' : 'connection_error';
      const message = timedOut ? `no answer within ${this.#timeoutMs} ms` : `request failed: ${(cause as Error)?.message ?? String(cause)}`;
      return { ok: false, error: new PostboxError({ code, message, status: 0, cause }) };
    } finally {
      clearTimeout(timer);
    }
  }

  #errorOf(status: number, text: string, requestId: string | undefined, retryAfterHeader: string | null): PostboxError {
    const retryAfter = retryAfterSeconds(retryAfterHeader, Date.now());
    let envelope: { error?: { code?: unknown; message?: unknown } } | undefined;
    try {
      envelope = JSON.parse(text) as typeof envelope;
    } catch {
      envelope = undefined;
    }
    const code = envelope?.error?.code;
    if (typeof code === 'string') {
      const message = typeof envelope?.error?.message === 'string' ? envelope.error.message : code;
      return new PostboxError({ code, message, status, requestId, retryAfter });
    }
    return new PostboxError({ code: 'unexpected_response', message: `HTTP ${status}: ${text.slice(0, 200)}`, status, requestId, retryAfter });
  }

  #backoffMs(attempt: number): number {
    const ceiling = Math.min(this.#maxBackoffMs, 500 * 2 ** attempt);
    return Math.round(ceiling * (0.5 + this.#random() * 0.5));
  }

  #url(path: string, query: object | undefined): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      params.append(name, String(value));
    }
    const search = params.toString();
    return `${this.#baseUrl}${path}${search ? `?${search}` : ''}`;
  }
}
