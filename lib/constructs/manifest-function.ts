// One Lambda function for one manifest entry: Node.js 24 on ARM64, an ESM bundle built by local
// esbuild (never Docker), its own log group and its own role that starts with nothing but the
// right to write to that log group. What else it may touch is granted from `needs` (needs.ts).
import * as path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { type FunctionDef } from '../../shared/platform';
import { adapterFlags, lambdaBundling } from '../bundling';

const OUTPUT_FORMATS = { esm: nodejs.OutputFormat.ESM, cjs: nodejs.OutputFormat.CJS } as const;

export interface ManifestFunctionProps {
  def: FunctionDef;
  /** Absolute path of the project root (holds package-lock.json; manifest entries are relative to it). */
  projectRoot: string;
  environment: Record<string, string>;
  logRetention: logs.RetentionDays;
}

export class ManifestFunction extends Construct {
  readonly def: FunctionDef;
  readonly fn: nodejs.NodejsFunction;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: ManifestFunctionProps) {
    super(scope, id);
    const { def } = props;
    this.def = def;

    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // Our own role instead of the default one, which would carry the AWSLambdaBasicExecutionRole
    // managed policy (logs:* on every log group).
    this.role = new iam.Role(this, 'Role', {
      description: `Postbox ${def.name} function`,
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    logGroup.grantWrite(this.role);

    this.fn = new nodejs.NodejsFunction(this, 'Function', {
      description: `Postbox ${def.name}`,
      entry: path.join(props.projectRoot, def.entry),
      handler: def.handler,
      projectRoot: props.projectRoot,
      depsLockFilePath: path.join(props.projectRoot, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: def.memoryMb,
      timeout: Duration.seconds(def.timeoutSeconds),
      role: this.role,
      logGroup,
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      // The settings live in lib/bundling.ts, where bench/benchmarks/bundles.ts reads the same values.
      bundling: {
        format: OUTPUT_FORMATS[lambdaBundling.format],
        target: lambdaBundling.target,
        banner: lambdaBundling.banner,
        mainFields: [...lambdaBundling.mainFields],
        minify: lambdaBundling.minify,
        sourceMap: lambdaBundling.sourceMap,
        bundleAwsSDK: lambdaBundling.bundleAwsSdk,
        externalModules: [...lambdaBundling.externalModules],
        define: adapterFlags(def.needs),
        forceDockerBundling: false,
      },
    });
  }

  addEnvironment(name: string, value: string): void {
    this.fn.addEnvironment(name, value);
  }
}
