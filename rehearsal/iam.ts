// The IAM check of the rehearsal: every AWS call a function makes is allowed only if a statement of
// its role's policies in the template allows the action on the resource, and none denies it, as
// IAM evaluates identity policies within one account: an explicit Deny wins, then an Allow is
// needed. Actions match case-insensitively, resources case-sensitively, `*` and `?` as wildcards.
// What the rehearsal cannot evaluate (a Condition, a managed policy it does not have) makes no
// statement allow, so a grant that leans on one shows up as a denial rather than passing unseen.
import { resourcesOfType, type CfnTemplate, type Resolver } from './template';
import type { AwsCall, Check } from './aws-front';

interface Statement {
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: unknown;
}

interface PolicyDocument {
  Statement: Statement | Statement[];
}

const list = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** An IAM pattern (`*` any run of characters, `?` one) as a regular expression. */
function pattern(glob: string, caseInsensitive: boolean): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, caseInsensitive ? 'is' : 's');
}

const matchesAny = (patterns: readonly string[], value: string, caseInsensitive: boolean): boolean => patterns.some((p) => pattern(p, caseInsensitive).test(value));

function applies(statement: Statement, check: Check): boolean {
  const action = statement.Action !== undefined ? matchesAny(list(statement.Action), check.action, true) : !matchesAny(list(statement.NotAction), check.action, true);
  if (!action) return false;
  return statement.Resource !== undefined ? matchesAny(list(statement.Resource), check.resource, false) : !matchesAny(list(statement.NotResource), check.resource, false);
}

/** Why IAM would refuse the check under these statements; undefined when it allows it. */
export function evaluate(statements: readonly Statement[], check: Check): string | undefined {
  const matching = statements.filter((s) => applies(s, check));
  if (matching.some((s) => s.Effect === 'Deny')) return `explicitly denied: ${check.action} on ${check.resource}`;
  if (matching.some((s) => s.Effect === 'Allow' && s.Condition === undefined)) return undefined;
  if (matching.some((s) => s.Effect === 'Allow')) return `only a statement with a Condition (not evaluated by the rehearsal) allows ${check.action} on ${check.resource}`;
  return `no statement allows ${check.action} on ${check.resource}`;
}

export interface RolePolicies {
  statements: Statement[];
  /** ManagedPolicyArns of the role: policies the template does not hold, so the rehearsal cannot evaluate them. */
  managed: string[];
}

/** Every role's statements: its inline Policies, the AWS::IAM::Policy and ::ManagedPolicy resources attached to it. */
export function rolePolicies(template: CfnTemplate, resolver: Resolver): Map<string, RolePolicies> {
  const roles = new Map<string, RolePolicies>();
  const of = (roleId: string): RolePolicies => {
    let found = roles.get(roleId);
    if (!found) roles.set(roleId, (found = { statements: [], managed: [] }));
    return found;
  };
  const add = (roleId: string, document: unknown, where: string): void => {
    const resolved = resolver.resolve(document, where) as PolicyDocument;
    of(roleId).statements.push(...(Array.isArray(resolved.Statement) ? resolved.Statement : [resolved.Statement]));
  };
  for (const [id, role] of resourcesOfType(template, 'AWS::IAM::Role')) {
    of(id);
    const props = role.Properties ?? {};
    for (const [i, policy] of ((props.Policies as Array<{ PolicyDocument: unknown }> | undefined) ?? []).entries()) add(id, policy.PolicyDocument, `${id}.Policies[${i}]`);
    for (const arn of (props.ManagedPolicyArns as unknown[] | undefined) ?? []) of(id).managed.push(resolver.string(arn, `${id}.ManagedPolicyArns`));
  }
  for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']) {
    for (const [id, policy] of resourcesOfType(template, type)) {
      const props = policy.Properties ?? {};
      for (const role of (props.Roles as Array<{ Ref?: string }> | undefined) ?? []) {
        if (role.Ref && template.Resources[role.Ref]) add(role.Ref, props.PolicyDocument, `${id}.PolicyDocument`);
      }
    }
  }
  return roles;
}

/** The check the fronts ask: the caller's role may make every part of the call, or the first refusal, worded as AWS words AccessDenied. */
export function iamCheck(roles: ReadonlyMap<string, RolePolicies>): (roleLogicalId: string | undefined, call: AwsCall) => string | undefined {
  return (roleLogicalId, call) => {
    const role = roleLogicalId ? roles.get(roleLogicalId) : undefined;
    if (!role) return `User: ${call.accessKeyId ?? 'anonymous'} is not a role of the stack and is not authorized to perform ${call.checks[0]?.action ?? call.operation}`;
    for (const check of call.checks) {
      const refusal = evaluate(role.statements, check);
      if (refusal) return `User: arn:aws:sts::123456789012:assumed-role/${roleLogicalId} is not authorized to perform: ${check.action} on resource: ${check.resource} because ${refusal}`;
    }
    return undefined;
  };
}

/** The condition operators a trust policy of the stack uses; any other makes its statement not count. */
const CONDITION_OPERATORS: Record<string, (pattern: string, value: string) => boolean> = {
  StringEquals: (p, v) => p === v,
  StringLike: (p, v) => pattern(p, false).test(v),
  ArnEquals: (p, v) => pattern(p, false).test(v),
  ArnLike: (p, v) => pattern(p, false).test(v),
};

interface TrustStatement {
  Effect?: string;
  Principal?: string | { Service?: string | string[] };
  Action?: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
}

/** Whether a statement's conditions hold in the request context (keys case-insensitive); a string saying why not. */
function conditionRefusal(condition: TrustStatement['Condition'], context: Readonly<Record<string, string>>): string | undefined {
  for (const [operator, pairs] of Object.entries(condition ?? {})) {
    const test = CONDITION_OPERATORS[operator];
    if (!test) return `its condition operator ${operator} is not evaluated by the rehearsal`;
    for (const [key, expected] of Object.entries(pairs)) {
      const value = Object.entries(context).find(([name]) => name.toLowerCase() === key.toLowerCase())?.[1];
      if (value === undefined || ![expected].flat().some((p) => test(String(p), value))) return `its condition ${operator} ${key} ${JSON.stringify(expected)} does not hold for ${value ?? 'an absent key'}`;
    }
  }
  return undefined;
}

/**
 * Why a service may not assume a role under its trust policy (AssumeRolePolicyDocument) in this
 * request context (e.g. aws:SourceAccount, aws:SourceArn); undefined when it may. A Deny that
 * applies wins; an Allow must name the service, allow sts:AssumeRole, and have every condition hold.
 */
export function trustRefusal(document: unknown, service: string, context: Readonly<Record<string, string>>): string | undefined {
  const statements = [(document as { Statement?: TrustStatement | TrustStatement[] } | undefined)?.Statement ?? []].flat();
  const reasons: string[] = [];
  const applying = statements.filter((s) => {
    const principal = s.Principal === '*' || (typeof s.Principal === 'object' && [s.Principal.Service ?? []].flat().includes(service));
    return principal && matchesAny(list(s.Action), 'sts:AssumeRole', true);
  });
  if (applying.some((s) => s.Effect === 'Deny' && conditionRefusal(s.Condition, context) === undefined)) return `its trust policy denies ${service} sts:AssumeRole`;
  for (const s of applying.filter((x) => x.Effect === 'Allow')) {
    const refusal = conditionRefusal(s.Condition, context);
    if (refusal === undefined) return undefined;
    reasons.push(refusal);
  }
  return reasons.length ? `its trust policy lets ${service} assume it only under conditions that do not hold: ${reasons.join('; ')}` : `no statement of its trust policy lets ${service} sts:AssumeRole`;
}
