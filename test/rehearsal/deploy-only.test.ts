// The alarms, the dashboard and an alarm email subscription (issue 32) have nothing to do offline:
// the rehearsal starts with them, says so in a note, and does not list them as unrehearsed. One
// function (the $default fallback) is enough: these resources are the stack's whatever it holds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functions as manifest } from '../../functions/manifest';
import { ALARM_EMAIL_CONTEXT } from '../../lib/constructs/observability';
import { synthesize } from '../../rehearsal/assembly';
import { startRehearsal, type Rehearsal } from '../../rehearsal/rehearsal';

const outdir = mkdtempSync(join(tmpdir(), 'postbox-rehearsal-deploy-only-'));
let rehearsal: Rehearsal;

beforeAll(async () => {
  // Prepare: the stack of the fallback alone, synthesized as `cdk synth -c alarmEmail=…` would.
  const assembly = await synthesize({ outdir, props: { functions: manifest.filter((def) => def.defaultRoute) }, context: { [ALARM_EMAIL_CONTEXT]: 'ops@example.com' } });
  // Act
  rehearsal = await startRehearsal({ assembly });
}, 300_000);

afterAll(async () => {
  await rehearsal?.close();
  rmSync(outdir, { recursive: true, force: true });
});

describe('deploy-only resources in the rehearsal', () => {
  it('start: the API answers', async () => {
    // Act
    const res = await fetch(`${rehearsal.url}/no/such/path`);

    // Assess
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('are a note, not unrehearsed: the alarms and the dashboard, and the email subscription', () => {
    // Assess
    expect(Object.keys(rehearsal.unrehearsed)).not.toContain('AWS::CloudWatch::Alarm');
    expect(Object.keys(rehearsal.unrehearsed)).not.toContain('AWS::CloudWatch::Dashboard');
    expect(rehearsal.notes).toContainEqual(expect.stringMatching(/^deploy-only, nothing to run offline: AWS::CloudWatch::Alarm \(\d+\), AWS::CloudWatch::Dashboard \(1\)/));
    expect(rehearsal.notes).toContainEqual(expect.stringMatching(/an email subscription is deploy-only \(SNS mails ops@example\.com once it is confirmed\)/));
  });
});
