// Helpers for cdk-nag acknowledgements. Every acknowledgement in the stack goes through
// `acknowledge`, so each one carries its reason next to the resource it excuses.
import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}

/**
 * The finding id cdk-nag's IAM5 rule reports for a wildcard resource, e.g.
 * `AwsSolutions-IAM5[Resource::<Bucket83908E77.Arn>/*]`. Computed from the same token the
 * policy uses, so the acknowledgement follows logical ids and env-specific ARNs.
 */
export function wildcardResourceFinding(scope: IConstruct, resource: string): string {
  return `AwsSolutions-IAM5[Resource::${flatten(Stack.of(scope).resolve(resource))}]`;
}

export function wildcardActionFinding(action: string): string {
  return `AwsSolutions-IAM5[Action::${action}]`;
}

// Mirrors cdk-nag's flattening of CloudFormation intrinsics into `<LogicalId.Attr>` text.
function flatten(node: unknown): string {
  if (node === undefined) return '';
  if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (typeof node === 'object' && node !== null) {
    const value = node as Record<string, unknown>;
    if (Array.isArray(value['Fn::Join'])) {
      const [delimiter, items] = value['Fn::Join'] as [string, unknown[]];
      return items.map(flatten).join(delimiter);
    }
    if (value['Fn::Sub'] !== undefined) return flatten(value['Fn::Sub']);
    if (Array.isArray(value['Fn::GetAtt'])) {
      const [resource, attribute] = value['Fn::GetAtt'] as [unknown, unknown];
      return `<${flatten(resource)}.${flatten(attribute)}>`;
    }
    if (value['Fn::ImportValue'] !== undefined) return flatten(value['Fn::ImportValue']);
    if (value.Ref !== undefined) return `<${flatten(value.Ref)}>`;
  }
  return JSON.stringify(node);
}
