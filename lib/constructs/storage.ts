// The bucket for raw inbound mail and uploads, plus the bucket that receives its access logs
// (cdk-nag's S1 accepts a bucket that is itself another bucket's log destination).
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

export class Storage extends Construct {
  readonly bucket: s3.Bucket;
  readonly accessLogs: s3.Bucket;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    // Grant log delivery through a bucket policy rather than the LogDeliveryWrite ACL, so both
    // buckets keep ACLs disabled whatever feature flags the app's cdk.json sets.
    this.node.setContext('@aws-cdk/aws-s3:serverAccessLogsUseBucketPolicy', true);

    this.accessLogs = new s3.Bucket(this, 'AccessLogs', {
      // S3 server access logging can only deliver to SSE-S3 buckets.
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.bucket = new s3.Bucket(this, 'Data', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: 'data/',
      lifecycleRules: [
        { abortIncompleteMultipartUploadAfter: Duration.days(1), noncurrentVersionExpiration: Duration.days(30) },
      ],
      // Raw inbound mail and customer uploads: deleting the stack must not delete them.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
