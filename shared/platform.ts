// The vocabulary the manifest, the stack and both runtimes share: scopes and access rules, queues,
// secrets, and the shape of a function. Data and types only; functions/manifest.ts lists the
// functions themselves.

/** What an API key may do; declared here once (schemas, the pipeline and the manifest use it). */
export const scopes = ['send', 'read', 'admin'] as const;
export type Scope = (typeof scopes)[number];
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Which modes may call a key route. A caller is in test mode when it is a test-mode key, or the
 * console session of a person whose address is not verified yet. `live_only` routes change what
 * live mail reads or does (domains, channels, sender names, BIMI, test recipients, suppressions,
 * templates and snippets once written, contacts, lists and their members, Mail inboxes and the
 * Mail app's sending, forms, inbound routes, spend caps, billing): a caller in test mode gets 403
 * there. `live_and_test` routes read, send in the caller's mode (a test send never leaves), or
 * write what live mail never reads (webhooks, new templates, labels); where one moves a stored
 * live thing (a broadcast, a scheduled message, a key) its use case answers a test-mode caller 404.
 * Every key route states it, so a new route cannot forget to decide (docs/api-decisions.md,
 * docs/threat-model.md).
 */
export type KeyModes = 'live_and_test' | 'live_only';

/**
 * Who may call a route (the whole table, per actor: docs/threat-model.md).
 * - `key`: an API key whose scope is listed; `admin` keys may call every key route. A console
 *   session (no Authorization header) acts as an admin key of its account, live once the person's
 *   address is verified and in test mode before.
 * - `any_key`: any valid API key (or session), whatever its scope.
 * - `staff`: the deployment's staff token, or the session of a staff user (operators, not
 *   customers). Limited per client IP.
 * - `public`: no credentials. Limited per client IP.
 * A suspended account's keys and sessions are refused on every `key`, `any_key` and `staff` route.
 */
export type Access =
  | { kind: 'key'; scopes: readonly Scope[]; modes: KeyModes }
  | { kind: 'any_key'; modes: KeyModes }
  | { kind: 'staff' }
  | { kind: 'public' };

export interface HttpRoute {
  method: HttpMethod;
  /** API Gateway path template, e.g. /v1/keys/{id}. */
  path: string;
  access: Access;
  summary: string;
  /**
   * How the pipeline reads the body. Default `json`: parsed as JSON unless it is an upload
   * (multipart, an image, octet-stream). `raw`: never parsed; the route reads `rawBody` and its
   * Content-Type itself (a file sent as the body, e.g. text/csv).
   */
  body?: 'json' | 'raw';
}

export type QueueName = 'send' | 'fanout' | 'webhooks' | 'ses-events' | 'imports' | 'inbound';
export const secretNames = ['cursor-signing-key', 'staff-token', 'data-encryption-key', 'unsubscribe-signing-key', 'stripe-secret-key', 'stripe-webhook-secret', 'oauth-github-client-secret', 'oauth-google-client-secret'] as const;
export type SecretName = (typeof secretNames)[number];
/**
 * Secrets only an operator can supply (the Stripe keys, the OAuth apps' client secrets). The stack
 * creates them holding UNSET_SECRET, which counts as not set (billing, or that provider's sign-in,
 * stays unconfigured) until the operator puts the real value in; the local runtime reads them from
 * its environment and never generates them.
 */
export const operatorSecrets: readonly SecretName[] = ['stripe-secret-key', 'stripe-webhook-secret', 'oauth-github-client-secret', 'oauth-google-client-secret'];
export const UNSET_SECRET = 'unset';
/** Who a person may sign in with (issue 19); each has an `oauth-<provider>-client-secret`. */
export const oauthProviders = ['github', 'google'] as const;
export type OAuthProvider = (typeof oauthProviders)[number];
/** Paid plans and their billing periods (issue 18); an account without a subscription is on `free`. */
export const paidPlans = ['starter', 'pro', 'growth', 'scale'] as const;
export type PaidPlan = (typeof paidPlans)[number];
export const billingPeriods = ['month', 'year'] as const;
export type BillingPeriod = (typeof billingPeriods)[number];

/**
 * The service's own CloudWatch metrics (counts, emitted as Embedded Metric Format log lines by
 * shared/adapters/emf-metrics.ts; the stack's dashboard graphs them). One namespace; the only
 * dimension is the stage, never an account: a metric per account would cost a custom metric each.
 */
export const METRICS_NAMESPACE = 'Postbox';
export const countMetrics = ['MessagesAccepted', 'MessagesSent', 'MessagesDelivered', 'MessagesBounced', 'MessagesComplained', 'WebhooksDelivered', 'WebhooksFailed'] as const;
export type CountMetric = (typeof countMetrics)[number];

export interface QueueDef {
  name: QueueName;
  /** Seconds a received message stays invisible; at least six times the consumer's timeout. */
  visibilityTimeoutSeconds: number;
  /** Receives before SQS moves a message to the queue's DLQ. */
  maxReceiveCount: number;
  batchSize: number;
  maxBatchingWindowSeconds: number;
  summary: string;
}

/** What a function may touch. The stack turns this into least-privilege IAM. */
export interface Needs {
  table?: 'read' | 'readwrite';
  /** Queues the function sends to. */
  sendTo?: readonly QueueName[];
  secrets?: readonly SecretName[];
  sesSend?: boolean;
  /** Create, read and delete SES sending identities (customer domains). */
  sesIdentities?: boolean;
  scheduler?: boolean;
  bucket?: 'read' | 'readwrite';
  /**
   * Builds links on the public origin (PUBLIC_BASE_URL) outside a request, e.g. a queue consumer
   * mailing unsubscribe links. Every function behind the API has the origin anyway.
   */
  links?: boolean;
  /** Calls the payment provider (Stripe): its client is in this function's bundle only. */
  billing?: boolean;
  /**
   * Looks at and redrives every queue's DLQ (the staff dead-letter routes): receive and delete on
   * the DLQs, send on their source queues.
   */
  deadLetters?: boolean;
  /**
   * Judges or shows the sending reputation (shared/billing/reputation): gets the operator's levels
   * (REPUTATION_*, CDK context of the same names) where they are set.
   */
  reputation?: boolean;
}

export interface FunctionDef {
  /** Domain name; also the CDK id stem and the folder under functions/. */
  name: string;
  /** Entry file relative to the project root. */
  entry: string;
  /** Named export of the entry file. */
  handler: string;
  http?: readonly HttpRoute[];
  /** The catch-all route: unknown paths and wrong methods, answered in the error envelope. */
  defaultRoute?: boolean;
  queue?: QueueName;
  /** Invoked on a fixed rate: an EventBridge rule in AWS, a timer in the local runtime. */
  every?: { minutes: number; summary: string };
  needs: Needs;
  memoryMb: number;
  timeoutSeconds: number;
}


export const queues: readonly QueueDef[] = [
  { name: 'send', visibilityTimeoutSeconds: 180, maxReceiveCount: 5, batchSize: 10, maxBatchingWindowSeconds: 0, summary: 'messages accepted by the API, on their way to the provider' },
  { name: 'fanout', visibilityTimeoutSeconds: 900, maxReceiveCount: 3, batchSize: 1, maxBatchingWindowSeconds: 0, summary: 'broadcast fan-out pages' },
  { name: 'webhooks', visibilityTimeoutSeconds: 240, maxReceiveCount: 5, batchSize: 10, maxBatchingWindowSeconds: 0, summary: 'webhook delivery attempts' },
  { name: 'ses-events', visibilityTimeoutSeconds: 180, maxReceiveCount: 5, batchSize: 10, maxBatchingWindowSeconds: 1, summary: 'SES event notifications via SNS' },
  { name: 'imports', visibilityTimeoutSeconds: 720, maxReceiveCount: 5, batchSize: 1, maxBatchingWindowSeconds: 0, summary: 'contact imports, a run of chunks each; the rest of long list deletes' },
  // One message a batch: a message may be 40 MB, parsed one at a time within the worker's memory.
  { name: 'inbound', visibilityTimeoutSeconds: 720, maxReceiveCount: 5, batchSize: 1, maxBatchingWindowSeconds: 0, summary: 'received mail: SES receipt notifications (S3 action via SNS) of raw messages in the bucket' },
];

export function routeKey(route: Pick<HttpRoute, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}

/** One route of the API Gateway: `ANY /path`, or one method (a GET's HEAD twin included) where functions share a path. */
export interface GatewayRoute {
  method: HttpMethod | 'HEAD' | 'ANY';
  path: string;
  fn: FunctionDef;
}

/**
 * The API Gateway routes of the manifest's HTTP routes. A path whose every method is served by one
 * function is one `ANY` route (the pipeline picks the method's route and answers 404 for any other
 * method, as `$default` does): a CloudFormation stack holds at most 500 resources, and a route per
 * method, with a HEAD twin per GET, took 174 of them. Where functions share a path, each method
 * is its own route and a GET has its HEAD twin.
 */
export function gatewayRoutes(defs: readonly FunctionDef[]): GatewayRoute[] {
  const byPath = new Map<string, Array<{ method: HttpMethod; fn: FunctionDef }>>();
  for (const fn of defs) for (const route of fn.http ?? []) byPath.set(route.path, [...(byPath.get(route.path) ?? []), { method: route.method, fn }]);
  return [...byPath].flatMap(([path, served]): GatewayRoute[] => {
    const owners = new Set(served.map((s) => s.fn.name));
    if (owners.size === 1) return [{ method: 'ANY', path, fn: served[0]!.fn }];
    return served.flatMap(({ method, fn }): GatewayRoute[] => [{ method, path, fn }, ...(method === 'GET' ? [{ method: 'HEAD' as const, path, fn }] : [])]);
  });
}

export function queueNamed(name: QueueName): QueueDef {
  const found = queues.find((q) => q.name === name);
  if (!found) throw new Error(`queue ${name} is not defined`);
  return found;
}

/** The route keys of a function's definition (`POST /v1/send`), as route tables and contracts name them. */
export type RouteKeyOf<F extends FunctionDef> = F['http'] extends readonly (infer R)[] ? (R extends { method: infer M extends string; path: infer P extends string } ? `${M} ${P}` : never) : never;

/**
 * A function's definition (functions/<area>/definition.ts), kept with its routes' literal methods
 * and paths, so the area's route table and contracts are checked against it when they compile.
 */
export function defineFunction<const F extends FunctionDef>(def: F): F {
  return def;
}
