// SNS and SES event publishing as the template defines them (issue 30). No function of the stack
// calls SNS: SES publishes its events to the configuration set's topic, and the topic hands each
// notification to its subscriptions. So this plays both services from inside the rehearsal, not
// behind an endpoint: a topic is its AWS::SNS::Subscription resources (SQS protocol, with the SNS
// envelope or RawMessageDelivery), and a send SES accepted under a configuration set is published,
// as the set's AWS::SES::ConfigurationSetEventDestination asks (enabled, matching event types), to
// the destination's topic. A subscription's queue takes the notification only when a queue policy
// of the template lets the topic's service principal send to it, as SQS would refuse it otherwise.
import { randomUUID } from 'node:crypto';
import { resourcesOfType, type CfnTemplate, type Resolver } from './template';

export interface Subscription {
  logicalId: string;
  topicArn: string;
  protocol: string;
  endpoint: string;
  raw: boolean;
}

export interface EventDestination {
  logicalId: string;
  configurationSet: string;
  enabled: boolean;
  /** Lower case, as the template spells them: send, delivery, bounce, … */
  eventTypes: string[];
  topicArn?: string;
}

const truthy = (value: unknown): boolean => value === true || value === 'true';

export function readSubscriptions(template: CfnTemplate, resolver: Resolver): Subscription[] {
  return resourcesOfType(template, 'AWS::SNS::Subscription').map(([id, resource]) => {
    const props = resource.Properties ?? {};
    return {
      logicalId: id,
      topicArn: resolver.string(props.TopicArn, `${id}.TopicArn`),
      protocol: String(props.Protocol ?? ''),
      endpoint: resolver.string(props.Endpoint, `${id}.Endpoint`),
      raw: truthy(props.RawMessageDelivery),
    };
  });
}

export function readEventDestinations(template: CfnTemplate, resolver: Resolver): EventDestination[] {
  return resourcesOfType(template, 'AWS::SES::ConfigurationSetEventDestination').map(([id, resource]) => {
    const props = resource.Properties ?? {};
    const destination = (props.EventDestination ?? {}) as { Enabled?: unknown; MatchingEventTypes?: unknown[]; SnsDestination?: { TopicARN?: unknown } };
    return {
      logicalId: id,
      configurationSet: resolver.string(props.ConfigurationSetName, `${id}.ConfigurationSetName`),
      enabled: truthy(destination.Enabled),
      eventTypes: (destination.MatchingEventTypes ?? []).map((t) => String(t).toLowerCase()),
      ...(destination.SnsDestination ? { topicArn: resolver.string(destination.SnsDestination.TopicARN, `${id}.EventDestination.SnsDestination.TopicARN`) } : {}),
    };
  });
}

interface PolicyStatement {
  Effect?: string;
  Principal?: { Service?: string | string[] } | string;
  Action?: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
}

/**
 * Whether a queue policy of the template lets SNS send this topic's notifications to the queue:
 * an Allow of sqs:SendMessage to sns.amazonaws.com whose aws:SourceArn condition (if any) names
 * the topic. Only the condition SNS subscriptions use is read; any other makes the statement not count.
 */
export function queuePolicyAdmits(template: CfnTemplate, resolver: Resolver, queueArn: string, topicArn: string): boolean {
  for (const [id, resource] of resourcesOfType(template, 'AWS::SQS::QueuePolicy')) {
    const props = resource.Properties ?? {};
    const queues = (resolver.resolve(props.Queues ?? [], `${id}.Queues`) as string[]).map(String);
    const document = resolver.resolve(props.PolicyDocument, `${id}.PolicyDocument`) as { Statement: PolicyStatement | PolicyStatement[] };
    const statements = [document.Statement].flat();
    const names = queues.map((url) => url.split('/').pop());
    if (!names.includes(queueArn.split(':').pop())) continue;
    for (const s of statements) {
      if (s.Effect !== 'Allow') continue;
      const services = typeof s.Principal === 'object' ? [s.Principal.Service ?? []].flat() : [];
      if (!services.includes('sns.amazonaws.com')) continue;
      if (![s.Action ?? []].flat().some((a) => /^sqs:(SendMessage|\*)$/i.test(a))) continue;
      const conditions = Object.entries(s.Condition ?? {});
      const onlySourceArn = conditions.every(([operator, pairs]) => /^Arn(Equals|Like)$/.test(operator) && Object.keys(pairs).every((k) => k.toLowerCase() === 'aws:sourcearn'));
      if (!onlySourceArn) continue;
      if (conditions.every(([, pairs]) => Object.values(pairs).flat().includes(topicArn))) return true;
    }
  }
  return false;
}

/** The SNS envelope a subscription without raw delivery receives. */
export function snsEnvelope(topicArn: string, message: string, messageId: string = randomUUID(), timestamp = new Date().toISOString()): Record<string, string> {
  const region = topicArn.split(':')[3] ?? 'us-east-1';
  return {
    Type: 'Notification',
    MessageId: messageId,
    TopicArn: topicArn,
    Message: message,
    Timestamp: timestamp,
    SignatureVersion: '1',
    Signature: 'rehearsal-unsigned',
    SigningCertURL: `https://sns.${region}.amazonaws.com/SimpleNotificationService-rehearsal.pem`,
    UnsubscribeURL: `https://sns.${region}.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${topicArn}:rehearsal`,
  };
}

/** What SES's SendEmail request and answer say, as event publishing reports it. */
export interface AcceptedSend {
  request: {
    FromEmailAddress?: string;
    Destination?: { ToAddresses?: string[]; CcAddresses?: string[]; BccAddresses?: string[] };
    Content?: { Simple?: { Subject?: { Data?: string } } };
    ConfigurationSetName?: string;
    EmailTags?: Array<{ Name: string; Value: string }>;
  };
  providerMessageId: string;
  timestamp: string;
}

/** The Delivery event SES publishes for an accepted send (event publishing's format, not the feedback notification's). */
export function deliveryEvent(send: AcceptedSend, processingTimeMillis = 1): Record<string, unknown> {
  const { request } = send;
  const recipients = [...(request.Destination?.ToAddresses ?? []), ...(request.Destination?.CcAddresses ?? []), ...(request.Destination?.BccAddresses ?? [])];
  const tags: Record<string, string[]> = {};
  for (const tag of request.EmailTags ?? []) tags[tag.Name] = [tag.Value];
  if (request.ConfigurationSetName) tags['ses:configuration-set'] = [request.ConfigurationSetName];
  tags['ses:from-domain'] = [String(request.FromEmailAddress ?? '').replace(/.*@/, '').replace(/>$/, '')];
  return {
    eventType: 'Delivery',
    mail: {
      timestamp: send.timestamp,
      messageId: send.providerMessageId,
      source: request.FromEmailAddress ?? '',
      destination: recipients,
      tags,
      commonHeaders: { from: [request.FromEmailAddress ?? ''], to: request.Destination?.ToAddresses ?? [], subject: request.Content?.Simple?.Subject?.Data ?? '' },
    },
    delivery: {
      timestamp: new Date(new Date(send.timestamp).getTime() + processingTimeMillis).toISOString(),
      processingTimeMillis,
      recipients,
      smtpResponse: '250 2.0.0 OK (rehearsal)',
      reportingMTA: 'rehearsal',
    },
  };
}
