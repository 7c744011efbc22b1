// SES v2 configuration sets whose events (sent, delivered, bounced, opened…) are published to an
// SNS topic, which feeds the ses-events queue. SES tracks opens in a set whose event destination
// matches opens (it adds the pixel) and clicks in one that matches clicks (it rewrites the links),
// so there is one set per tracking choice: the default set tracks nothing, and the opens, clicks
// and both sets track what they say, their links and pixel through the custom redirect domain
// when context `trackingDomain` names one. The send worker names the set of the message's choice
// (shared/sending/tracking/), so a message that chose opens only keeps its links as written.
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** The SES event types the API turns into message timeline entries and webhooks (the tracked set's). */
export const PUBLISHED_EVENT_TYPES = [
  'send',
  'reject',
  'bounce',
  'complaint',
  'delivery',
  'deliveryDelay',
  'renderingFailure',
  'open',
  'click',
  'subscription',
] as const;

/** The untracked set's: every type but the two whose publishing makes SES track. */
export const UNTRACKED_EVENT_TYPES = PUBLISHED_EVENT_TYPES.filter((t) => t !== 'open' && t !== 'click');

/** A message's tracking choice (shared/ports/mailer.ts), each with a configuration set of its own. */
export const TRACKING_CHOICES = ['opens', 'clicks', 'both'] as const;
export type TrackingChoice = (typeof TRACKING_CHOICES)[number];

const TRACKED_TYPES: Record<TrackingChoice, readonly string[]> = {
  opens: [...UNTRACKED_EVENT_TYPES, 'open'],
  clicks: [...UNTRACKED_EVENT_TYPES, 'click'],
  both: PUBLISHED_EVENT_TYPES,
};

export interface MailEventsProps {
  /** The queue the event ingester consumes. */
  eventsQueue: sqs.IQueue;
  /** A host of the deployment's (CNAME to SES's tracking domain) for the tracked set's links and pixel. */
  trackingDomain?: string;
}

export class MailEvents extends Construct {
  readonly configurationSet: ses.CfnConfigurationSet;
  /** One set per tracking choice: named by sends whose tracking is on. */
  readonly trackedConfigurationSets: Record<TrackingChoice, ses.CfnConfigurationSet>;
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string, props: MailEventsProps) {
    super(scope, id);

    this.configurationSet = new ses.CfnConfigurationSet(this, 'ConfigurationSet', {
      reputationOptions: { reputationMetricsEnabled: true },
      sendingOptions: { sendingEnabled: true },
    });

    const trackedSet = (id: string) =>
      new ses.CfnConfigurationSet(this, id, {
        reputationOptions: { reputationMetricsEnabled: true },
        sendingOptions: { sendingEnabled: true },
        ...(props.trackingDomain ? { trackingOptions: { customRedirectDomain: props.trackingDomain, httpsPolicy: 'REQUIRE' } } : {}),
      });
    // 'TrackedConfigurationSet' is the both set's id from before the per-choice sets: kept, so a deployed stack keeps it.
    this.trackedConfigurationSets = { opens: trackedSet('OpensConfigurationSet'), clicks: trackedSet('ClicksConfigurationSet'), both: trackedSet('TrackedConfigurationSet') };

    this.topic = new sns.Topic(this, 'Topic', { enforceSSL: true });

    // SES publishes with its service principal; pin it to this account's configuration set.
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowSesEventPublishing',
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: {
            'AWS:SourceAccount': Stack.of(this).account,
            'AWS:SourceArn': [this.configurationSetArn, ...TRACKING_CHOICES.map((choice) => this.trackedConfigurationSetArn(choice))],
          },
        },
      }),
    );

    this.publish('EventDestination', this.configurationSet, UNTRACKED_EVENT_TYPES);
    this.publish('OpensEventDestination', this.trackedConfigurationSets.opens, TRACKED_TYPES.opens);
    this.publish('ClicksEventDestination', this.trackedConfigurationSets.clicks, TRACKED_TYPES.clicks);
    this.publish('TrackedEventDestination', this.trackedConfigurationSets.both, TRACKED_TYPES.both);

    // Envelope kept (rawMessageDelivery false): the ingester reads the SNS Message field.
    this.topic.addSubscription(new subscriptions.SqsSubscription(props.eventsQueue, { rawMessageDelivery: false }));
  }

  private publish(id: string, set: ses.CfnConfigurationSet, types: readonly string[]): void {
    const destination = new ses.CfnConfigurationSetEventDestination(this, id, {
      configurationSetName: set.ref,
      eventDestination: { enabled: true, matchingEventTypes: [...types], snsDestination: { topicArn: this.topic.topicArn } },
    });
    // SES checks that it may publish when the destination is created.
    destination.node.addDependency(this.topic);
  }

  trackedConfigurationSetName(choice: TrackingChoice): string {
    return this.trackedConfigurationSets[choice].ref;
  }

  trackedConfigurationSetArn(choice: TrackingChoice): string {
    return Stack.of(this).formatArn({ service: 'ses', resource: 'configuration-set', resourceName: this.trackedConfigurationSets[choice].ref });
  }

  get configurationSetName(): string {
    return this.configurationSet.ref;
  }

  /** Every SES identity of this account and region: customers verify their domains at runtime. */
  get identitiesArn(): string {
    return Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' });
  }

  get configurationSetArn(): string {
    return Stack.of(this).formatArn({
      service: 'ses',
      resource: 'configuration-set',
      resourceName: this.configurationSet.ref,
    });
  }
}
