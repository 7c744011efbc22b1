// SES v2 configuration set whose events (sent, delivered, bounced, opened…) are published to an
// SNS topic, which feeds the ses-events queue. Every send names this configuration set.
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** The SES event types the API turns into message timeline entries and webhooks. */
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

export interface MailEventsProps {
  /** The queue the event ingester consumes. */
  eventsQueue: sqs.IQueue;
}

export class MailEvents extends Construct {
  readonly configurationSet: ses.CfnConfigurationSet;
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string, props: MailEventsProps) {
    super(scope, id);

    this.configurationSet = new ses.CfnConfigurationSet(this, 'ConfigurationSet', {
      reputationOptions: { reputationMetricsEnabled: true },
      sendingOptions: { sendingEnabled: true },
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
            'AWS:SourceArn': this.configurationSetArn,
          },
        },
      }),
    );

    const destination = new ses.CfnConfigurationSetEventDestination(this, 'EventDestination', {
      configurationSetName: this.configurationSet.ref,
      eventDestination: {
        enabled: true,
        matchingEventTypes: [...PUBLISHED_EVENT_TYPES],
        snsDestination: { topicArn: this.topic.topicArn },
      },
    });
    // SES checks that it may publish when the destination is created.
    destination.node.addDependency(this.topic);

    // Envelope kept (rawMessageDelivery false): the ingester reads the SNS Message field.
    this.topic.addSubscription(new subscriptions.SqsSubscription(props.eventsQueue, { rawMessageDelivery: false }));
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
