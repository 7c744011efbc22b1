// Open and click tracking in AWS (issue 32 item 2): SES tracks a send whose configuration set
// publishes open and click events, so the stack has an untracked set (the default) and a tracked
// one, both publishing to the same topic; the send worker is handed both names; context
// `trackingDomain` puts the tracked set's links and pixel on a host of the deployment's.
import { CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { AppStack } from '../../lib/app-stack';
import { envNames } from '../../shared/runtime/env-names';
import { testApp } from '../support/cdk';

type Resources = Record<string, { Type: string; Properties: Record<string, any> }>;

function synth(props: { trackingDomain?: string } = {}): { stack: AppStack; resources: Resources } {
  const stack = new AppStack(testApp(), 'Postbox-test', { stage: 'test', sharedEmailSender: 'sandbox@postbox.test', ...props });
  return { stack, resources: Template.fromStack(stack).toJSON().Resources as Resources };
}

const logicalId = (stack: Stack, construct: IConstruct): string =>
  stack.getLogicalId((CfnResource.isCfnResource(construct) ? construct : construct.node.defaultChild) as CfnResource);

const ofType = (resources: Resources, type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

describe('SES configuration sets for tracking', () => {
  const { stack, resources } = synth();
  const untrackedId = logicalId(stack, stack.shared.mail.configurationSet);
  const trackedId = logicalId(stack, stack.shared.mail.trackedConfigurationSet);
  const destinationOf = (setId: string) => ofType(resources, 'AWS::SES::ConfigurationSetEventDestination').find(([, r]) => r.Properties.ConfigurationSetName.Ref === setId)?.[1].Properties.EventDestination;

  it('are two, an untracked default and a tracked one, each publishing to the one topic; only the tracked one publishes opens and clicks', () => {
    const topic = { Ref: logicalId(stack, stack.shared.mail.topic) };

    expect(ofType(resources, 'AWS::SES::ConfigurationSet').map(([id]) => id).sort()).toEqual([untrackedId, trackedId].sort());
    expect(destinationOf(untrackedId)).toMatchObject({ Enabled: true, SnsDestination: { TopicARN: topic } });
    expect(destinationOf(trackedId)).toMatchObject({ Enabled: true, SnsDestination: { TopicARN: topic } });
    expect(destinationOf(untrackedId).MatchingEventTypes).toEqual(expect.arrayContaining(['send', 'delivery', 'bounce', 'complaint']));
    expect(destinationOf(untrackedId).MatchingEventTypes).not.toContain('open');
    expect(destinationOf(untrackedId).MatchingEventTypes).not.toContain('click');
    expect(destinationOf(trackedId).MatchingEventTypes).toEqual(expect.arrayContaining(['send', 'delivery', 'open', 'click']));
    // Without the context SES's own tracking domain serves the links.
    expect(resources[trackedId]!.Properties.TrackingOptions).toBeUndefined();
  });

  it('may both publish to the topic, and the send worker may send under both and is told their names', () => {
    const policy = ofType(resources, 'AWS::SNS::TopicPolicy')[0]![1].Properties.PolicyDocument.Statement.find((s: { Sid?: string }) => s.Sid === 'AllowSesEventPublishing');
    const sourceArns = JSON.stringify(policy.Condition.StringEquals['AWS:SourceArn']);
    const worker = stack.functions.get('send-worker');
    const env = resources[logicalId(stack, worker!.fn)]!.Properties.Environment.Variables;
    const roleId = logicalId(stack, worker!.role);
    const sendStatement = ofType(resources, 'AWS::IAM::Policy')
      .filter(([, r]) => JSON.stringify(r.Properties.Roles).includes(`"${roleId}"`))
      .flatMap(([, r]) => r.Properties.PolicyDocument.Statement)
      .find((s: { Action: unknown }) => JSON.stringify(s.Action).includes('ses:SendEmail'));

    expect(sourceArns).toContain(untrackedId);
    expect(sourceArns).toContain(trackedId);
    expect(env[envNames.sesConfigurationSet]).toEqual({ Ref: untrackedId });
    expect(env[envNames.sesTrackedConfigurationSet]).toEqual({ Ref: trackedId });
    expect(JSON.stringify(sendStatement.Resource)).toContain(untrackedId);
    expect(JSON.stringify(sendStatement.Resource)).toContain(trackedId);
  });

  it('put the tracked links on the custom redirect domain that context trackingDomain names, over https', () => {
    const custom = synth({ trackingDomain: 'track.acme.example' });
    const tracked = custom.resources[logicalId(custom.stack, custom.stack.shared.mail.trackedConfigurationSet)]!;
    const untracked = custom.resources[logicalId(custom.stack, custom.stack.shared.mail.configurationSet)]!;

    expect(tracked.Properties.TrackingOptions).toEqual({ CustomRedirectDomain: 'track.acme.example', HttpsPolicy: 'REQUIRE' });
    expect(untracked.Properties.TrackingOptions).toBeUndefined();
  });

  it('keep the stack within its 400 resources', () => {
    expect(Object.keys(resources).length).toBeLessThanOrEqual(400);
  });
});
