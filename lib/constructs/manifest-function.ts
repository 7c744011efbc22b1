// One Lambda function for one manifest entry: Node.js 24 on ARM64, an ESM bundle built by local
// esbuild (never Docker) with the settings of lib/bundling.ts, its own log group and its own role
// that starts with nothing but the right to write to that log group. What else it may touch is
// granted from `needs` (needs.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { AssetHashType, Duration, RemovalPolicy, type ILocalBundling } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { type FunctionDef } from '../../shared/platform';
import { BUNDLE_FILE, PREBUILT_BUNDLES_CONTEXT, prebuiltBundleName, type BundledFunction } from '../bundling';
import { acknowledge } from './nag';

const RUNTIME = lambda.Runtime.NODEJS_24_X;

export interface ManifestFunctionProps {
  def: FunctionDef;
  /** Absolute path of the project root (holds package-lock.json; manifest entries are relative to it). */
  projectRoot: string;
  environment: Record<string, string>;
  logRetention: logs.RetentionDays;
}

export class ManifestFunction extends Construct {
  readonly def: FunctionDef;
  readonly fn: lambda.Function;
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

    this.fn = new lambda.Function(this, 'Function', {
      description: `Postbox ${def.name}`,
      code: bundledCode(props.projectRoot, def, this.node.tryGetContext(PREBUILT_BUNDLES_CONTEXT) as string | undefined),
      handler: `${path.parse(BUNDLE_FILE).name}.${def.handler}`,
      runtime: RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      memorySize: def.memoryMb,
      timeout: Duration.seconds(def.timeoutSeconds),
      role: this.role,
      logGroup,
      environment: props.environment,
      // X-Ray traces of every invocation (issue 32: traces): Lambda samples and sends the segments
      // itself, so the code carries no tracer; the role gets X-Ray's two write actions.
      tracing: lambda.Tracing.ACTIVE,
    });
    // test/cdk/observability.test.ts holds every function policy's "*" resources to these two actions.
    acknowledge(this.role, 'AwsSolutions-IAM5[Resource::*]', 'X-Ray PutTraceSegments and PutTelemetryRecords take no resource-level permissions: "*" is the only resource they accept');
  }

  addEnvironment(name: string, value: string): void {
    this.fn.addEnvironment(name, value);
  }
}

/**
 * The function's bundle as an asset, hashed by its content. The Docker image is required by the
 * API and never used: local bundling either succeeds or fails the synth.
 */
function bundledCode(projectRoot: string, def: FunctionDef, prebuiltBundles: string | undefined): lambda.Code {
  const bundled: BundledFunction = { entry: def.entry, needs: def.needs };
  const prebuilt = prebuiltBundles === undefined ? undefined : path.join(prebuiltBundles, prebuiltBundleName(bundled));
  return lambda.Code.fromAsset(projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: { image: RUNTIME.bundlingImage, local: new LocalBundling(projectRoot, bundled, prebuilt) },
  });
}

/**
 * Runs lib/bundling.ts in a child process: CDK's local bundling is synchronous, and the build uses
 * an esbuild plugin, which only esbuild's asynchronous API runs. The fields are data on purpose:
 * CDK reuses one bundle for every asset whose source and bundling options look the same, and
 * what it compares of this object is its fields. A bundle prebuilt by the same lib/bundling.ts
 * (PREBUILT_BUNDLES_CONTEXT) is copied instead; one that is not there is built as always.
 */
class LocalBundling implements ILocalBundling {
  constructor(
    readonly projectRoot: string,
    readonly bundled: BundledFunction,
    readonly prebuilt?: string,
  ) {}

  tryBundle(outputDir: string): boolean {
    if (this.prebuilt !== undefined && existsSync(path.join(this.prebuilt, BUNDLE_FILE))) {
      cpSync(this.prebuilt, outputDir, { recursive: true });
      return true;
    }
    execFileSync(process.execPath, ['--import', 'tsx', path.join(this.projectRoot, 'lib', 'bundle-function.ts'), JSON.stringify(this.bundled), outputDir], {
      cwd: this.projectRoot,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    return true;
  }
}
