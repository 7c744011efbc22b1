// SES receiving (CDK context `inbound=true`, only in regions where SES receives mail): a receipt
// rule set with this deployment's rule, which stores each message in the bucket under
// `inbound/raw/` and notifies an SNS topic that feeds the inbound queue, as SES's S3 action does.
// The queue and its consumer are the inbound worker's; this construct only takes the queue.
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as actions from 'aws-cdk-lib/aws-ses-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Where SES writes raw messages in the bucket; its bucket policy lets SES put objects only here. */
export const INBOUND_RAW_PREFIX = 'inbound/raw/';

export interface InboundMailProps {
  /** The bucket raw messages are kept in (the stack's data bucket). */
  bucket: s3.IBucket;
  /** The queue the inbound worker consumes. */
  queue: sqs.IQueue;
  stage: string;
}

export class InboundMail extends Construct {
  readonly ruleSet: ses.ReceiptRuleSet;
  readonly rule: ses.ReceiptRule;
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string, props: InboundMailProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'Topic', { enforceSSL: true });
    // SES receiving publishes with its service principal; only for this account.
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowSesReceiptNotifications',
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'AWS:SourceAccount': Stack.of(this).account } },
      }),
    );
    // Envelope kept (rawMessageDelivery false), as on the ses-events queue: the worker reads the SNS Message field.
    this.topic.addSubscription(new subscriptions.SqsSubscription(props.queue, { rawMessageDelivery: false }));

    this.ruleSet = new ses.ReceiptRuleSet(this, 'RuleSet', { receiptRuleSetName: `postbox-${props.stage}-inbound` });
    // No recipients: every address of every domain verified in this account and region. The API's
    // inbound setting and routes decide what is kept and forwarded; the worker drops the rest.
    this.rule = this.ruleSet.addRule('Store', {
      receiptRuleName: `postbox-${props.stage}-store`,
      enabled: true,
      scanEnabled: true,
      tlsPolicy: ses.TlsPolicy.REQUIRE,
      // The S3 action adds the bucket policy statement: ses.amazonaws.com may s3:PutObject under the
      // prefix, on condition of this account (aws:SourceAccount).
      actions: [new actions.S3({ bucket: props.bucket, objectKeyPrefix: INBOUND_RAW_PREFIX, topic: this.topic })],
    });
  }
}
