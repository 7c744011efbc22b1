// The request and response types of each route, read from the generated document types
// (schema.d.ts, `npm run client:types`) by path and method, as functions/manifest.ts names them.
// Every route is described by the document: a path or method it does not list is a compile
// error, not a silently loose type.
import type { components, operations, paths } from './schema';

export type { components, operations, paths };

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The methods the document lists for a path. */
export type MethodOf<P extends keyof paths> = {
  [M in HttpMethod]: [Exclude<paths[P][M], undefined>] extends [never] ? never : M;
}[HttpMethod];

/** The generated operation of a route. */
export type Operation<P extends keyof paths, M extends MethodOf<P>> = Exclude<paths[P][M], undefined>;

type SuccessStatus = 200 | 201 | 202 | 204;

/** A response's body: its JSON, else its one other content type (a zone file, a page), else undefined (204). */
type ContentOf<R> = R extends { content: { 'application/json': infer J } }
  ? J
  : R extends { content: Record<string, infer T> }
    ? T
    : undefined;

type SuccessOf<O> = O extends { responses: infer R } ? { [S in keyof R & SuccessStatus]: ContentOf<R[S]> }[keyof R & SuccessStatus] : never;

type BodyOf<O> = O extends { requestBody?: infer B } ? (NonNullable<B> extends { content: { 'application/json': infer J } } ? J : never) : never;

type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type PathOf<O> = O extends { parameters: { path?: infer A } } ? NonNullable<A> : never;

/** Lists take `limit` as a query string; the client takes a number too. */
type LooseLimit<Q> = Q extends { limit?: unknown } ? Omit<Q, 'limit'> & { limit?: number | string } : Q;

/** What a route answers on success (the union of its 2xx bodies). */
export type Ok<P extends keyof paths, M extends MethodOf<P>> = SuccessOf<Operation<P, M>>;

/** The JSON body a route takes. */
export type Body<P extends keyof paths, M extends MethodOf<P>> = BodyOf<Operation<P, M>>;

/** The query a route takes. */
export type Query<P extends keyof paths, M extends MethodOf<P>> = LooseLimit<QueryOf<Operation<P, M>>>;

/** The path parameters a route takes (`{id}`, `{domain}`, `{channel}`). */
export type PathParams<P extends keyof paths, M extends MethodOf<P>> = PathOf<Operation<P, M>>;

type ErrorCodesOf<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? never : R[S] extends { content: { 'application/json': { error: { code: infer C } } } } ? C : never }[keyof R]
  : never;

type AnyOperation = { [P in keyof paths]: { [M in MethodOf<P>]: Operation<P, M> }[MethodOf<P>] }[keyof paths];

/** Every error code the document lists; PostboxError.code may also be one it does not know yet. */
export type KnownErrorCode = ErrorCodesOf<AnyOperation>;

/** The element type of a list page's array (`{keys: Key[], next_cursor}` → Key). */
export type ItemOf<Page> = { [K in keyof Page]: Page[K] extends ReadonlyArray<infer I> ? I : never }[keyof Page];

/** The list form of an answer that may also be a single item (GET /v1/messages with idempotency_key). */
export type PageOf<T> = [Extract<T, { next_cursor: unknown }>] extends [never] ? T : Extract<T, { next_cursor: unknown }>;

// ---- Named types --------------------------------------------------------------------------------
// Aliases of the generated operation types, under the names programs use.

/** The service's error: `{code, message, status}` inside the `{error}` envelope. */
export type ErrorBody = components['schemas']['ErrorEnvelope']['error'];

export type SendRequest = Body<'/v1/send', 'post'>;
export type SendResponse = Ok<'/v1/send', 'post'>;
export type Channel = SendRequest['channel'];
export type BatchItemResult = Ok<'/v1/send/batch', 'post'>[number];
export type BulkSendRequest = Body<'/v1/send/bulk', 'post'>;
export type ValidateRequest = Body<'/v1/validate', 'post'>;
export type ValidateResult = Ok<'/v1/validate', 'post'>;

export type MessagesQuery = Query<'/v1/messages', 'get'>;
export type MessagesPage = PageOf<Ok<'/v1/messages', 'get'>>;
export type MessageSummary = MessagesPage['messages'][number];
export type Message = Ok<'/v1/messages/{id}', 'get'>;
export type TimelineEvent = Message['events'][number];
export type CanceledMessage = Ok<'/v1/messages/{id}/cancel', 'post'>;
/** The paging part of a list's query. */
export type PageQuery = Pick<MessagesQuery, 'limit' | 'cursor'>;

export type SuppressionsQuery = Query<'/v1/suppressions', 'get'>;
export type SuppressionsPage = Ok<'/v1/suppressions', 'get'>;
export type Suppression = SuppressionsPage['suppressions'][number];
export type CreateSuppression = Body<'/v1/suppressions', 'post'>;
export type RemoveSuppression = Query<'/v1/suppressions', 'delete'>;
export type ImportSuppressions = Body<'/v1/suppressions/import', 'post'>;
export type ImportResult = Ok<'/v1/suppressions/import', 'post'>;

export type Domain = Ok<'/v1/domains/{domain}', 'get'>;
export type DnsRecord = Domain['dns_records'][number];
export type DomainVerification = Ok<'/v1/domains/{domain}/verify', 'post'>;
export type BimiState = Ok<'/v1/domains/{domain}/bimi', 'get'>;

export type TestRecipientsPage = Ok<'/v1/test-recipients', 'get'>;
export type TestRecipient = TestRecipientsPage['test_recipients'][number];

export type Template = Ok<'/v1/templates/{id}', 'get'>;
export type TemplatesPage = Ok<'/v1/templates', 'get'>;
export type TemplateSummary = TemplatesPage['templates'][number];
export type CreateTemplate = Body<'/v1/templates', 'post'>;
export type UpdateTemplate = Body<'/v1/templates/{id}', 'put'>;
export type RenderedTemplate = Ok<'/v1/templates/{id}/render', 'post'>;
export type Snippet = Ok<'/v1/templates/snippets/{id}', 'get'>;
export type SnippetsPage = Ok<'/v1/templates/snippets', 'get'>;
export type CreateSnippet = Body<'/v1/templates/snippets', 'post'>;
export type UpdateSnippet = Body<'/v1/templates/snippets/{id}', 'patch'>;
export type Contact = Ok<'/v1/contacts/{id}', 'get'>;
export type ContactsPage = Ok<'/v1/contacts', 'get'>;
export type ContactsQuery = Query<'/v1/contacts', 'get'>;
export type CreateContact = Body<'/v1/contacts', 'post'>;
export type UpdateContact = Body<'/v1/contacts/{id}', 'patch'>;
export type ContactList = Ok<'/v1/lists/{id}', 'get'>;
export type ContactListsPage = Ok<'/v1/lists', 'get'>;
export type CreateContactList = Body<'/v1/lists', 'post'>;
export type UpdateContactList = Body<'/v1/lists/{id}', 'patch'>;
export type ListFilter = NonNullable<ContactList['filter']>;
export type AddListMember = Body<'/v1/lists/{id}/members', 'post'>;
export type WebhooksPage = Ok<'/v1/webhooks', 'get'>;
export type Webhook = Ok<'/v1/webhooks/{id}', 'get'>;
export type WebhookWithSecret = Ok<'/v1/webhooks', 'post'>;
export type WebhookEventType = Webhook['event_types'][number];
export type CreateWebhook = Body<'/v1/webhooks', 'post'>;
export type UpdateWebhook = Body<'/v1/webhooks/{id}', 'put'>;
export type DeliveriesPage = Ok<'/v1/webhooks/{id}/deliveries', 'get'>;
export type WebhookDelivery = DeliveriesPage['deliveries'][number];

export type BroadcastsPage = Ok<'/v1/broadcasts', 'get'>;
export type Broadcast = BroadcastsPage['broadcasts'][number];
/** GET /v1/broadcasts/{id}: the broadcast and its stats. */
export type BroadcastWithStats = Ok<'/v1/broadcasts/{id}', 'get'>;

export type Usage = Ok<'/v1/usage', 'get'>;
export type AccountVerification = Ok<'/v1/account/verification', 'get'>;
export type CreateAccount = Body<'/v1/admin/accounts', 'post'>;
export type CreatedAccount = Ok<'/v1/admin/accounts', 'post'>;
