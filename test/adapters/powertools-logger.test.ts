// The Logger port in Lambda is Powertools Logger: JSON lines with the invocation's keys.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { powertoolsLogger } from '../../shared/adapters/aws/powertools-logger';

let lines: Array<Record<string, unknown>>;

beforeEach(() => {
  lines = [];
  // Powertools writes through a Console on process.stdout (stderr for none of these levels).
  const capture = (chunk: string | Uint8Array): boolean => {
    for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture as typeof process.stdout.write);
  vi.spyOn(process.stderr, 'write').mockImplementation(capture as typeof process.stderr.write);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const lambdaContext = (awsRequestId: string) => ({
  awsRequestId,
  functionName: 'postbox-send',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:postbox-send',
  memoryLimitInMB: '512',
  callbackWaitsForEmptyEventLoop: true,
  logGroupName: '/aws/lambda/postbox-send',
  logStreamName: 'stream',
  getRemainingTimeInMillis: () => 1000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
});

describe('the Powertools logger', () => {
  it("writes one JSON line per call with the service, the level, the message and the call's fields", () => {
    const logger = powertoolsLogger('debug');

    logger.info('message queued', { message_id: 'msg_1', attempts: 2 });
    logger.warn('slow provider', { ms: 900 });

    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 'INFO', message: 'message queued', service: 'postbox', message_id: 'msg_1', attempts: 2 });
    expect(lines[1]).toMatchObject({ level: 'WARN', message: 'slow provider', ms: 900 });
  });

  it("puts an invocation's keys and the Lambda context on every line, until the next invocation replaces them", () => {
    const logger = powertoolsLogger('info');

    logger.invocation!({ request_id: 'req_a', route: 'POST /v1/send' }, lambdaContext('aws-1'));
    logger.info('first');
    logger.error('second');
    logger.invocation!({ queue: 'send' }, lambdaContext('aws-2'));
    logger.info('third');

    expect(lines[0]).toMatchObject({ request_id: 'req_a', route: 'POST /v1/send', function_request_id: 'aws-1', function_name: 'postbox-send' });
    expect(lines[1]).toMatchObject({ request_id: 'req_a', function_request_id: 'aws-1', level: 'ERROR' });
    expect(lines[2]).toMatchObject({ queue: 'send', function_request_id: 'aws-2' });
    expect(lines[2]).not.toHaveProperty('request_id');
    expect(lines[2]).not.toHaveProperty('route');
  });

  it('writes an Error in the fields as its name, message and stack, and its cause', () => {
    const logger = powertoolsLogger('info');

    logger.error('store failed', { error: new Error('throttled', { cause: new TypeError('socket') }) });

    const error = lines[0]!.error as Record<string, unknown>;
    expect(error).toMatchObject({ name: 'Error', message: 'throttled', cause: { name: 'TypeError', message: 'socket' } });
    expect(String(error.stack)).toContain('throttled');
  });

  it('writes nothing under its level, and nothing at all when silent', () => {
    powertoolsLogger('warn').info('hidden');
    powertoolsLogger('warn').debug('hidden');
    powertoolsLogger('silent').error('hidden');
    powertoolsLogger('warn').error('shown');

    expect(lines.map((l) => l.message)).toEqual(['shown']);
  });
});
