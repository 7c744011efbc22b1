// Names of the environment variables the stack hands to each Lambda. The stack sets them and
// config.ts reads them; neither spells them anywhere else.
import { type BillingPeriod, type PaidPlan, type QueueName, type SecretName } from '../platform';

const upper = (name: string): string => name.toUpperCase().replace(/-/g, '_');

export const envNames = {
  runtime: 'RUNTIME',
  tableName: 'TABLE_NAME',
  queueUrl: (queue: QueueName): string => `QUEUE_URL_${upper(queue)}`,
  queueArn: (queue: QueueName): string => `QUEUE_ARN_${upper(queue)}`,
  secretArn: (secret: SecretName): string => `SECRET_ARN_${upper(secret)}`,
  sesConfigurationSet: 'SES_CONFIGURATION_SET',
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
} as const;

/** The sandbox sender when SHARED_EMAIL_SENDER is not set; the stack and config.ts share it. */
export const DEFAULT_SHARED_EMAIL_SENDER = 'onboarding@sandbox.postbox.dev';
