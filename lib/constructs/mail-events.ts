// SES v2 configuration sets whose events (sent, delivered, bounced, opened…) are published to an
// SNS topic, which feeds the ses-events queue. SES tracks opens and clicks in a set whose event
// destination matches those events, so there are two: the default set, which publishes neither
// and so tracks nothing, and the tracked set, which publishes both (SES adds the pixel and
// rewrites the links, through the custom redirect domain when context `trackingDomain` names one).
// The send worker names the tracked set for a message whose tracking is on (shared/tracking/);
// one tracked set, not one per choice, keeps the stack within its resource budget, and the ingest
// drops an open or click event of a kind the message did not choose (docs/api-decisions.md).
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

export interface MailEventsProps {
  /** The queue the event ingester consumes. */
  eventsQueue: sqs.IQueue;
  /** A host of the deployment's (CNAME to SES's tracking domain) for the tracked set's links and pixel. */
  trackingDomain?: string;
}

export class MailEvents extends Construct {
  readonly configurationSet: ses.CfnConfigurationSet;
  /** Opens and clicks tracked: named by sends whose tracking is on. */
  readonly trackedConfigurationSet: ses.CfnConfigurationSet;
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string, props: MailEventsProps) {
    super(scope, id);

    this.configurationSet = new ses.CfnConfigurationSet(this, 'ConfigurationSet', {
      reputationOptions: { reputationMetricsEnabled: true },
      sendingOptions: { sendingEnabled: true },
    });

    this.trackedConfigurationSet = new ses.CfnConfigurationSet(this, 'TrackedConfigurationSet', {
      reputationOptions: { reputationMetricsEnabled: true },
      sendingOptions: { sendingEnabled: true },
      ...(props.trackingDomain ? { trackingOptions: { customRedirectDomain: props.trackingDomain, httpsPolicy: 'REQUIRE' } } : {}),
    });

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
            'AWS:SourceArn': [this.configurationSetArn, this.trackedConfigurationSetArn],
          },
        },
      }),
    );

    this.publish('EventDestination', this.configurationSet, UNTRACKED_EVENT_TYPES);
    this.publish('TrackedEventDestination', this.trackedConfigurationSet, PUBLISHED_EVENT_TYPES);

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

  get trackedConfigurationSetName(): string {
    return this.trackedConfigurationSet.ref;
  }

  get trackedConfigurationSetArn(): string {
    return Stack.of(this).formatArn({ service: 'ses', resource: 'configuration-set', resourceName: this.trackedConfigurationSet.ref });
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
