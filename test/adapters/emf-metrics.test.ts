// The service's counts as CloudWatch Embedded Metric Format lines: the documented shape (a JSON
// object whose `_aws` member names the namespace, the dimension set and the metric, beside the
// metric's value and the dimension's), and which runtime writes them.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emfLine, emfMetrics } from '../../shared/adapters/emf-metrics';
import { staticSecrets } from '../../shared/adapters/static-secrets';
import { countMetrics, METRICS_NAMESPACE } from '../../shared/platform';
import { readAwsConfig } from '../../shared/runtime/config';
import { buildContainer } from '../../shared/runtime/container';
import { createTestContainer } from '../support/container';

const AT = Date.parse('2026-03-01T12:00:00.000Z');

afterEach(() => vi.restoreAllMocks());

describe('an EMF line', () => {
  it('declares the metric under the Postbox namespace with the stage as its one dimension', () => {
    // Act
    const line = JSON.parse(emfLine('MessagesSent', 1, AT, 'prod'));

    // Assess
    expect(line).toEqual({
      _aws: {
        Timestamp: AT,
        CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [['Stage']], Metrics: [{ Name: 'MessagesSent', Unit: 'Count' }] }],
      },
      Stage: 'prod',
      MessagesSent: 1,
    });
  });

  it('has the empty dimension set without a stage, and never an account', () => {
    // Act
    const line = JSON.parse(emfLine('WebhooksFailed', 3, AT));

    // Assess
    expect(line._aws.CloudWatchMetrics[0].Dimensions).toEqual([[]]);
    expect(line).toEqual({ _aws: expect.any(Object), WebhooksFailed: 3 });
  });

  it.each(countMetrics.map((name) => [name]))('is one line of JSON for %s, every dimension it names present as a string member', (name) => {
    // Act
    const text = emfLine(name, 2, AT, 'dev');

    // Assess
    expect(text).not.toContain('\n');
    const line = JSON.parse(text);
    const directive = line._aws.CloudWatchMetrics[0];
    for (const set of directive.Dimensions) for (const dimension of set) expect(typeof line[dimension]).toBe('string');
    for (const metric of directive.Metrics) expect(line[metric.Name]).toBe(2);
  });
});

describe('emfMetrics', () => {
  it('writes one line per count, stamped with the clock, and nothing for a count below one', () => {
    // Prepare
    const lines: string[] = [];
    const metrics = emfMetrics({ write: (line) => lines.push(line), now: () => AT, stage: 'dev' });

    // Act
    metrics.count('MessagesAccepted', 5);
    metrics.count('MessagesDelivered');
    metrics.count('MessagesAccepted', 0);

    // Assess
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ MessagesAccepted: 5, Stage: 'dev', _aws: expect.objectContaining({ Timestamp: AT }) }),
      expect.objectContaining({ MessagesDelivered: 1 }),
    ]);
  });
});

describe('the container', () => {
  it('writes EMF lines to stdout in AWS, with the stage the stack set', async () => {
    // Prepare
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => written.push(String(chunk)) > 0);
    const container = await buildContainer(readAwsConfig({ TABLE_NAME: 't', STAGE: 'prod' }), { secrets: staticSecrets({}) });

    // Act
    container.metrics.count('MessagesSent');

    // Assess
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/\n$/);
    expect(JSON.parse(written[0]!)).toMatchObject({ Stage: 'prod', MessagesSent: 1 });
  });

  it('writes nothing in the local runtime', async () => {
    // Prepare
    const c = await createTestContainer();
    const write = vi.spyOn(process.stdout, 'write');

    // Act
    c.metrics.count('MessagesSent');

    // Assess
    expect(write).not.toHaveBeenCalled();
    await c.testStore.close();
  });
});
