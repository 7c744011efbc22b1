// The only reader of process.env. Everything else receives validated config.
import * as z from 'zod';
import { billingPeriods, oauthProviders, paidPlans, queues, secretNames, type BillingPeriod, type OAuthProvider, type PaidPlan, type QueueName, type SecretName } from '../platform';
import { DEFAULT_SHARED_EMAIL_SENDER, envNames, oauthEnvNames } from './env-names';
import type { LogLevel } from '../adapters/logger';
import { DEFAULT_EMAIL_COST_MICROS } from '../billing/usage/cost';
import { defaultPolicy, type ReputationPolicy } from '../billing/reputation/policy';

export interface RuntimeConfig {
  runtime: 'aws' | 'local';
  /** AWS: the stack's stage (STAGE), the dimension of the metrics the functions emit. */
  stage?: string;
  region: string;
  tableName: string;
  /** Local runtime: the embedded store and emulators, with dummy credentials. */
  endpoints: { dynamodb?: string; sqs?: string; ses?: string; s3?: string };
  credentials?: { accessKeyId: string; secretAccessKey: string };
  queueUrls: Partial<Record<QueueName, string>>;
  queueArns: Partial<Record<QueueName, string>>;
  /** The queues' DLQs, where the function may look at and redrive them (needs.deadLetters). */
  dlqUrls?: Partial<Record<QueueName, string>>;
  sesConfigurationSet?: string;
  /** The configuration set for tracked mail (opens and clicks); the default set otherwise. */
  /** The configuration sets of tracked mail, by tracking choice (lib/constructs/mail-events.ts). */
  sesTrackedConfigurationSets?: { opens?: string; clicks?: string; both?: string };
  /**
   * Where objects (large message content, inbound mail, BIMI logos, uploads) live: an S3 bucket
   * (s3rver's locally, at `endpoints.s3`), or, in the handler tests, files whose download links are
   * sealed with `downloadKey`.
   */
  objects: { kind: 's3'; bucket: string } | { kind: 'files'; root: string; downloadKey?: string };
  scheduler: { kind: 'aws'; groupName: string; roleArn: string } | { kind: 'local' };
  secrets: { kind: 'aws'; arns: Partial<Record<SecretName, string>> } | { kind: 'static'; values: Partial<Record<SecretName, string>> };
  sharedEmailSender: string;
  logLevel: LogLevel;
  /** Resolvers for recipient checks as host or host:port; the system's when empty. */
  dnsServers: string[];
  /** POST /v1/validate and validate_recipient; off answers 503 validation_not_configured. */
  validationEnabled: boolean;
  /** Internal cost estimate of one email in micro-dollars (SES list price: $0.10 per 1000). */
  emailCostMicros: number;
  /** Local development only: outbound requests may go to http:// and private addresses. */
  webhookAllowPrivate: boolean;
  /** How long a send attempt holds its message (shared/sending/messages/dispatch.ts); 30 s when unset. */
  dispatchLeaseMs?: number;
  /**
   * Local runtime: idempotency claims whose lease ends by then (its start plus the lease) belong to
   * the process before it and are over now, so a retry after a restart takes them over at once.
   */
  claimsExpiredBy?: number;
  /** How long a webhook endpoint has to answer (the spec's 30 s; tests shorten it). */
  webhookTimeoutMs?: number;
  /**
   * The origin of every link the service mails or publishes (PUBLIC_BASE_URL), never the
   * request's Host or X-Forwarded-* headers. Unset only in functions that make no links.
   */
  publicBaseUrl?: string;
  /**
   * Inbound email (INBOUND_ENABLED): off, the inbound routes answer 404 as the spec's
   * deployment-gated routes do. Unset counts as off.
   */
  inboundEnabled?: boolean;
  /** Local runtime: the host of the SMTP listener playing SES receiving, the MX of inbound domains. */
  inboundSmtpHost?: string;
  /**
   * Billing through Stripe (shared/billing/). The keys are secrets (`stripe-secret-key`,
   * `stripe-webhook-secret`); billing is configured only when both are set.
   */
  billing?: BillingSettings;
  /**
   * Sign-in with GitHub or Google: the local runtime's and the tests' settings. In AWS the client
   * ids are read when the auth function first needs them (oauthSettingsOf), so that no other
   * bundle carries their reading; the client secrets are secrets either way.
   */
  oauth?: OAuthSettings;
  /** How long a provider has to answer each OAuth request; 10 s when unset (tests shorten it). */
  oauthTimeoutMs?: number;
  /** The reputation levels (REPUTATION_*, readReputationPolicy); shared/billing/reputation's defaults when unset. */
  reputation?: ReputationPolicy;
}

export interface OAuthClient {
  clientId: string;
  /** OAUTH_<PROVIDER>_BASE_URL: tests and local stand-ins only, never read in AWS; replaces every host of the provider. */
  baseUrl?: string;
}

export type OAuthSettings = Partial<Record<OAuthProvider, OAuthClient>>;

/** A plan and period's price slot, e.g. `pro_year`. */
export type PriceSlot = `${PaidPlan}_${BillingPeriod}`;

export interface BillingSettings {
  /** Stripe price ids per plan and period (STRIPE_PRICE_<PLAN>_<PERIOD>); a slot without one cannot be bought. */
  prices: Partial<Record<PriceSlot, string>>;
  /** STRIPE_API_BASE: another host for the Stripe client, for tests and local stand-ins only. */
  apiBase?: string;
}

/** SES receiving's limit on a message, headers included: 40 MB. */
export const INBOUND_MAX_BYTES = 40 * 1024 * 1024;

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

// Schemas are built on demand, not at load: a module that only needs readRuntimeKind (the
// catch-all function) then bundles without zod.
const logLevel = () => z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info');
const dnsServers = () =>
  z
    .string()
    .default('')
    .transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^(\[[0-9a-fA-F:]+\]|[0-9.]+)(:\d{1,5})?$|^[0-9a-fA-F:]+$/, 'expected host or host:port IP addresses')));
const flag = () => z.enum(['true', 'false', '1', '0']).default('true').transform((v) => v === 'true' || v === '1');
const costMicros = () => z.coerce.number().int().min(0).default(DEFAULT_EMAIL_COST_MICROS);

/**
 * An http(s) origin, optionally with a path prefix, without a trailing slash: links are built as
 * `${base}/v1/...`. Credentials, a query or a fragment would end up in every link, so they are refused.
 */
const publicBaseUrl = () =>
  z
    .string()
    .trim()
    .refine((v) => {
      try {
        const url = new URL(v);
        return (url.protocol === 'http:' || url.protocol === 'https:') && !url.username && !url.password && !url.search && !url.hash && !v.endsWith('?') && !v.endsWith('#');
      } catch {
        return false;
      }
    }, 'expected an http:// or https:// URL without credentials, query or fragment, e.g. https://mail.example.com')
    .transform((v) => {
      const url = new URL(v);
      return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
    });

/** The price ids the environment names, one variable per plan and period; unset ones are left out. */
function readPrices(env: Env): BillingSettings['prices'] {
  const prices: BillingSettings['prices'] = {};
  for (const plan of paidPlans) {
    for (const period of billingPeriods) {
      const value = env[envNames.stripePrice(plan, period)]?.trim();
      if (value) prices[`${plan}_${period}`] = value;
    }
  }
  return prices;
}

const stripeApiBase = () => z.url({ protocol: /^https?$/ }).optional();

/** Which runtime answers. Read without zod: the catch-all function builds no container. */
export function readRuntimeKind(env: Env = process.env): RuntimeConfig['runtime'] {
  return env[envNames.runtime] === 'aws' ? 'aws' : 'local';
}

/** The configured public origin; a plain error when this function was given none. */
export function publicBaseUrlOf(config: Pick<RuntimeConfig, 'publicBaseUrl'>): string {
  if (!config.publicBaseUrl) throw new Error(`${envNames.publicBaseUrl} is not configured for this function; links cannot be built`);
  return config.publicBaseUrl;
}

function fail(what: string, error: z.ZodError): never {
  const detail = error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  throw new ConfigError(`invalid ${what} configuration: ${detail}`);
}

type PolicyLevel = Exclude<keyof ReputationPolicy, 'windowHours'>;
const policyLevels = Object.keys(envNames.reputation) as PolicyLevel[];

/**
 * The operator's reputation levels (REPUTATION_*), shared/billing/reputation's defaults where unset. Refused
 * with a ConfigError: a rate not above 0 or above 1 (a rate, not a percentage; 0 would judge every
 * account), a minimum send count not a whole number of at least 1, and a pause level below its
 * warning level (the warning could never come first). The stack checks its context with it at synth.
 */
export function readReputationPolicy(env: Env): ReputationPolicy {
  const policy: ReputationPolicy = { ...defaultPolicy };
  const problems: string[] = [];
  for (const level of policyLevels) {
    const name = envNames.reputation[level];
    const raw = env[name]?.trim();
    if (!raw) continue;
    const value = Number(raw);
    const ok = level === 'minSends' ? Number.isInteger(value) && value >= 1 : Number.isFinite(value) && value > 0 && value <= 1;
    if (ok) policy[level] = value;
    else problems.push(`${name}: expected ${level === 'minSends' ? 'a whole number of at least 1' : 'a rate above 0 and at most 1 (0.05 is 5%)'}, got "${raw}"`);
  }
  for (const what of ['Bounce', 'Complaint'] as const) {
    const warn = policy[`warn${what}Rate`];
    const pause = policy[`pause${what}Rate`];
    if (pause < warn) problems.push(`${envNames.reputation[`pause${what}Rate`]} (${pause}) is below ${envNames.reputation[`warn${what}Rate`]} (${warn}): an account must be warned before it is paused`);
  }
  if (problems.length) throw new ConfigError(`invalid reputation configuration: ${problems.join('; ')}`);
  return policy;
}

/** Configuration of a Lambda in AWS, from the variables the stack sets. */
export function readAwsConfig(env: Env = process.env): RuntimeConfig {
  const base = z
    .object({
      [envNames.tableName]: z.string().min(1),
      [envNames.stage]: z.string().min(1).optional(),
      AWS_REGION: z.string().min(1).default('us-east-1'),
      [envNames.sesConfigurationSet]: z.string().optional(),
      [envNames.sesTrackedConfigurationSet]: z.string().optional(),
      [envNames.sesOpensConfigurationSet]: z.string().optional(),
      [envNames.sesClicksConfigurationSet]: z.string().optional(),
      [envNames.bucketName]: z.string().optional(),
      [envNames.schedulerGroup]: z.string().optional(),
      [envNames.schedulerRoleArn]: z.string().optional(),
      [envNames.sharedEmailSender]: z.string().default(DEFAULT_SHARED_EMAIL_SENDER),
      [envNames.logLevel]: logLevel(),
      [envNames.publicBaseUrl]: publicBaseUrl().optional(),
      DNS_SERVERS: dnsServers(),
      VALIDATION_ENABLED: flag(),
      EMAIL_COST_MICROS: costMicros(),
      // The stack sets it where SES receives mail (CDK context `inbound`); off otherwise.
      INBOUND_ENABLED: z.enum(['true', 'false', '1', '0']).default('false').transform((v) => v === 'true' || v === '1'),
    })
    .safeParse(env);
  if (!base.success) fail('AWS', base.error);
  const v = base.data;
  const pick = <N extends string>(names: readonly N[], envName: (n: N) => string): Partial<Record<N, string>> =>
    Object.fromEntries(names.filter((n) => env[envName(n)]).map((n) => [n, env[envName(n)] as string])) as Partial<Record<N, string>>;
  const queueNames = queues.map((q) => q.name);
  const group = v[envNames.schedulerGroup];
  const role = v[envNames.schedulerRoleArn];
  return {
    runtime: 'aws',
    stage: v[envNames.stage],
    region: v.AWS_REGION,
    tableName: v[envNames.tableName],
    endpoints: {},
    queueUrls: pick(queueNames, envNames.queueUrl),
    queueArns: pick(queueNames, envNames.queueArn),
    dlqUrls: pick(queueNames, envNames.dlqUrl),
    sesConfigurationSet: v[envNames.sesConfigurationSet],
    sesTrackedConfigurationSets: { opens: v[envNames.sesOpensConfigurationSet], clicks: v[envNames.sesClicksConfigurationSet], both: v[envNames.sesTrackedConfigurationSet] },
    // A function without the bucket grant never touches objects; the empty name fails loudly if it did.
    objects: { kind: 's3', bucket: v[envNames.bucketName] ?? '' },
    scheduler: group && role ? { kind: 'aws', groupName: group, roleArn: role } : { kind: 'local' },
    secrets: { kind: 'aws', arns: pick(secretNames, envNames.secretArn) },
    sharedEmailSender: v[envNames.sharedEmailSender],
    logLevel: v[envNames.logLevel],
    dnsServers: v.DNS_SERVERS,
    validationEnabled: v.VALIDATION_ENABLED,
    emailCostMicros: v.EMAIL_COST_MICROS,
    // Never in AWS, whatever the environment says.
    webhookAllowPrivate: false,
    // The stack hands it to every function behind a route; queue consumers make no links yet.
    publicBaseUrl: v[envNames.publicBaseUrl],
    inboundEnabled: v.INBOUND_ENABLED,
    // STRIPE_API_BASE is never read in AWS: the Stripe client talks to Stripe there.
    billing: { prices: readPrices(env) },
    // The stack sets them on the functions that judge or show reputation (needs.reputation).
    reputation: readReputationPolicy(env),
  };
}

export interface LocalSettings {
  host: string;
  port: number;
  dataDir: string;
  /** Port of the embedded SES emulator and its mail viewer; 0 picks a free one. */
  sesPort: number;
  /** Use an already running DynamoDB-compatible endpoint instead of the embedded one. */
  dynamodbEndpoint?: string;
  sharedEmailSender: string;
  logLevel: LogLevel;
  /** How often the local scheduler looks for due schedules. */
  schedulerTickMs: number;
  /** Seconds before a failed queue message is offered again (Lambda waits the visibility timeout). */
  queueRetryDelaySeconds: number;
  dnsServers: string[];
  validationEnabled: boolean;
  emailCostMicros: number;
  /** The bootstrap account's own address: in sandbox mode live mail may go there. */
  accountEmail: string;
  webhookAllowPrivate: boolean;
  /** PUBLIC_BASE_URL; when unset the runtime uses its own address, http://HOST:PORT. */
  publicBaseUrl?: string;
  /** INBOUND_ENABLED: the inbound routes and the SMTP listener (on by default locally). */
  inboundEnabled: boolean;
  /** INBOUND_SMTP_PORT of the SMTP listener playing SES receiving; 0 picks a free one. */
  inboundSmtpPort: number;
  /** INBOUND_MAX_BYTES: the largest message the listener takes (SES's 40 MB); tests lower it. */
  inboundMaxBytes: number;
  /** STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET: billing is configured only when both are set. */
  stripeSecrets: Partial<Record<'stripe-secret-key' | 'stripe-webhook-secret', string>>;
  billing: BillingSettings;
  /** OAUTH_<PROVIDER>_CLIENT_ID and OAUTH_<PROVIDER>_BASE_URL of the providers whose client id is set. */
  oauth: OAuthSettings;
  /** OAUTH_<PROVIDER>_CLIENT_SECRET, as the secrets `oauth-<provider>-client-secret`. */
  oauthSecrets: Partial<Record<SecretName, string>>;
  /** REPUTATION_*: the levels at which an account is warned and paused (readReputationPolicy). */
  reputation: ReputationPolicy;
}

/** The OAuth clients of this deployment: in AWS from the function's environment (client ids only), elsewhere from the config. */
export function oauthSettingsOf(config: Pick<RuntimeConfig, 'runtime' | 'oauth'>, env: Env = process.env): OAuthSettings {
  if (config.runtime !== 'aws') return config.oauth ?? {};
  const settings: OAuthSettings = {};
  for (const provider of oauthProviders) {
    const clientId = env[oauthEnvNames.clientId(provider)]?.trim();
    if (clientId) settings[provider] = { clientId };
  }
  return settings;
}

/** Locally: the providers with a client id, their secrets and their stand-in base URLs. */
function readLocalOAuth(env: Env): Pick<LocalSettings, 'oauth' | 'oauthSecrets'> {
  const oauth: OAuthSettings = {};
  const oauthSecrets: LocalSettings['oauthSecrets'] = {};
  for (const provider of oauthProviders) {
    const clientId = env[oauthEnvNames.clientId(provider)]?.trim();
    const secret = env[oauthEnvNames.clientSecret(provider)]?.trim();
    const baseUrl = z.url({ protocol: /^https?$/ }).optional().safeParse(env[oauthEnvNames.baseUrl(provider)]?.trim() || undefined);
    if (!baseUrl.success) fail('local', baseUrl.error);
    if (clientId) oauth[provider] = { clientId, ...(baseUrl.data ? { baseUrl: baseUrl.data.replace(/\/+$/, '') } : {}) };
    if (secret) oauthSecrets[`oauth-${provider}-client-secret`] = secret;
  }
  return { oauth, oauthSecrets };
}

/** Settings of `npm start` (bin/local.ts). */
export function readLocalSettings(env: Env = process.env): LocalSettings {
  const port = z.coerce.number().int().min(0).max(65535);
  const parsed = z
    .object({
      HOST: z.string().min(1).default('127.0.0.1'),
      PORT: port.default(3000),
      DATA_DIR: z.string().min(1).default('./.data'),
      SES_PORT: port.default(8005),
      DYNAMODB_ENDPOINT: z.url().optional(),
      SHARED_EMAIL_SENDER: z.string().default(DEFAULT_SHARED_EMAIL_SENDER),
      LOG_LEVEL: logLevel(),
      SCHEDULER_TICK_MS: z.coerce.number().int().min(50).default(1000),
      QUEUE_RETRY_DELAY_SECONDS: z.coerce.number().int().min(0).max(43200).default(5),
      DNS_SERVERS: dnsServers(),
      VALIDATION_ENABLED: flag(),
      EMAIL_COST_MICROS: costMicros(),
      ACCOUNT_EMAIL: z.email().default('you@example.com'),
      WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false', '1', '0']).default('false').transform((v) => v === 'true' || v === '1'),
      PUBLIC_BASE_URL: publicBaseUrl().optional(),
      INBOUND_ENABLED: flag(),
      INBOUND_SMTP_PORT: port.default(2525),
      INBOUND_MAX_BYTES: z.coerce.number().int().min(1024).max(INBOUND_MAX_BYTES).default(INBOUND_MAX_BYTES),
      [envNames.stripeSecretKey]: z.string().trim().optional(),
      [envNames.stripeWebhookSecret]: z.string().trim().optional(),
      [envNames.stripeApiBase]: stripeApiBase(),
    })
    .safeParse(env);
  if (!parsed.success) fail('local', parsed.error);
  const v = parsed.data;
  return {
    host: v.HOST,
    port: v.PORT,
    dataDir: v.DATA_DIR,
    sesPort: v.SES_PORT,
    dynamodbEndpoint: v.DYNAMODB_ENDPOINT,
    sharedEmailSender: v.SHARED_EMAIL_SENDER,
    logLevel: v.LOG_LEVEL,
    schedulerTickMs: v.SCHEDULER_TICK_MS,
    queueRetryDelaySeconds: v.QUEUE_RETRY_DELAY_SECONDS,
    dnsServers: v.DNS_SERVERS,
    validationEnabled: v.VALIDATION_ENABLED,
    emailCostMicros: v.EMAIL_COST_MICROS,
    accountEmail: v.ACCOUNT_EMAIL,
    webhookAllowPrivate: v.WEBHOOK_ALLOW_PRIVATE,
    ...(v.PUBLIC_BASE_URL ? { publicBaseUrl: v.PUBLIC_BASE_URL } : {}),
    inboundEnabled: v.INBOUND_ENABLED,
    inboundSmtpPort: v.INBOUND_SMTP_PORT,
    inboundMaxBytes: v.INBOUND_MAX_BYTES,
    stripeSecrets: {
      ...(v[envNames.stripeSecretKey] ? { 'stripe-secret-key': v[envNames.stripeSecretKey] } : {}),
      ...(v[envNames.stripeWebhookSecret] ? { 'stripe-webhook-secret': v[envNames.stripeWebhookSecret] } : {}),
    },
    billing: { prices: readPrices(env), ...(v[envNames.stripeApiBase] ? { apiBase: v[envNames.stripeApiBase] } : {}) },
    ...readLocalOAuth(env),
    reputation: readReputationPolicy(env),
  };
}
