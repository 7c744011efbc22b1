// Names of the environment variables the stack hands to each Lambda. The stack sets them and
// config.ts reads them; neither spells them anywhere else.
import { type QueueName, type SecretName } from '../platform';

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
} as const;

/** The sandbox sender when SHARED_EMAIL_SENDER is not set; the stack and config.ts share it. */
export const DEFAULT_SHARED_EMAIL_SENDER = 'onboarding@sandbox.postbox.dev';
