// A run's AWS bill in dollars from its counted units (bench/lib/cost.ts prices), in the parts the
// benchmarks report: DynamoDB (table and index writes, reads), SQS, Lambda, S3 and API Gateway.
import { PRICE, type Units } from './cost';

export interface Bill {
  dynamo: number;
  sqs: number;
  lambda: number;
  s3: number;
  api: number;
}

export interface BillInputs {
  /** Non-empty batches the consumers received: each is one SQS receive and one delete. */
  batches: number;
  lambdaInvocations: number;
  gbSeconds: number;
  apiRequests: number;
}

/** The dollars of `u` and of what the port calls do not show (receives, deletes, invocations, API requests). */
export function awsBill(u: Units, run: BillInputs): Bill {
  return {
    dynamo: ((u.wru + u.gsiWru) * PRICE.wru + u.rru * PRICE.rru) / 1e6,
    sqs: ((u.sqs + 2 * run.batches) * PRICE.sqs) / 1e6,
    lambda: (run.lambdaInvocations * PRICE.invocations + run.gbSeconds * PRICE.gbSeconds) / 1e6,
    s3: (u.s3Put * PRICE.s3Put + u.s3Get * PRICE.s3Get) / 1e6,
    api: (run.apiRequests * PRICE.httpApi) / 1e6,
  };
}

export const billTotal = (bill: Bill): number => Object.values(bill).reduce((a, x) => a + x, 0);

/** Small sums need their digits: two significant ones. */
export const usd = (x: number): string => (x === 0 ? '$0' : `$${x.toFixed(Math.max(2, 1 - Math.floor(Math.log10(x))))}`);
