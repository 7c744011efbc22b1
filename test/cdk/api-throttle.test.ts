// The HTTP API stage's default route throttling: on by default, changed by CDK context
// (`-c API_THROTTLE_RATE=… -c API_THROTTLE_BURST=…`), and a bad value stops the synth.
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { Api, API_THROTTLE_BURST_CONTEXT, API_THROTTLE_RATE_CONTEXT, DEFAULT_API_THROTTLE } from '../../lib/constructs/api';
import { testApp } from '../support/cdk';

/** The stage's DefaultRouteSettings of an Api synthesized with this context. */
function routeSettingsWith(context: Record<string, unknown>): Record<string, unknown> {
  const app = testApp();
  for (const [key, value] of Object.entries(context)) app.node.setContext(key, value);
  const stack = new Stack(app, 'ApiOnly');
  new Api(stack, 'Api', { stage: 'test', logRetention: RetentionDays.ONE_WEEK });
  const stages = Object.values(Template.fromStack(stack).findResources('AWS::ApiGatewayV2::Stage'));
  expect(stages).toHaveLength(1);
  return stages[0]?.Properties.DefaultRouteSettings as Record<string, unknown>;
}

describe('API Gateway stage throttling', () => {
  it('has the documented defaults without context', () => {
    expect(routeSettingsWith({})).toMatchObject({ ThrottlingRateLimit: DEFAULT_API_THROTTLE.rateLimit, ThrottlingBurstLimit: DEFAULT_API_THROTTLE.burstLimit });
    expect(DEFAULT_API_THROTTLE).toEqual({ rateLimit: 500, burstLimit: 1000 });
  });

  it('takes the rate and the burst from context, as `cdk -c` hands them over (strings) or cdk.json holds them (numbers)', () => {
    expect(routeSettingsWith({ [API_THROTTLE_RATE_CONTEXT]: '50', [API_THROTTLE_BURST_CONTEXT]: '120' })).toMatchObject({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 120 });
    expect(routeSettingsWith({ [API_THROTTLE_RATE_CONTEXT]: 2.5 })).toMatchObject({ ThrottlingRateLimit: 2.5, ThrottlingBurstLimit: DEFAULT_API_THROTTLE.burstLimit });
  });

  it.each([
    [API_THROTTLE_RATE_CONTEXT, 'fast'],
    [API_THROTTLE_RATE_CONTEXT, '0'],
    [API_THROTTLE_RATE_CONTEXT, '-5'],
    [API_THROTTLE_BURST_CONTEXT, '1.5'],
    [API_THROTTLE_BURST_CONTEXT, ''],
  ])('refuses %s=%j', (key, value) => {
    expect(() => routeSettingsWith({ [key]: value })).toThrow(new RegExp(`context ${key} must be a positive`));
  });
});
