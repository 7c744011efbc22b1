// Every Lambda invocation starts its log keys: the API's request id and route, or the queue, with
// the Lambda context when Lambda gives one (shared/ports/logger.ts `invocation`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { consume } from '../../shared/runtime/consume';
import { installContainer } from '../../shared/runtime/container';
import type { Logger } from '../../shared/ports/logger';
import { call } from '../support/api';
import { createTestContainer, type TestContainer } from '../support/container';
import { sqsEvent, sqsRecord } from '../support/sqs';

let c: TestContainer;
const started: Array<{ keys: Record<string, unknown>; awsRequestId?: string }> = [];

beforeAll(async () => {
  c = await createTestContainer();
  const quiet = c.logger;
  const recording: Logger = { ...quiet, invocation: (keys, lambdaContext) => void started.push({ keys, awsRequestId: lambdaContext?.awsRequestId }) };
  c.logger = recording;
  installContainer(c);
});
afterAll(async () => c.testStore.close());

describe('log keys of an invocation', () => {
  it("are the request id the answer carries and the route, for an API request, refused ones included", async () => {
    started.length = 0;

    const res = await call({ method: 'GET', path: '/v1/keys' });

    expect(res.status).toBe(401);
    expect(started).toEqual([{ keys: { request_id: res.headers['x-request-id'], route: 'GET /v1/keys' }, awsRequestId: undefined }]);
  });

  it("are the queue for a consumer, with Lambda's request id when Lambda calls it", async () => {
    started.length = 0;
    const handled: string[] = [];
    const handler = consume('webhooks', z.object({ n: z.string() }), async (job) => void handled.push(job.n));

    const asLambda = handler as (event: ReturnType<typeof sqsEvent>, context: { awsRequestId: string }) => ReturnType<typeof handler>;
    const result = await asLambda(sqsEvent([sqsRecord({ n: 'one' })]), { awsRequestId: 'lambda-req-1' });
    await handler(sqsEvent([sqsRecord({ n: 'two' })]));

    expect(result.batchItemFailures).toEqual([]);
    expect(handled).toEqual(['one', 'two']);
    expect(started).toEqual([
      { keys: { queue: 'webhooks' }, awsRequestId: 'lambda-req-1' },
      { keys: { queue: 'webhooks' }, awsRequestId: undefined },
    ]);
  });
});
