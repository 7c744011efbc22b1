// Secrets Manager, as far as a deployment of this stack meets it: each AWS::SecretsManager::Secret
// of the template is created the way Secrets Manager creates it (GenerateSecretString's rules, or
// the literal SecretString), and the functions read them through their own client code
// (shared/adapters/aws/secrets-manager.ts) from a stand-in that speaks the service's JSON protocol.
import { randomInt, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { listenOnLoopback } from './loopback';

/** The CloudFormation property, as the template writes it. */
export interface GenerateSecretStringSpec {
  PasswordLength?: number;
  ExcludeCharacters?: string;
  ExcludeNumbers?: boolean;
  ExcludePunctuation?: boolean;
  ExcludeUppercase?: boolean;
  ExcludeLowercase?: boolean;
  IncludeSpace?: boolean;
  RequireEachIncludedType?: boolean;
  GenerateStringKey?: string;
  SecretStringTemplate?: string;
}

const UPPERCASE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWERCASE = 'abcdefghijklmnopqrstuvwxyz';
const NUMBERS = '0123456789';
/** Secrets Manager's punctuation: every printable ASCII character that is not a letter, digit or space. */
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** Secrets Manager's InvalidParameterException, for a spec it would refuse at deploy. */
export class InvalidSecretSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidParameterException';
  }
}

/** The character classes the spec includes, each without the excluded characters; empty ones dropped. */
function includedTypes(spec: GenerateSecretStringSpec): string[] {
  const excluded = new Set(spec.ExcludeCharacters ?? '');
  const types = [
    spec.ExcludeUppercase ? '' : UPPERCASE,
    spec.ExcludeLowercase ? '' : LOWERCASE,
    spec.ExcludeNumbers ? '' : NUMBERS,
    spec.ExcludePunctuation ? '' : PUNCTUATION,
    spec.IncludeSpace ? ' ' : '',
  ];
  return types.map((chars) => [...chars].filter((c) => !excluded.has(c)).join('')).filter((chars) => chars.length > 0);
}

/**
 * A password as GetRandomPassword and GenerateSecretString make it: PasswordLength characters
 * (32 by default) from the included classes, with at least one of each class unless
 * RequireEachIncludedType is false, from the system CSPRNG.
 */
export function generatePassword(spec: GenerateSecretStringSpec): string {
  const length = spec.PasswordLength ?? 32;
  if (!Number.isInteger(length) || length < 1 || length > 4096) throw new InvalidSecretSpecError(`PasswordLength must be 1 to 4096; got ${length}`);
  const types = includedTypes(spec);
  if (types.length === 0) throw new InvalidSecretSpecError('the exclusions leave no character to choose from');
  const requireEach = spec.RequireEachIncludedType ?? true;
  if (requireEach && length < types.length) throw new InvalidSecretSpecError(`PasswordLength ${length} cannot hold one character of each of the ${types.length} included types`);
  const all = types.join('');
  const pick = (chars: string): string => chars[randomInt(chars.length)]!;
  const out = [...(requireEach ? types.map(pick) : []), ...Array.from({ length: length - (requireEach ? types.length : 0) }, () => pick(all))];
  // Fisher–Yates, so the required characters are not always first.
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out.join('');
}

/** The SecretString that GenerateSecretString creates: the password, or the template's JSON with the password under GenerateStringKey. */
export function generateSecretString(spec: GenerateSecretStringSpec): string {
  const password = generatePassword(spec);
  if ((spec.GenerateStringKey === undefined) !== (spec.SecretStringTemplate === undefined)) {
    throw new InvalidSecretSpecError('GenerateStringKey and SecretStringTemplate go together');
  }
  if (spec.GenerateStringKey === undefined) return password;
  const template: unknown = JSON.parse(spec.SecretStringTemplate!);
  if (typeof template !== 'object' || template === null || Array.isArray(template)) throw new InvalidSecretSpecError('SecretStringTemplate must be a JSON object');
  return JSON.stringify({ ...(template as Record<string, unknown>), [spec.GenerateStringKey]: password });
}

export interface StoredSecret {
  arn: string;
  name: string;
  value: string;
}

export interface SecretsManagerStandIn {
  endpoint: string;
  /** Every GetSecretValue answered or refused, in order: which secret, and for whom (the access key id). */
  readonly reads: ReadonlyArray<{ secretId: string; accessKeyId?: string; found: boolean }>;
  close(): Promise<void>;
}

/** The access key id of a SigV4 Authorization header: `AWS4-HMAC-SHA256 Credential=<id>/<date>/…`. */
export function accessKeyIdOf(authorization: string | undefined): string | undefined {
  return /Credential=([^/,\s]+)\//.exec(authorization ?? '')?.[1];
}

/**
 * GetSecretValue over the AWS JSON 1.1 protocol (POST /, `X-Amz-Target:
 * secretsmanager.GetSecretValue`), by ARN or name; anything else answers the error the service
 * would, so a function that calls more than it should is seen. `authorize` (the IAM check) may
 * refuse a call.
 */
export async function startSecretsManager(
  secrets: readonly StoredSecret[],
  authorize: (call: { action: string; resource: string; accessKeyId?: string }) => string | undefined = () => undefined,
): Promise<SecretsManagerStandIn> {
  const reads: Array<{ secretId: string; accessKeyId?: string; found: boolean }> = [];
  const byId = new Map<string, StoredSecret>();
  for (const secret of secrets) {
    byId.set(secret.arn, secret);
    byId.set(secret.name, secret);
  }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answer = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
        res.end(JSON.stringify(body));
      };
      const fail = (status: number, type: string, message: string): void => answer(status, { __type: type, message, Message: message });
      const target = String(req.headers['x-amz-target'] ?? '');
      if (req.method !== 'POST' || !target.startsWith('secretsmanager.')) return fail(400, 'UnknownOperationException', `not a Secrets Manager call: ${req.method} ${target}`);
      const action = target.slice('secretsmanager.'.length);
      if (action !== 'GetSecretValue') return fail(400, 'UnknownOperationException', `the rehearsal's Secrets Manager answers GetSecretValue only, not ${action}`);
      let input: { SecretId?: unknown };
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { SecretId?: unknown };
      } catch {
        return fail(400, 'SerializationException', 'the body is not JSON');
      }
      const secretId = typeof input.SecretId === 'string' ? input.SecretId : '';
      const accessKeyId = accessKeyIdOf(req.headers.authorization);
      const secret = byId.get(secretId);
      reads.push({ secretId, accessKeyId, found: secret !== undefined });
      const denied = authorize({ action: `secretsmanager:${action}`, resource: secret?.arn ?? secretId, accessKeyId });
      if (denied) return fail(400, 'AccessDeniedException', denied);
      if (!secret) return fail(400, 'ResourceNotFoundException', "Secrets Manager can't find the specified secret.");
      answer(200, { ARN: secret.arn, Name: secret.name, SecretString: secret.value, VersionId: randomUUID(), VersionStages: ['AWSCURRENT'], CreatedDate: Date.now() / 1000 });
    });
  });
  return { ...(await listenOnLoopback(server)), reads };
}
