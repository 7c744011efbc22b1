// SES receiving, played from the template (issue 30): each enabled AWS::SES::ReceiptRule's S3
// action, as SES does it for a message that arrives: the raw message written to the rule's bucket
// under its prefix (named by SES's message id), as the SES service principal, which only the
// bucket's policy lets in; then the `Received` notification published to the action's topic, which
// only the topic's policy lets SES publish to. Resource policies are evaluated here for that
// principal: a statement counts when its Principal names the service (or is `*`) and every
// condition holds in the context SES calls with (this account, TLS); a condition the rehearsal
// does not know makes the statement not count, so a grant that leans on one shows up as refused.
import { resourcesOfType, type CfnTemplate, type Resolver } from './template';

export const SES_SERVICE = 'ses.amazonaws.com';

/** One S3 action of an enabled receipt rule. */
export interface ReceiptRuleS3Action {
  ruleLogicalId: string;
  ruleName: string;
  /** The rule's recipients (addresses or domains); empty: every verified domain of the account. */
  recipients: string[];
  bucket: string;
  prefix: string;
  topicArn?: string;
}

export function readReceiptRules(template: CfnTemplate, resolver: Resolver): ReceiptRuleS3Action[] {
  const found: ReceiptRuleS3Action[] = [];
  for (const [id, resource] of resourcesOfType(template, 'AWS::SES::ReceiptRule')) {
    const rule = resolver.resolve(resource.Properties?.Rule ?? {}, `${id}.Rule`) as {
      Name?: string;
      Enabled?: boolean;
      Recipients?: string[];
      Actions?: Array<{ S3Action?: { BucketName: string; ObjectKeyPrefix?: string; TopicArn?: string } }>;
    };
    if (rule.Enabled === false) continue;
    for (const action of rule.Actions ?? []) {
      if (!action.S3Action) continue;
      const { BucketName, ObjectKeyPrefix, TopicArn } = action.S3Action;
      found.push({ ruleLogicalId: id, ruleName: rule.Name ?? id, recipients: rule.Recipients ?? [], bucket: BucketName, prefix: ObjectKeyPrefix ?? '', ...(TopicArn ? { topicArn: TopicArn } : {}) });
    }
  }
  return found;
}

/** Whether a rule's recipients take this address (an address, a domain, or a domain's subdomains with a leading dot). */
export function ruleTakes(recipients: readonly string[], address: string): boolean {
  if (!recipients.length) return true;
  const lower = address.toLowerCase();
  const domain = lower.split('@')[1] ?? '';
  return recipients.some((r) => {
    const want = r.toLowerCase();
    return want === lower || want === domain || (want.startsWith('.') && domain.endsWith(want));
  });
}

interface Statement {
  Effect: 'Allow' | 'Deny';
  Principal?: unknown;
  Action?: string | string[];
  Resource?: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
}

const list = (value: unknown): string[] => (value === undefined ? [] : [value].flat().map(String));
const glob = (pattern: string, value: string, caseInsensitive = false): boolean =>
  new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, caseInsensitive ? 'is' : 's').test(value);

function namesService(principal: unknown, service: string): boolean {
  if (principal === '*') return true;
  if (typeof principal !== 'object' || principal === null) return false;
  const p = principal as { Service?: unknown; AWS?: unknown };
  return list(p.Service).includes(service) || list(p.AWS).includes('*');
}

/** Whether every condition holds in `context` (keys case-insensitive); an operator or key not known is false. */
function conditionsHold(conditions: Statement['Condition'], context: Readonly<Record<string, string>>): boolean {
  const lowered = Object.fromEntries(Object.entries(context).map(([k, v]) => [k.toLowerCase(), v]));
  return Object.entries(conditions ?? {}).every(([operator, pairs]) =>
    Object.entries(pairs).every(([key, wanted]) => {
      const actual = lowered[key.toLowerCase()];
      if (actual === undefined) return false;
      const values = list(wanted);
      if (operator === 'StringEquals' || operator === 'ArnEquals' || operator === 'Bool') return values.includes(actual);
      if (operator === 'StringLike' || operator === 'ArnLike') return values.some((v) => glob(v, actual));
      return false;
    }),
  );
}

/**
 * Why the resource policies of the template refuse `service` the action on the resource; undefined
 * when one allows it and none denies it. `policies` are the resolved PolicyDocuments attached to the resource.
 */
export function servicePolicyRefusal(policies: readonly unknown[], service: string, action: string, resource: string, context: Readonly<Record<string, string>>): string | undefined {
  const statements = policies.flatMap((doc) => [(doc as { Statement: Statement | Statement[] }).Statement].flat());
  const applying = statements.filter((s) => namesService(s.Principal, service) && list(s.Action).some((a) => glob(a, action, true)) && list(s.Resource).some((r) => glob(r, resource)));
  const holding = applying.filter((s) => conditionsHold(s.Condition, context));
  if (holding.some((s) => s.Effect === 'Deny')) return `a resource policy denies ${service} ${action} on ${resource}`;
  if (holding.some((s) => s.Effect === 'Allow')) return undefined;
  return `no resource policy lets ${service} ${action} on ${resource}`;
}

/** The resolved policy documents of the bucket's AWS::S3::BucketPolicy resources. */
export function bucketPolicies(template: CfnTemplate, resolver: Resolver, bucket: string): unknown[] {
  return resourcesOfType(template, 'AWS::S3::BucketPolicy')
    .filter(([id, r]) => resolver.string(r.Properties?.Bucket, `${id}.Bucket`) === bucket)
    .map(([id, r]) => resolver.resolve(r.Properties?.PolicyDocument, `${id}.PolicyDocument`));
}

/** The resolved policy documents of the topic's AWS::SNS::TopicPolicy resources. */
export function topicPolicies(template: CfnTemplate, resolver: Resolver, topicArn: string): unknown[] {
  return resourcesOfType(template, 'AWS::SNS::TopicPolicy')
    .filter(([id, r]) => (resolver.resolve(r.Properties?.Topics ?? [], `${id}.Topics`) as unknown[]).map(String).includes(topicArn))
    .map(([id, r]) => resolver.resolve(r.Properties?.PolicyDocument, `${id}.PolicyDocument`));
}

/** What SES did with one arriving message. */
export interface ReceivedMail {
  sesMessageId: string;
  recipients: string[];
  /** Each rule that took it: where the raw message went and the topic notified. */
  stored: Array<{ rule: string; bucket: string; objectKey: string; topicArn?: string }>;
  /** Why SES could not carry out a rule's action (a resource policy refused it, the write failed). */
  refused: string[];
}

export interface ReceiptDeps {
  rules: readonly ReceiptRuleS3Action[];
  /** The policy documents on a bucket, and on a topic. */
  bucketPolicies(bucket: string): unknown[];
  topicPolicies(topicArn: string): unknown[];
  /** Writes the object through the S3 front as the SES service principal. */
  putObject(bucket: string, key: string, body: Buffer): Promise<void>;
  /** SNS: the message to the topic's subscriptions. */
  publish(topicArn: string, message: string): Promise<void>;
  /** SES's `Received` notification (local/smtp-listener.ts builds the same). */
  notification(args: { sesMessageId: string; timestamp: string; source: string; recipients: string[]; bucket: string; objectKey: string; topicArn?: string }): unknown;
  context: Readonly<Record<string, string>>;
}

/** A message arriving at SES: every enabled rule that takes a recipient runs its S3 action, as SES does. */
export async function playReceipt(deps: ReceiptDeps, mail: { sesMessageId: string; from: string; to: string[]; raw: Buffer }): Promise<ReceivedMail> {
  const received: ReceivedMail = { sesMessageId: mail.sesMessageId, recipients: mail.to, stored: [], refused: [] };
  for (const rule of deps.rules) {
    const recipients = mail.to.filter((address) => ruleTakes(rule.recipients, address));
    if (!recipients.length) continue;
    const objectKey = `${rule.prefix}${mail.sesMessageId}`;
    const objectArn = `arn:aws:s3:::${rule.bucket}/${objectKey}`;
    const denied = servicePolicyRefusal(deps.bucketPolicies(rule.bucket), SES_SERVICE, 's3:PutObject', objectArn, deps.context);
    if (denied) {
      received.refused.push(`${rule.ruleName}: ${denied}`);
      continue;
    }
    try {
      await deps.putObject(rule.bucket, objectKey, mail.raw);
    } catch (error) {
      received.refused.push(`${rule.ruleName}: the write of ${objectArn} failed: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    received.stored.push({ rule: rule.ruleName, bucket: rule.bucket, objectKey, ...(rule.topicArn ? { topicArn: rule.topicArn } : {}) });
    if (!rule.topicArn) continue;
    const unpublished = servicePolicyRefusal(deps.topicPolicies(rule.topicArn), SES_SERVICE, 'sns:Publish', rule.topicArn, deps.context);
    if (unpublished) {
      received.refused.push(`${rule.ruleName}: ${unpublished}`);
      continue;
    }
    const timestamp = new Date().toISOString();
    const notification = deps.notification({ sesMessageId: mail.sesMessageId, timestamp, source: mail.from, recipients, bucket: rule.bucket, objectKey, topicArn: rule.topicArn });
    await deps.publish(rule.topicArn, JSON.stringify(notification));
  }
  return received;
}
