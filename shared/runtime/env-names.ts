// Names of the environment variables the stack hands to each Lambda. The stack sets them and
// config.ts reads them; neither spells them anywhere else.
import { type BillingPeriod, type PaidPlan, type QueueName, type SecretName } from '../platform';

const upper = (name: string): string => name.toUpperCase().replace(/-/g, '_');

export const envNames = {
  runtime: 'RUNTIME',
  /** The stage the stack was deployed as (CDK context `stage`): the only dimension of the service's metrics. */
  stage: 'STAGE',
  tableName: 'TABLE_NAME',
  queueUrl: (queue: QueueName): string => `QUEUE_URL_${upper(queue)}`,
  queueArn: (queue: QueueName): string => `QUEUE_ARN_${upper(queue)}`,
  /** A queue's dead-letter queue (functions whose needs list deadLetters). */
  dlqUrl: (queue: QueueName): string => `DLQ_URL_${upper(queue)}`,
  secretArn: (secret: SecretName): string => `SECRET_ARN_${upper(secret)}`,
  sesConfigurationSet: 'SES_CONFIGURATION_SET',
  /** The configuration set that tracks opens and clicks (lib/constructs/mail-events.ts). */
  sesTrackedConfigurationSet: 'SES_TRACKED_CONFIGURATION_SET',
  sesOpensConfigurationSet: 'SES_OPENS_CONFIGURATION_SET',
  sesClicksConfigurationSet: 'SES_CLICKS_CONFIGURATION_SET',
  schedulerGroup: 'SCHEDULER_GROUP_NAME',
  schedulerRoleArn: 'SCHEDULER_ROLE_ARN',
  bucketName: 'BUCKET_NAME',
  sharedEmailSender: 'SHARED_EMAIL_SENDER',
  logLevel: 'LOG_LEVEL',
  publicBaseUrl: 'PUBLIC_BASE_URL',
  /** The Stripe price id of one plan and period, e.g. STRIPE_PRICE_PRO_YEAR. */
  stripePrice: (plan: PaidPlan, period: BillingPeriod): string => `STRIPE_PRICE_${upper(plan)}_${upper(period)}`,
  /** Tests and local stand-ins only: another host for the Stripe client (never read in AWS). */
  stripeApiBase: 'STRIPE_API_BASE',
  /** Local runtime: the Stripe keys (Secrets Manager in AWS). */
  stripeSecretKey: 'STRIPE_SECRET_KEY',
  stripeWebhookSecret: 'STRIPE_WEBHOOK_SECRET',
  /**
   * The operator's reputation levels (shared/billing/reputation/policy.ts): rates from 0 to 1 and the
   * fewest sends judged. Locally from the environment; in AWS CDK context of the same names, set
   * on the functions whose needs list `reputation`.
   */
  reputation: {
    warnBounceRate: 'REPUTATION_WARN_BOUNCE_RATE',
    warnComplaintRate: 'REPUTATION_WARN_COMPLAINT_RATE',
    pauseBounceRate: 'REPUTATION_PAUSE_BOUNCE_RATE',
    pauseComplaintRate: 'REPUTATION_PAUSE_COMPLAINT_RATE',
    minSends: 'REPUTATION_MIN_SENDS',
  },
} as const;

/**
 * Sign-in with GitHub or Google (shared/auth/oauth). Apart from `envNames` so that only the
 * bundles that read them carry them. The client secret is a Secrets Manager secret in AWS
 * (`oauth-<provider>-client-secret`); the base URL is for tests and local stand-ins only, never
 * read in AWS, and replaces every host of the provider (authorize, token and API).
 */
export const oauthEnvNames = {
  clientId: (provider: string): string => `OAUTH_${upper(provider)}_CLIENT_ID`,
  clientSecret: (provider: string): string => `OAUTH_${upper(provider)}_CLIENT_SECRET`,
  baseUrl: (provider: string): string => `OAUTH_${upper(provider)}_BASE_URL`,
} as const;

/** The sandbox sender when SHARED_EMAIL_SENDER is not set; the stack and config.ts share it. */
export const DEFAULT_SHARED_EMAIL_SENDER = 'onboarding@sandbox.postbox.dev';
