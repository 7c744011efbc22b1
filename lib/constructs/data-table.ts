// The single table. Attribute and index names come from shared/db/keys.ts, the one place that
// knows them, so the stack and the code that reads the table cannot drift apart.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { table as tableKeys } from '../../shared/db/schema';

export class DataTable extends Construct {
  readonly table: dynamodb.Table;
  /** ARNs of every GSI, listed by name so grants never need an `index/*` wildcard. */
  readonly indexArns: string[];

  constructor(scope: Construct, id: string) {
    super(scope, id);

    const string = dynamodb.AttributeType.STRING;
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: tableKeys.partitionKey, type: string },
      sortKey: { name: tableKeys.sortKey, type: string },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: tableKeys.ttlAttribute,
      // Customer data: deleting the stack must not delete the table.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.indexArns = Object.values(tableKeys.indexes).map((index) => {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: string },
        sortKey: { name: index.sortKey, type: string },
        ...(index.projection.length > 0
          ? { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] }
          : { projectionType: dynamodb.ProjectionType.KEYS_ONLY }),
      });
      return `${this.table.tableArn}/index/${index.name}`;
    });
  }
}
