// `npm run rehearse -- --preview` (issue 30): what a deploy would create, read from the template
// synthesized as `cdk synth` makes it (bundling skipped: the preview reads no code).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functions as manifest } from '../../functions/manifest';
import { synthesizeTemplate } from '../../rehearsal/assembly';
import { formatPreview, preview, symbolic } from '../../rehearsal/preview';
import type { CfnTemplate } from '../../rehearsal/template';

const outdir = mkdtempSync(join(tmpdir(), 'postbox-preview-test-'));
let template: CfnTemplate;
let stackName: string;

beforeAll(() => {
  ({ template, stackName } = synthesizeTemplate({ outdir }));
}, 120_000);
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe('the deploy preview', () => {
  it('counts every resource of the synthesized template by type', () => {
    // Act
    const p = preview(template);
    // Assert: the counts are the template's, resource by resource.
    const resources = Object.values(template.Resources);
    expect(p.total).toBe(resources.length);
    expect(Object.values(p.counts).reduce((a, b) => a + b, 0)).toBe(resources.length);
    for (const [type, count] of Object.entries(p.counts)) expect(resources.filter((r) => r.Type === type).length, type).toBe(count);
    expect(p.counts['AWS::Lambda::Function']).toBe(manifest.length);
    expect(p.counts['AWS::DynamoDB::Table']).toBe(1);
  });

  it('lists each function of the manifest with the statements of its role, as the template grants them', () => {
    const p = preview(template);
    expect(p.functions.map((f) => f.label).sort()).toEqual(manifest.map((d) => d.name).sort());
    const worker = p.functions.find((f) => f.label === 'send-worker')!;
    expect(worker.statements.some((s) => s.effect === 'Allow' && s.actions.includes('ses:SendEmail'))).toBe(true);
    // A function whose manifest entry needs no mail sending gets no SES grant.
    const keys = p.functions.find((f) => f.label === 'keys')!;
    expect(keys.statements.flatMap((s) => s.actions).some((a) => a.startsWith('ses:'))).toBe(false);
  });

  it('prints the counts and each function\'s statements', () => {
    const text = formatPreview(preview(template), stackName);
    expect(text).toContain(`${stackName}: ${Object.keys(template.Resources).length} resources to create`);
    expect(text).toMatch(new RegExp(`AWS::Lambda::Function +${manifest.length}\\n`));
    expect(text).toContain('  send-worker (');
  });

  it('prints references as the names they will resolve to', () => {
    expect(symbolic({ 'Fn::GetAtt': ['Table', 'Arn'] })).toBe('${Table.Arn}');
    expect(symbolic({ 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, '/index/*']] })).toBe('${Table.Arn}/index/*');
    expect(symbolic({ Ref: 'Queue' })).toBe('${Queue}');
  });
});
