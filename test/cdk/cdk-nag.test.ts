// cdk-nag AwsSolutions over the manifest stack: zero unacknowledged findings, and every
// acknowledgement states its reason.
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../support/cdk';
import { AppStack } from '../../lib/app-stack';

let app: App;
let stack: AppStack;

beforeAll(() => {
  app = testApp();
  stack = new AppStack(app, 'Postbox-nag', { stage: 'test' });
  Template.fromStack(stack); // synthesize first so every lazily added resource exists
});

function acknowledgements(root: IConstruct): Array<{ path: string; id: string; reason: string }> {
  return root.node.findAll().flatMap((construct) =>
    construct.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) =>
        Object.entries(entry.data as Record<string, unknown>).map(([id, value]) => ({
          path: construct.node.path,
          id,
          reason: typeof value === 'string' ? value : JSON.stringify(value),
        })),
      ),
  );
}

describe('cdk-nag AwsSolutions', () => {
  it('reports zero unacknowledged findings', () => {
    // Act
    const report = new AwsSolutionsChecks(app).validateScope(stack);

    // Assess
    expect(report.violations.map((v) => `${v.ruleName} @ ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
    expect(report.success).toBe(true);
  });

  it('acknowledges nothing without a specific reason', () => {
    // Act
    const acks = acknowledgements(stack);

    // Assess
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.id, ack.path).toMatch(/AwsSolutions-/);
      expect(ack.reason.length, `${ack.id} on ${ack.path}`).toBeGreaterThan(60);
    }
  });

  it('has no acknowledgement for a rule that would not fire anyway', () => {
    // Prepare: the same stack with every acknowledgement ignored
    const acks = acknowledgements(stack);
    const withoutAcks = new (class extends AwsSolutionsChecks {
      protected override applyRule(params: Parameters<AwsSolutionsChecks['applyRule']>[0]): void {
        const result = params.rule(params.node);
        const base = `AwsSolutions-${params.ruleSuffixOverride ?? params.rule.name}`;
        if (Array.isArray(result)) for (const finding of result) fired.add(`${base}[${finding}]`);
        else if (result === 'Non-Compliant') fired.add(base);
      }
    })(app);
    const fired = new Set<string>();

    // Act
    withoutAcks.validateScope(stack);

    // Assess
    const stale = acks.map((ack) => ack.id.replace(/^annotation::/i, '')).filter((id) => !fired.has(id));
    expect(stale).toEqual([]);
  });
});
