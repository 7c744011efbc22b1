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
//
// The transport and its retry policy are transport.ts; each area's calls are in areas/, made a
// namespace of Postbox here.
import { accountCalls, adminCalls, authCalls, billingCalls, spendCapsCalls, usageCalls } from './areas/account';
import { broadcastsCalls, contactImportsCalls, contactsCalls, formsCalls, listsCalls, uploadsCalls } from './areas/audience';
import { domainsCalls } from './areas/domains';
import { inboundCalls, mailCalls } from './areas/mail';
import { messagesCalls, suppressionsCalls, testRecipientsCalls, unsubscribeCalls } from './areas/messages';
import { templatesCalls } from './areas/templates';
import { keysCalls, webhooksCalls } from './areas/webhooks';
import { Transport, type Call, type PostboxOptions, type Requester } from './transport';
import type { Body, ItemOf, Ok } from './types';

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
export type { PostboxOptions } from './transport';

export class Postbox {
  readonly #transport: Transport;
  /** Every call of every area goes through the one transport (set by the constructor, read when called). */
  readonly #request: Requester = <T>(call: Call): Promise<T> => this.#transport.request<T>(call);

  constructor(options: PostboxOptions) {
    this.#transport = new Transport(options);
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

  readonly messages = messagesCalls(this.#request);
  readonly suppressions = suppressionsCalls(this.#request);
  readonly domains = domainsCalls(this.#request);
  readonly testRecipients = testRecipientsCalls(this.#request);

  /** The unsubscribe link of a marketing message (public routes: the token is the credential). */
  readonly unsubscribe = unsubscribeCalls(this.#request);
  readonly templates = templatesCalls(this.#request);
  readonly contacts = contactsCalls(this.#request);
  readonly lists = listsCalls(this.#request);
  readonly forms = formsCalls(this.#request);

  /** Received mail and its settings (deployment-gated: 404 where inbound is off). */
  readonly inbound = inboundCalls(this.#request);

  /** The Mail app: inboxes, threads, stars, folders and labels (deployment-gated like inbound: 404 where it is off). */
  readonly mail = mailCalls(this.#request);
  readonly webhooks = webhooksCalls(this.#request);
  readonly keys = keysCalls(this.#request);
  readonly broadcasts = broadcastsCalls(this.#request);
  readonly uploads = uploadsCalls(this.#request);
  readonly contactImports = contactImportsCalls(this.#request);
  readonly usage = usageCalls(this.#request);
  readonly spendCaps = spendCapsCalls(this.#request);

  /** Plans and billing through Stripe (admin keys; checkout and portal with a live one). */
  readonly billing = billingCalls(this.#request);
  readonly account = accountCalls(this.#request);

  /** Staff routes: construct the client with the deployment's staff token as apiKey. */
  readonly admin = adminCalls(this.#request);

  /**
   * Sign-up and sign-in (public routes; the API key is not needed). The session they start is a
   * cookie (`__Host-postbox_session`, HttpOnly): a browser keeps it, this client in Node does not.
   */
  readonly auth = authCalls(this.#request);

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
}
