// What a rehearsal is, for its callers (rehearsal/rehearsal.ts starts one): its options and what
// it answers, with the records it keeps of what the stack did.
import type { RunningSes } from '../local/emulators';
import type { Assembly } from './assembly';
import type { RecordedCall } from './aws-front';
import type { Delivery } from './event-sources';
import type { ApiRoute } from './http-api';
import type { Internet, InvokeResult, LogLine, RehearsedFunction } from './lambda';
import type { ReceivedMail, ReceiptRuleS3Action } from './receiving';
import type { S3StandIn } from './s3';
import type { SchedulerStandIn } from './scheduler';
import type { StoredSecret } from './secrets';

/** A notification SNS handed to a subscription's queue (or could not). */
export interface Notification {
  topicArn: string;
  subscription: string;
  queueArn: string;
  message: string;
  error?: string;
}

/** One invocation of a function, however it was triggered. */
export interface InvocationRecord {
  functionLogicalId: string;
  /** The manifest name, from the function's Description ("Postbox <name>"), else the logical id. */
  label: string;
  trigger: 'http' | 'sqs' | 'schedule';
  ok: boolean;
  error?: { errorType: string; errorMessage: string };
}

export interface RehearsalOptions {
  assembly: Assembly;
  /** Port of the HTTP API; 0 (default) picks a free one. */
  port?: number;
  /**
   * The IAM check of every call the functions make (rehearsal/iam.ts): on by default; off, every
   * call is allowed (and still recorded).
   */
  iam?: boolean;
  onLog?: (line: LogLine) => void;
  /** Called with each call the IAM check refused (they are in `calls` too). */
  onDenied?: (call: RecordedCall) => void;
  /** How often the wall clock fires due schedules (1000 ms by default; 0: only `scheduler.fireDue`). */
  schedulerTickMs?: number;
  /**
   * The public hosts the functions may reach, each served on loopback (a webhook receiver): the
   * functions' network carries a connection to one to its server, after the product's own address
   * guard passed the public address (rehearsal/internet.mjs). Every other public address is unreachable.
   */
  internet?: Internet;
}

export interface Rehearsal {
  /** The HTTP API's base URL. */
  url: string;
  assembly: Assembly;
  functions: ReadonlyMap<string, RehearsedFunction>;
  routes: readonly ApiRoute[];
  secrets: readonly StoredSecret[];
  invocations: InvocationRecord[];
  deliveries: Delivery[];
  /** Every notification SNS delivered to a subscription, SES's events among them. */
  notifications: Notification[];
  /** Every call the functions made to DynamoDB, SQS, SES, S3, Secrets Manager and Scheduler (and Scheduler's sends as its role), with its IAM outcome. */
  calls: RecordedCall[];
  logs: LogLine[];
  /** Problems found in the poller loops (a receive that failed, …). */
  errors: string[];
  /** Resources of the template the rehearsal does not play, by type. */
  unrehearsed: Record<string, string[]>;
  /** Properties the emulators cannot apply (e.g. DynamoDB TTL in dynalite). */
  notes: string[];
  ses: RunningSes;
  /** The buckets' front (what AWS_ENDPOINT_URL_S3 names) and s3rver behind it. */
  s3: Pick<S3StandIn, 'endpoint' | 'upstream'>;
  /** The rate rules, by logical id, and the function each invokes. */
  rules: ReadonlyArray<{ logicalId: string; everyMs: number; functionLogicalId: string }>;
  /** EventBridge Scheduler: the schedules the functions made, the firings, and `fireDue(now)` to fire what is due. */
  scheduler: Omit<SchedulerStandIn, 'close'>;
  /** The DynamoDB emulator itself (no IAM front): for a flow's setup the API cannot make offline (a domain verified by DNS). */
  dynamodb: { endpoint: string };
  /**
   * Time to Live, which dynalite lacks: deletes the items of the template's TTL tables whose TTL
   * attribute is before `now` (default: the wall clock), as DynamoDB does in the background within
   * days of it. Answers how many it deleted.
   */
  expireItems(now?: Date): Promise<number>;
  /** The receipt rules' S3 actions (a stack synthesized with inbound), and what SES did with each message. */
  receiptRules: readonly ReceiptRuleS3Action[];
  received: ReceivedMail[];
  /** A message arriving at SES for these recipients: each rule that takes one stores it and notifies its topic, as SES does. */
  receiveMail(mail: { from: string; to: string[]; raw: string | Buffer }): Promise<ReceivedMail>;
  /**
   * Runs `during` with the queue's VisibilityTimeout (the template's are minutes) set to `seconds`,
   * then sets the template's back: a record a function fails in the meantime is received again
   * that much later, and past the RedrivePolicy's maxReceiveCount SQS moves it to the DLQ.
   */
  withVisibilityTimeout<T>(queueUrl: string, seconds: number, during: () => Promise<T>): Promise<T>;
  /** What an operator's `aws secretsmanager put-secret-value` does (the Stripe keys, the OAuth client secrets): a function reads it on its next cold start. */
  putSecretValue(nameOrArn: string, value: string): void;
  /** The SQS emulator itself (no IAM front): for a flow to put a message on a queue as an AWS service would, or to read a queue no function consumes here. */
  sqs: { endpoint: string };
  /** Runs a rule's target now, as EventBridge does when the rate comes round. */
  fireRule(logicalId: string): Promise<InvokeResult>;
  /** The function whose Description is "Postbox <label>". */
  functionNamed(label: string): RehearsedFunction;
  close(): Promise<void>;
}
