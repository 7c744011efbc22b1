// List prices that turn the counted AWS requests of one send into dollars per million emails.
// AWS us-east-1, pay-per-request, as published in 2025; free tiers ignored. Prices change: check
// each service's pricing page before quoting these numbers.
import { functions } from '../functions/manifest';

export const PRICES = {
  /** DynamoDB on-demand: $0.625 per million write request units (an item up to 1 KB = 1 WRU; each GSI entry written adds its own WRUs). */
  dynamodbWruPerMillion: 0.625,
  /** DynamoDB on-demand: $0.125 per million read request units (a strongly consistent read up to 4 KB = 1 RRU). */
  dynamodbRruPerMillion: 0.125,
  /** SQS standard queue: $0.40 per million requests; each 64 KB chunk of a request's payload is one request. */
  sqsRequestsPerMillion: 0.4,
  /** Lambda: $0.20 per million invocations. */
  lambdaInvocationsPerMillion: 0.2,
  /** Lambda on arm64: $0.0000133334 per GB-second (first pricing tier), billed per 1 ms. */
  lambdaArmGbSecond: 0.0000133334,
  /** API Gateway HTTP API: $1.00 per million requests (first 300 million a month; metered in 512 KB chunks). */
  httpApiRequestsPerMillion: 1.0,
  /** SNS standard topic publish: $0.50 per million (SES event publishing to our topic is a publish). */
  snsPublishPerMillion: 0.5,
  /** SNS delivery to an SQS queue: free. */
  snsToSqsDeliveryPerMillion: 0,
  /** SES outbound email: $0.10 per 1,000 emails, i.e. $100 per million. */
  sesPerMillionEmails: 100,
} as const;

/**
 * Lambda durations are assumed, not measured: this benchmark runs on dynalite and emulators on a
 * shared machine, whose latencies say nothing about DynamoDB, SQS or SES in a region. Memory is the
 * manifest's. The run's local times are shown next to these for scale.
 */
export const ASSUMED_LAMBDA_MS = {
  /** POST /v1/send: about a dozen sequential DynamoDB/SQS calls at a few ms each. */
  apiSingleSend: 100,
  /** POST /v1/send/batch with 1,000 items: claims 16 at a time, then ~80 batch writes and 100 queue batches in sequence. */
  apiBatchOf1000: 5_000,
  /** Queue consumers, per message. */
  perMessage: {
    /** Send worker: SES SendEmail (tens of ms) and ~7 DynamoDB calls. */
    send: 100,
    /** SES events ingest: three DynamoDB calls and a publish. */
    'ses-events': 40,
    /** Webhook fan-out with no subscription: one Query. */
    webhooks: 20,
  } as Record<string, number>,
  /** Any other queue consumer, per message. */
  otherPerMessage: 50,
} as const;

export const assumedMsPerMessage = (queue: string): number => ASSUMED_LAMBDA_MS.perMessage[queue] ?? ASSUMED_LAMBDA_MS.otherPerMessage;

export function memoryMbOf(functionName: string): number {
  const fn = functions.find((f) => f.name === functionName);
  if (!fn) throw new Error(`bench: no function ${functionName} in the manifest`);
  return fn.memoryMb;
}

export const gbSeconds = (memoryMb: number, ms: number): number => (memoryMb / 1024) * (ms / 1000);

/** One priced resource of one step, per email. */
export interface CostLine {
  step: string;
  resource: string;
  /** Units per email, in the resource's own unit (requests, WRU, GB-s, …). */
  units: number;
  unit: string;
  /** Dollars per million emails. */
  perMillion: number;
}

export const perMillion = {
  wru: (n: number): number => n * PRICES.dynamodbWruPerMillion,
  rru: (n: number): number => n * PRICES.dynamodbRruPerMillion,
  sqs: (n: number): number => n * PRICES.sqsRequestsPerMillion,
  invocations: (n: number): number => n * PRICES.lambdaInvocationsPerMillion,
  gbSeconds: (n: number): number => n * PRICES.lambdaArmGbSecond * 1e6,
  httpApi: (n: number): number => n * PRICES.httpApiRequestsPerMillion,
  snsPublish: (n: number): number => n * PRICES.snsPublishPerMillion,
} as const;
