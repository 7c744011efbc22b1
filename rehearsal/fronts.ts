// The fronts the functions call before the emulators (DynamoDB, SQS, SES), SES event publishing
// and SNS played from inside, and the endpoint of the services the rehearsal does not play.
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFront, type Authorize, type Front, type RecordedCall } from './aws-front';
import { sesIdentities } from './ses-identities';
import { deliveryEvent, snsEnvelope, type AcceptedSend, type EventDestination, type Subscription } from './sns';
import type { Notification } from './rehearsal-types';
import type { Emulators, Stage } from './stage';
import { REHEARSAL_REGION } from './template';

export type Fronts = Record<'dynamodb' | 'sqs' | 'sesv2', Front>;

export interface Publishing {
  /** SNS: the notification to every subscription of the topic (only SQS ones are made: the others are problems at start). */
  publish(topicArn: string, message: string): Promise<void>;
  /** SES event publishing: a send under a configuration set is reported to its destinations' topics. */
  publishSesEvents(request: AcceptedSend['request'], answer: { MessageId?: string }): Promise<void>;
  /** Whether a subscription of the template takes the topic's notifications. */
  hasSubscription(topicArn: string): boolean;
  /** The template's subscriptions and SES event destinations, once read. */
  use(read: { subscriptions: Subscription[]; destinations: EventDestination[] }): void;
}

export function snsPublishing(stage: Stage, sqsAdmin: SQSClient): Publishing {
  let subscriptions: Subscription[] = [];
  let destinations: EventDestination[] = [];
  const publish = async (topicArn: string, message: string): Promise<void> => {
    const messageId = randomUUID();
    for (const sub of subscriptions.filter((s) => s.topicArn === topicArn)) {
      const queue = [...stage.physical.values()].find((p) => p.attributes.QueueUrl && p.attributes.Arn === sub.endpoint);
      const body = sub.raw ? message : JSON.stringify(snsEnvelope(topicArn, message, messageId));
      const note: Notification = { topicArn, subscription: sub.logicalId, queueArn: sub.endpoint, message };
      try {
        await sqsAdmin.send(new SendMessageCommand({ QueueUrl: queue!.ref, MessageBody: body }));
      } catch (error) {
        note.error = error instanceof Error ? error.message : String(error);
        stage.errors.push(`${sub.logicalId}: SNS could not deliver to ${sub.endpoint}: ${note.error}`);
      }
      stage.notifications.push(note);
    }
  };
  const publishSesEvents = async (request: AcceptedSend['request'], answer: { MessageId?: string }): Promise<void> => {
    const set = request.ConfigurationSetName;
    if (!set || !answer.MessageId) return;
    const matching = destinations.filter((d) => d.configurationSet === set);
    if (!matching.length) stage.errors.push(`SES: a send named the configuration set ${set}, which the template has no event destination for`);
    const event = JSON.stringify(deliveryEvent({ request, providerMessageId: answer.MessageId, timestamp: new Date().toISOString() }));
    for (const destination of matching) if (destination.enabled && destination.topicArn && destination.eventTypes.includes('delivery')) await publish(destination.topicArn, event);
  };
  return { publish, publishSesEvents, hasSubscription: (topicArn) => subscriptions.some((sub) => sub.topicArn === topicArn), use: (read) => void ({ subscriptions, destinations } = read) };
}

/** The fronts the functions call, each before its emulator; SES's accepted sends are published as events. */
export async function startFronts(stage: Stage, emulators: Emulators, authorize: Authorize, queueArns: ReadonlyMap<string, string>, publishing: Publishing): Promise<Fronts> {
  const { record } = stage;
  const fronts: Fronts = {
    dynamodb: await startFront('dynamodb', emulators.dynalite.endpoint, authorize, record),
    sqs: await startFront('sqs', emulators.sqs.endpoint, authorize, record, (name) => queueArns.get(name) ?? `arn:aws:sqs:${REHEARSAL_REGION}:unknown:${name}`),
    sesv2: await startFront('sesv2', emulators.ses.endpoint, authorize, record, undefined, (call, status, request, answer) => {
      if (call.operation !== 'SendEmail' || status !== 200) return;
      void publishing.publishSesEvents(JSON.parse(request.toString('utf8')) as AcceptedSend['request'], JSON.parse(answer.toString('utf8')) as { MessageId?: string });
    }, sesIdentities()),
  };
  for (const front of Object.values(fronts)) stage.closers.push(() => front.close());
  return fronts;
}

/** A loopback endpoint for services the rehearsal does not play: every call is answered with an error naming the service. */
export async function startUnrehearsed(record: (call: RecordedCall) => void): Promise<{ endpoint: string; server: Server }> {
  const server = createServer((req, res) => {
    const host = String(req.headers.authorization ?? '').match(/Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\//)?.[1] ?? 'unknown';
    record({ service: host, operation: `${req.method} ${req.url}`, checks: [], denied: `the rehearsal does not play the ${host} service yet` });
    req.resume();
    req.on('end', () => {
      res.writeHead(501, { 'content-type': 'application/json', 'x-amzn-errortype': 'NotRehearsed' });
      res.end(JSON.stringify({ __type: 'NotRehearsed', message: `the rehearsal does not play the ${host} service yet` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
