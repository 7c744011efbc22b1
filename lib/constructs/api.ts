// The HTTP API (payload v2). Routes are added from the manifest by the stack; this construct
// only knows how to attach a route to a function and how the stage logs.
import { CfnOutput, RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { type GatewayRoute } from '../../shared/platform';
import { envNames } from '../../shared/runtime/env-names';
import { acknowledge } from './nag';
import { pascalCase } from './names';

// HTTP API access log fields ($context variables that exist for HTTP APIs).
const ACCESS_LOG_FORMAT = JSON.stringify({
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  routeKey: '$context.routeKey',
  method: '$context.httpMethod',
  path: '$context.path',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
});

/**
 * HttpLambdaIntegration grants API Gateway a Lambda permission per route it is bound to: ~150
 * resources for the route table, a third of CloudFormation's 500 per stack. This one grants none;
 * each function gets one permission for every route of this API instead (Api.integrationFor).
 */
class OnePermissionIntegration extends HttpLambdaIntegration {
  protected override completeBind(): void {}
}

/** A function that answers routes; `name` (the manifest name) names its integration. */
export interface RouteTarget {
  name: string;
  fn: lambda.Function;
}

/** CDK context key of the public origin (`cdk deploy -c publicBaseUrl=https://mail.example.com`). */
export const PUBLIC_BASE_URL_CONTEXT = 'publicBaseUrl';

/**
 * CDK context keys of the stage's default route throttling (`cdk deploy -c API_THROTTLE_RATE=500
 * -c API_THROTTLE_BURST=1000`): the steady requests per second the whole API takes and the burst
 * above it, for every client together. The per-account and per-IP limits inside the functions
 * (10 a second each) say who may use the capacity; this caps how much of the AWS account's
 * Lambda concurrency and API Gateway quota (10,000 a second, 5,000 burst per region, shared with
 * the account's other APIs) a flood from many addresses can take. Past it API Gateway answers
 * 429 itself, before any function runs.
 */
export const API_THROTTLE_RATE_CONTEXT = 'API_THROTTLE_RATE';
export const API_THROTTLE_BURST_CONTEXT = 'API_THROTTLE_BURST';
export const DEFAULT_API_THROTTLE = { rateLimit: 500, burstLimit: 1000 } as const;

/** A context value as a number: CDK hands `-c` values over as strings, cdk.json may hold numbers. */
function numberFromContext(scope: Construct, key: string, fallback: number, wholeNumber: boolean): number {
  const raw: unknown = scope.node.tryGetContext(key);
  if (raw === undefined) return fallback;
  const value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : Number.NaN;
  if (!Number.isFinite(value) || value <= 0 || (wholeNumber && !Number.isInteger(value))) {
    throw new Error(`context ${key} must be a positive ${wholeNumber ? 'whole number' : 'number'}; got ${String(raw)}`);
  }
  return value;
}

export interface ApiProps {
  stage: string;
  logRetention: logs.RetentionDays;
}

export class Api extends Construct {
  readonly httpApi: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  /**
   * The origin of every link the service mails or publishes: the `publicBaseUrl` context when the
   * API sits behind a custom domain, otherwise the API's own execute-api endpoint.
   */
  readonly publicBaseUrl: string;
  private readonly integrations = new Map<string, OnePermissionIntegration>();

  constructor(scope: Construct, id: string, props: ApiProps) {
    super(scope, id);

    this.httpApi = new apigw.HttpApi(this, 'HttpApi', {
      description: `Postbox messaging API (${props.stage})`,
      // The default stage is created below so that it can carry access-log settings.
      createDefaultStage: false,
    });

    const accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: {
        rateLimit: numberFromContext(this, API_THROTTLE_RATE_CONTEXT, DEFAULT_API_THROTTLE.rateLimit, false),
        burstLimit: numberFromContext(this, API_THROTTLE_BURST_CONTEXT, DEFAULT_API_THROTTLE.burstLimit, true),
      },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(ACCESS_LOG_FORMAT),
      },
    });

    new CfnOutput(this, 'Url', { value: this.stage.url, description: 'Base URL of the Postbox API' });
    const configured = this.node.tryGetContext(PUBLIC_BASE_URL_CONTEXT) as unknown;
    if (configured !== undefined && (typeof configured !== 'string' || !/^https:\/\/[^/?#@\s]+(\/[^?#\s]*)?$/.test(configured))) {
      throw new Error(`context ${PUBLIC_BASE_URL_CONTEXT} must be an https:// URL without query or fragment; got ${String(configured)}`);
    }
    this.publicBaseUrl = typeof configured === 'string' ? configured.replace(/\/+$/, '') : this.httpApi.apiEndpoint;

    acknowledge(
      this,
      'AwsSolutions-APIG4',
      'Callers authenticate with Postbox API keys (Bearer sk_…, looked up by SHA-256 hash) or the staff token, ' +
        'checked inside the function by the shared auth middleware; public routes are rate limited per client IP. ' +
        'API Gateway authorizers (IAM, Cognito) do not fit customer-issued API keys, and $default must answer unauthenticated 404s.',
    );
  }

  /**
   * `METHOD /path` → the function, as shared/platform.ts `gatewayRoutes` lays the manifest out:
   * `ANY /path` where one function serves the path, else one route per method (a GET with its
   * HEAD twin). The pipeline picks the manifest route from the request's method.
   */
  addRoute(route: Pick<GatewayRoute, 'method' | 'path'>, target: RouteTarget): void {
    this.httpApi.addRoutes({ path: route.path, methods: [apigw.HttpMethod[route.method]], integration: this.integrationFor(target) });
  }

  /** `$default`: whatever no other route matches (unknown paths, wrong methods). */
  addDefaultRoute(target: RouteTarget): void {
    new apigw.HttpRoute(this.httpApi, 'DefaultRoute', {
      httpApi: this.httpApi,
      routeKey: apigw.HttpRouteKey.DEFAULT,
      integration: this.integrationFor(target),
    });
  }

  // One integration per function, shared by all of its routes. A function behind the API builds
  // links (mailed, or published in DNS), so it learns the public origin here, with its first route.
  private integrationFor(target: RouteTarget): OnePermissionIntegration {
    let integration = this.integrations.get(target.name);
    if (!integration) {
      target.fn.addEnvironment(envNames.publicBaseUrl, this.publicBaseUrl);
      integration = new OnePermissionIntegration(`${pascalCase(target.name)}Integration`, target.fn, {
        payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
      });
      // Any route and method of this API's stages may invoke it; the routes themselves decide which reach it.
      target.fn.addPermission(`${pascalCase(target.name)}ApiInvoke`, {
        principal: new iam.ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: this.httpApi.arnForExecuteApi(),
      });
      this.integrations.set(target.name, integration);
    }
    return integration;
  }
}
