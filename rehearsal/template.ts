// The synthesized CloudFormation template as the rehearsal reads it, and its intrinsic functions
// (Ref, Fn::GetAtt, Fn::Join, Fn::Sub, Fn::Select, Fn::Split) resolved the way CloudFormation
// would resolve them at deploy, against the physical resources the rehearsal made in their place.
// What the rehearsal did not make cannot be resolved: that is an error naming the place in the
// template, never a guess.
import { createHash } from 'node:crypto';

export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
  Metadata?: Record<string, unknown>;
}

export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
}

/** The rehearsal's account and region: every ARN it makes names them. */
export const REHEARSAL_ACCOUNT = '123456789012';
export const REHEARSAL_REGION = 'us-east-1';

/** What a resource resolves to: its Ref and its attributes (Fn::GetAtt), as CloudFormation reports them. */
export interface PhysicalResource {
  ref: string;
  attributes: Record<string, string>;
}

/** A value of the template the rehearsal cannot resolve, with where it stands in the template. */
export class UnresolvableError extends Error {
  constructor(
    readonly where: string,
    message: string,
  ) {
    super(`${where}: ${message}`);
    this.name = 'UnresolvableError';
  }
}

export const resourcesOfType = (template: CfnTemplate, type: string): Array<[string, CfnResource]> =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

/**
 * The physical name CloudFormation gives a resource without a name of its own:
 * `<stack>-<logical id>-<13 characters>`, cut to the service's limit. Deterministic here, so one
 * rehearsal's names read the same as the last one's.
 */
export function generatedName(stackName: string, logicalId: string, maxLength: number, lowercase = false): string {
  const suffix = createHash('sha256').update(`${stackName}/${logicalId}`).digest('hex').slice(0, 13).toUpperCase();
  const head = `${stackName}-${logicalId}`.slice(0, maxLength - suffix.length - 1);
  const name = `${head}-${suffix}`;
  return lowercase ? name.toLowerCase() : name;
}

const arn = (service: string, resource: string, region: string = REHEARSAL_REGION): string => `arn:aws:${service}:${region}:${REHEARSAL_ACCOUNT}:${resource}`;

/**
 * Ref and attributes of the resources whose identity is only a name (no emulator hands one out):
 * roles, functions, log groups, topics, buckets, schedule groups, the HTTP API, the SES
 * configuration set. `apiEndpoint` is where the rehearsal serves the HTTP API.
 */
export function namedResource(stackName: string, logicalId: string, resource: CfnResource, apiEndpoint: string): PhysicalResource | undefined {
  const props = resource.Properties ?? {};
  const own = (key: string): string | undefined => (typeof props[key] === 'string' ? (props[key] as string) : undefined);
  switch (resource.Type) {
    case 'AWS::IAM::Role': {
      const name = own('RoleName') ?? generatedName(stackName, logicalId, 64);
      return { ref: name, attributes: { Arn: `arn:aws:iam::${REHEARSAL_ACCOUNT}:role/${name}`, RoleId: `AROA${logicalId.toUpperCase().slice(0, 17)}` } };
    }
    case 'AWS::Lambda::Function': {
      const name = own('FunctionName') ?? generatedName(stackName, logicalId, 64);
      return { ref: name, attributes: { Arn: arn('lambda', `function:${name}`) } };
    }
    case 'AWS::Logs::LogGroup': {
      const name = own('LogGroupName') ?? generatedName(stackName, logicalId, 512);
      return { ref: name, attributes: { Arn: arn('logs', `log-group:${name}:*`) } };
    }
    case 'AWS::SNS::Topic': {
      const name = own('TopicName') ?? generatedName(stackName, logicalId, 256);
      const topicArn = arn('sns', name);
      return { ref: topicArn, attributes: { TopicArn: topicArn, TopicName: name } };
    }
    case 'AWS::S3::Bucket': {
      const name = own('BucketName') ?? generatedName(stackName, logicalId, 63, true);
      return {
        ref: name,
        attributes: { Arn: `arn:aws:s3:::${name}`, DomainName: `${name}.s3.amazonaws.com`, RegionalDomainName: `${name}.s3.${REHEARSAL_REGION}.amazonaws.com` },
      };
    }
    case 'AWS::Scheduler::ScheduleGroup': {
      const name = own('Name') ?? generatedName(stackName, logicalId, 64);
      return { ref: name, attributes: { Arn: arn('scheduler', `schedule-group/${name}`) } };
    }
    case 'AWS::ApiGatewayV2::Api':
      return { ref: logicalId.toLowerCase().slice(0, 10), attributes: { ApiEndpoint: apiEndpoint, ApiId: logicalId.toLowerCase().slice(0, 10) } };
    case 'AWS::SES::ConfigurationSet':
      return { ref: own('Name') ?? generatedName(stackName, logicalId, 64), attributes: {} };
    case 'AWS::SES::ReceiptRuleSet':
      return { ref: own('RuleSetName') ?? generatedName(stackName, logicalId, 64), attributes: {} };
    case 'AWS::Events::Rule': {
      const name = own('Name') ?? generatedName(stackName, logicalId, 64);
      return { ref: name, attributes: { Arn: arn('events', `rule/${name}`) } };
    }
    case 'AWS::ApiGatewayV2::Integration':
    case 'AWS::ApiGatewayV2::Route':
    case 'AWS::ApiGatewayV2::Stage':
    case 'AWS::Lambda::EventSourceMapping':
    case 'AWS::IAM::Policy':
      return { ref: logicalId, attributes: {} };
    default:
      return undefined;
  }
}

export function tableResource(name: string): PhysicalResource {
  return { ref: name, attributes: { Arn: arn('dynamodb', `table/${name}`) } };
}

export function queueResource(url: string, queueArn: string): PhysicalResource {
  return { ref: url, attributes: { Arn: queueArn, QueueUrl: url, QueueName: queueArn.split(':').pop()! } };
}

/** A secret's ARN as Secrets Manager makes it: the name and six random characters. */
export function secretResource(name: string): PhysicalResource {
  const suffix = createHash('sha256').update(name).digest('base64url').replace(/[-_]/g, 'x').slice(0, 6);
  const secretArn = arn('secretsmanager', `secret:${name}-${suffix}`);
  return { ref: secretArn, attributes: { Id: secretArn } };
}

/** Resolves intrinsic functions against the physical resources made so far. */
export class Resolver {
  constructor(
    private readonly template: CfnTemplate,
    private readonly physical: ReadonlyMap<string, PhysicalResource>,
    private readonly stackName: string,
  ) {}

  private pseudo(name: string): string | undefined {
    switch (name) {
      case 'AWS::Region':
        return REHEARSAL_REGION;
      case 'AWS::AccountId':
        return REHEARSAL_ACCOUNT;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return this.stackName;
      case 'AWS::StackId':
        return arn('cloudformation', `stack/${this.stackName}/00000000-0000-0000-0000-000000000000`);
      default:
        return undefined;
    }
  }

  private ref(name: string, where: string): string {
    const pseudo = this.pseudo(name);
    if (pseudo !== undefined) return pseudo;
    const found = this.physical.get(name);
    if (found) return found.ref;
    const type = this.template.Resources[name]?.Type;
    throw new UnresolvableError(where, type ? `Ref to ${name} (${type}), which the rehearsal does not create` : `Ref to ${name}, which is not in the template`);
  }

  private getAtt(name: string, attribute: string, where: string): string {
    const found = this.physical.get(name);
    const value = found?.attributes[attribute];
    if (value !== undefined) return value;
    const type = this.template.Resources[name]?.Type;
    throw new UnresolvableError(where, type ? `Fn::GetAtt ${name}.${attribute} (${type}) is not known to the rehearsal` : `Fn::GetAtt of ${name}, which is not in the template`);
  }

  /** `value` with every intrinsic function replaced by what it resolves to. */
  resolve(value: unknown, where: string): unknown {
    if (Array.isArray(value)) return value.map((item, i) => this.resolve(item, `${where}[${i}]`));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1) {
      const [[key, arg]] = entries as [[string, unknown]];
      if (key === 'Ref') return this.ref(String(arg), where);
      if (key === 'Fn::GetAtt') {
        const [name, attribute] = Array.isArray(arg) ? (arg as string[]) : String(arg).split(/\.(.*)/s);
        return this.getAtt(String(name), String(attribute), where);
      }
      if (key === 'Fn::Join') {
        const [separator, parts] = arg as [string, unknown];
        const list = this.resolve(parts, `${where}.Fn::Join`);
        if (!Array.isArray(list)) throw new UnresolvableError(where, 'Fn::Join of something that is not a list');
        return list.map((part) => this.string(part, where)).join(separator);
      }
      if (key === 'Fn::Sub') return this.sub(arg, where);
      if (key === 'Fn::Select') {
        const [index, list] = arg as [unknown, unknown];
        const items = this.resolve(list, `${where}.Fn::Select`);
        const i = Number(this.resolve(index, where));
        if (!Array.isArray(items) || !(i in items)) throw new UnresolvableError(where, `Fn::Select index ${i} out of range`);
        return items[i];
      }
      if (key === 'Fn::Split') {
        const [separator, source] = arg as [string, unknown];
        return this.string(this.resolve(source, where), where).split(separator);
      }
      if (key.startsWith('Fn::') || key === 'Condition') throw new UnresolvableError(where, `${key} is not rehearsed`);
    }
    return Object.fromEntries(entries.map(([k, v]) => [k, this.resolve(v, `${where}.${k}`)]));
  }

  /** A value that must come out a string (an environment variable, a part of a join). */
  string(value: unknown, where: string): string {
    const resolved = this.resolve(value, where);
    if (typeof resolved === 'string') return resolved;
    if (typeof resolved === 'number' || typeof resolved === 'boolean') return String(resolved);
    throw new UnresolvableError(where, `expected a string, got ${JSON.stringify(resolved)}`);
  }

  private sub(arg: unknown, where: string): string {
    const [text, variables] = Array.isArray(arg) ? (arg as [string, Record<string, unknown>]) : [String(arg), {}];
    return text.replace(/\$\{(!?)([^}]+)\}/g, (_whole, literal: string, name: string) => {
      if (literal) return `\${${name}}`;
      if (name in variables) return this.string(variables[name], `${where}.Fn::Sub.${name}`);
      const dot = name.indexOf('.');
      if (dot > 0 && !name.startsWith('AWS::')) return this.getAtt(name.slice(0, dot), name.slice(dot + 1), where);
      return this.ref(name, where);
    });
  }
}
