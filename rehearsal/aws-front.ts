// The rehearsal's AWS endpoints as the functions reach them: a front for each emulator that reads
// every call as IAM would see it (the action, the resource ARNs, the caller's access key id),
// asks the IAM check whether the caller's role may make it, answers AccessDenied as the service
// would when not, and otherwise passes the request on unchanged. Every call is recorded.
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { accessKeyIdOf } from './secrets';
import { REHEARSAL_ACCOUNT, REHEARSAL_REGION } from './template';
import { listenOnLoopback } from './loopback';

/** One permission IAM checks: an action on a resource. */
export interface Check {
  action: string;
  resource: string;
}

export interface AwsCall {
  service: string;
  /** The API operation, e.g. PutItem. */
  operation: string;
  checks: Check[];
  accessKeyId?: string;
}

/** A denial's message, or undefined when the call may go on. */
export type Authorize = (call: AwsCall) => string | undefined;

export interface RecordedCall extends AwsCall {
  denied?: string;
  /** The logical id of the role whose access key signed the call (a function's role), when it is one of the template's. */
  roleLogicalId?: string;
}

export type FrontService = 'dynamodb' | 'sqs' | 'sesv2';

const tableArn = (name: string): string => `arn:aws:dynamodb:${REHEARSAL_REGION}:${REHEARSAL_ACCOUNT}:table/${name}`;
/** A queue's ARN by its name, as this account and region spell it. */
export const queueArnOf = (name: string): string => `arn:aws:sqs:${REHEARSAL_REGION}:${REHEARSAL_ACCOUNT}:${name}`;
const sesArn = (resource: string): string => `arn:aws:ses:${REHEARSAL_REGION}:${REHEARSAL_ACCOUNT}:${resource}`;

type Body = Record<string, unknown>;

/** DynamoDB's JSON 1.0 calls: each transaction item is checked as the single-item action it is. */
function dynamodbChecks(operation: string, body: Body): Check[] {
  const action = (name: string): string => `dynamodb:${name}`;
  if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') {
    return Object.keys((body.RequestItems as Body | undefined) ?? {}).map((table) => ({ action: action(operation), resource: tableArn(table) }));
  }
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    const kinds: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' };
    return ((body.TransactItems as Body[] | undefined) ?? []).flatMap((item) =>
      Object.entries(item).map(([kind, detail]) => ({ action: action(kinds[kind] ?? kind), resource: tableArn(String((detail as Body).TableName)) })),
    );
  }
  const table = tableArn(String(body.TableName ?? ''));
  const index = typeof body.IndexName === 'string' ? `${table}/index/${body.IndexName}` : table;
  return [{ action: action(operation), resource: index }];
}

/** SQS's JSON calls: a batch is checked as its single-message action. */
function sqsChecks(operation: string, body: Body, arnOfQueue: (name: string) => string): Check[] {
  const single: Record<string, string> = { SendMessageBatch: 'SendMessage', DeleteMessageBatch: 'DeleteMessage', ChangeMessageVisibilityBatch: 'ChangeMessageVisibility' };
  const name = (typeof body.QueueUrl === 'string' ? body.QueueUrl : String(body.QueueName ?? '*')).split('/').filter(Boolean).pop() ?? '';
  const resource = arnOfQueue(name);
  return [{ action: `sqs:${single[operation] ?? operation}`, resource }];
}

/** SES v2 is REST: the operation is the method and path. Sending is checked on the sender's identity and the configuration set. */
function sesChecks(method: string, path: string, body: Body): { operation: string; checks: Check[] } {
  const segments = path.split('?')[0]!.split('/').filter(Boolean).map(decodeURIComponent);
  if (method === 'POST' && path.startsWith('/v2/email/outbound-emails')) {
    const from = String(body.FromEmailAddress ?? '');
    const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
    const checks = [{ action: 'ses:SendEmail', resource: sesArn(`identity/${address.split('@').pop() ?? ''}`) }];
    if (typeof body.ConfigurationSetName === 'string') checks.push({ action: 'ses:SendEmail', resource: sesArn(`configuration-set/${body.ConfigurationSetName}`) });
    return { operation: 'SendEmail', checks };
  }
  if (segments[1] === 'email' && segments[2] === 'identities') {
    const identity = segments[3] ?? String(body.EmailIdentity ?? '');
    const sub: Record<string, string> = { 'mail-from': 'PutEmailIdentityMailFromAttributes', dkim: 'PutEmailIdentityDkimAttributes', feedback: 'PutEmailIdentityFeedbackAttributes', 'configuration-set': 'PutEmailIdentityConfigurationSetAttributes' };
    const operation =
      segments[3] === undefined
        ? method === 'POST'
          ? 'CreateEmailIdentity'
          : 'ListEmailIdentities'
        : method === 'GET'
          ? 'GetEmailIdentity'
          : method === 'DELETE'
            ? 'DeleteEmailIdentity'
            : (sub[segments[4] ?? ''] ?? 'PutEmailIdentity');
    return { operation, checks: [{ action: `ses:${operation}`, resource: sesArn(`identity/${identity || '*'}`) }] };
  }
  const operation = `${method} ${path}`;
  return { operation, checks: [{ action: `ses:${operation}`, resource: '*' }] };
}

/** How a service spells AccessDenied over its protocol. */
function denial(service: FrontService, message: string): { status: number; headers: Record<string, string>; body: string } {
  if (service === 'dynamodb') return { status: 400, headers: { 'content-type': 'application/x-amz-json-1.0' }, body: JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', message }) };
  if (service === 'sqs') {
    return { status: 403, headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': 'AccessDenied;Sender' }, body: JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', message }) };
  }
  return { status: 403, headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'AccessDeniedException' }, body: JSON.stringify({ message }) };
}

/** Reads a call as IAM sees it. */
export function readCall(service: FrontService, method: string, path: string, headers: IncomingHttpHeaders, raw: Buffer, arnOfQueue: (name: string) => string = queueArnOf): AwsCall {
  let body: Body = {};
  try {
    body = raw.length ? (JSON.parse(raw.toString('utf8')) as Body) : {};
  } catch {
    body = {};
  }
  const accessKeyId = accessKeyIdOf(headers.authorization);
  const target = String(headers['x-amz-target'] ?? '');
  const operation = target.slice(target.indexOf('.') + 1);
  if (service === 'dynamodb') return { service, operation, checks: dynamodbChecks(operation, body), accessKeyId };
  if (service === 'sqs') return { service, operation, checks: sqsChecks(operation, body, arnOfQueue), accessKeyId };
  return { service, ...sesChecks(method, path, body), accessKeyId };
}

export interface Front {
  endpoint: string;
  close(): Promise<void>;
}

/** Serves `service` on loopback in front of `upstream`, checking and recording every call. */
export async function startFront(
  service: FrontService,
  upstream: string,
  authorize: Authorize,
  record: (call: RecordedCall) => void,
  /** The ARN of a queue by its name, as the queue emulator made it. */
  arnOfQueue: (name: string) => string = queueArnOf,
  /** Told of each call the emulator answered, with the request and answer bodies (SES event publishing reads them). */
  onAnswered?: (call: AwsCall, status: number, request: Buffer, answer: Buffer) => void,
  /** Answers a call the emulator does not know (e.g. SES's identities), or undefined to forward it. */
  answerItself?: (call: AwsCall, path: string, request: Buffer) => { status: number; body: unknown } | undefined,
): Promise<Front> {
  const target = new URL(upstream);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const call = readCall(service, req.method ?? 'GET', req.url ?? '/', req.headers, raw, arnOfQueue);
      const denied = authorize(call);
      record({ ...call, ...(denied ? { denied } : {}) });
      if (denied) {
        const answer = denial(service, denied);
        res.writeHead(answer.status, answer.headers);
        return void res.end(answer.body);
      }
      const own = answerItself?.(call, req.url ?? '/', raw);
      if (own) {
        res.writeHead(own.status, { 'content-type': 'application/json', ...(own.status >= 400 ? { 'x-amzn-errortype': String((own.body as { __type?: string }).__type ?? 'Error') } : {}) });
        return void res.end(JSON.stringify(own.body));
      }
      const forward = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
        (upstreamRes) => {
          res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
          if (!onAnswered) return void upstreamRes.pipe(res);
          const answer: Buffer[] = [];
          upstreamRes.on('data', (chunk: Buffer) => {
            answer.push(chunk);
            res.write(chunk);
          });
          upstreamRes.on('end', () => {
            // Told before the caller has its answer, as SES queues the event when it accepts the send.
            onAnswered(call, upstreamRes.statusCode ?? 502, raw, Buffer.concat(answer));
            res.end();
          });
        },
      );
      forward.on('error', (error) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `the ${service} emulator did not answer: ${error.message}` }));
      });
      forward.end(raw);
    });
  });
  return listenOnLoopback(server);
}
