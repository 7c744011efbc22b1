// The SDK clients of the local runtime's emulators, made the same way on both of its threads (the
// API's and the functions'), each thread with its own.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { MessagePort } from 'node:worker_threads';
import { ChannelHttpHandler } from './channel-handler';

export const REGION = 'us-east-1';
export const DUMMY_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const common = { region: REGION, credentials: DUMMY_CREDENTIALS };

/**
 * A client of an emulator, made lighter than the SDK makes it for AWS: the emulators read the
 * shape of the Authorization header and never check a signature, so SigV4's work on every call (a
 * canonical request, a SHA-256 of the body, HMACs) is CPU the thread spends for nothing, and
 * a fixed well-formed header replaces it; the User-Agent (built on every call), the Lambda
 * trace-id header and the SDK's own logging middleware are dropped. Together about a fifth of the
 * thread's cost of a store call.
 */
function forEmulator<C extends { middlewareStack: { remove(name: string): boolean } }>(client: C): C {
  for (const name of ['getUserAgentMiddleware', 'recursionDetectionMiddleware', 'loggerMiddleware']) client.middlewareStack.remove(name);
  return client;
}

function emulatorSigner(service: string) {
  return {
    sign: async <R extends { headers: Record<string, string> }>(request: R): Promise<R> => {
      const now = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
      request.headers['x-amz-date'] = now;
      request.headers.authorization = `AWS4-HMAC-SHA256 Credential=local/${now.slice(0, 8)}/${REGION}/${service}/aws4_request, SignedHeaders=host;x-amz-date, Signature=0`;
      return request;
    },
  };
}

/**
 * The store's client: over `channel` (the embedded store's MessagePort, channel-handler.ts) when
 * given, else over HTTP; a store the user pointed us at (`external`, DYNAMODB_ENDPOINT) gets the
 * SDK's own client.
 */
export function storeClient(endpoint: string, options: { channel?: MessagePort; external?: boolean; /** Over the channel: requests at the store at once (channel-handler.ts). */ maxInFlight?: number } = {}): DynamoDBClient {
  if (options.external) return new DynamoDBClient({ ...common, endpoint, maxAttempts: 5 });
  const requestHandler = options.channel ? (new ChannelHttpHandler(options.channel, options.maxInFlight) as never) : undefined;
  return forEmulator(new DynamoDBClient({ ...common, endpoint, maxAttempts: 5, signer: emulatorSigner('dynamodb'), ...(requestHandler ? { requestHandler } : {}) }));
}

/** The queue emulator's client: over `channel` (its MessagePort, channel-handler.ts) when given, else over HTTP. */
export function sqsClient(endpoint: string, channel?: MessagePort): SQSClient {
  const requestHandler = channel ? (new ChannelHttpHandler(channel) as never) : undefined;
  return forEmulator(new SQSClient({ ...common, endpoint, signer: emulatorSigner('sqs'), ...(requestHandler ? { requestHandler } : {}) }));
}

export function sesClient(endpoint: string): SESv2Client {
  return forEmulator(new SESv2Client({ ...common, endpoint, signer: emulatorSigner('ses') }));
}
