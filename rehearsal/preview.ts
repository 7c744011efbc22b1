// What `cdk deploy` would create, read from the synthesized template (issue 30): the resources by
// type, and each function's IAM statements (its role's inline policies and the policies attached
// to it), the way a reviewer reads `cdk diff` before a first deploy. References print as the names
// they will resolve to (`${Table.Arn}`), not resolved: nothing has been made yet.
import { resourcesOfType, type CfnTemplate } from './template';

export interface PreviewStatement {
  effect: string;
  actions: string[];
  resources: string[];
  condition: boolean;
}

export interface FunctionPreview {
  logicalId: string;
  /** The manifest name, from the Description ("Postbox <name>"). */
  label: string;
  role: string;
  statements: PreviewStatement[];
}

export interface Preview {
  /** Resource type → how many of it the template creates. */
  counts: Record<string, number>;
  total: number;
  functions: FunctionPreview[];
}

/** An intrinsic function as the value it stands for, symbolically. */
export function symbolic(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return value.map(symbolic).join(',');
  const [[key, arg]] = Object.entries(value as Record<string, unknown>) as [[string, unknown]];
  if (key === 'Ref') return `\${${String(arg)}}`;
  if (key === 'Fn::GetAtt') return `\${${Array.isArray(arg) ? arg.join('.') : String(arg)}}`;
  if (key === 'Fn::Join') {
    const [separator, parts] = arg as [string, unknown[]];
    return parts.map(symbolic).join(separator);
  }
  if (key === 'Fn::Sub') return Array.isArray(arg) ? String(arg[0]) : String(arg);
  return JSON.stringify(value);
}

const list = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export function preview(template: CfnTemplate): Preview {
  const counts: Record<string, number> = {};
  for (const resource of Object.values(template.Resources)) counts[resource.Type] = (counts[resource.Type] ?? 0) + 1;

  // Every role's statements: inline Policies, and the policies naming it in Roles.
  const byRole = new Map<string, PreviewStatement[]>();
  const add = (role: string, document: unknown): void => {
    const statements = list((document as { Statement?: unknown } | undefined)?.Statement) as Array<Record<string, unknown>>;
    const into = byRole.get(role) ?? [];
    for (const s of statements) {
      into.push({
        effect: String(s.Effect),
        actions: list(s.Action ?? s.NotAction).map(symbolic),
        resources: list(s.Resource ?? s.NotResource).map(symbolic),
        condition: s.Condition !== undefined,
      });
    }
    byRole.set(role, into);
  };
  for (const [id, role] of resourcesOfType(template, 'AWS::IAM::Role')) {
    for (const policy of list(role.Properties?.Policies) as Array<{ PolicyDocument: unknown }>) add(id, policy.PolicyDocument);
  }
  for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']) {
    for (const [, policy] of resourcesOfType(template, type)) {
      for (const role of list(policy.Properties?.Roles) as Array<{ Ref?: string }>) if (role.Ref) add(role.Ref, policy.Properties?.PolicyDocument);
    }
  }

  const functions = resourcesOfType(template, 'AWS::Lambda::Function').map(([id, fn]): FunctionPreview => {
    const roleRef = fn.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined;
    const role = roleRef?.['Fn::GetAtt']?.[0] ?? symbolic(roleRef);
    const description = fn.Properties?.Description;
    return { logicalId: id, label: typeof description === 'string' ? description.replace(/^Postbox /, '') : id, role, statements: byRole.get(role) ?? [] };
  });
  functions.sort((a, b) => a.label.localeCompare(b.label));
  return { counts, total: Object.keys(template.Resources).length, functions };
}

/** The preview as `npm run rehearse -- --preview` prints it. */
export function formatPreview(p: Preview, stackName: string): string {
  const lines = [`${stackName}: ${p.total} resources to create`, ''];
  const width = Math.max(...Object.keys(p.counts).map((t) => t.length));
  for (const [type, count] of Object.entries(p.counts).sort(([a], [b]) => a.localeCompare(b))) lines.push(`  ${type.padEnd(width)}  ${count}`);
  lines.push('', 'IAM statements per function (its role):');
  for (const fn of p.functions) {
    lines.push('', `  ${fn.label} (${fn.role})`);
    for (const s of fn.statements) {
      lines.push(`    ${s.effect} ${s.actions.join(', ')}${s.condition ? ' (with a condition)' : ''}`);
      for (const resource of s.resources) lines.push(`      on ${resource}`);
    }
  }
  return lines.join('\n');
}
