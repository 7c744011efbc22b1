// Open and click tracking in AWS (issue 32 item 2): SES adds the pixel in a configuration set that
// publishes open events and rewrites links in one that publishes click events, so the stack has an
// untracked set (the default) and one per tracking choice (opens, clicks, both), all publishing to
// the same topic; the send worker is handed every name; context `trackingDomain` puts the tracked
// sets' links and pixel on a host of the deployment's.
import { CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { AppStack } from '../../lib/app-stack';
import { STACK_RESOURCE_BUDGET } from '../../lib/app-stack';
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
  const sets = stack.shared.mail.trackedConfigurationSets;
  const trackedIds = { opens: logicalId(stack, sets.opens), clicks: logicalId(stack, sets.clicks), both: logicalId(stack, sets.both) };
  const destinationOf = (setId: string) => ofType(resources, 'AWS::SES::ConfigurationSetEventDestination').find(([, r]) => r.Properties.ConfigurationSetName.Ref === setId)?.[1].Properties.EventDestination;

  it('are an untracked default and one per tracking choice, each publishing to the one topic; each publishes opens or clicks only as its choice says', () => {
    const topic = { Ref: logicalId(stack, stack.shared.mail.topic) };

    expect(ofType(resources, 'AWS::SES::ConfigurationSet').map(([id]) => id).sort()).toEqual([untrackedId, ...Object.values(trackedIds)].sort());
    for (const id of [untrackedId, ...Object.values(trackedIds)]) {
      expect(destinationOf(id)).toMatchObject({ Enabled: true, SnsDestination: { TopicARN: topic } });
      expect(destinationOf(id).MatchingEventTypes).toEqual(expect.arrayContaining(['send', 'delivery', 'bounce', 'complaint']));
    }
    const tracks = (id: string) => ['open', 'click'].filter((t) => destinationOf(id).MatchingEventTypes.includes(t));
    expect(tracks(untrackedId)).toEqual([]);
    expect(tracks(trackedIds.opens)).toEqual(['open']);
    expect(tracks(trackedIds.clicks)).toEqual(['click']);
    expect(tracks(trackedIds.both)).toEqual(['open', 'click']);
    // Without the context SES's own tracking domain serves the links.
    for (const id of Object.values(trackedIds)) expect(resources[id]!.Properties.TrackingOptions).toBeUndefined();
  });

  it('may all publish to the topic, and the send worker may send under each and is told their names', () => {
    const policy = ofType(resources, 'AWS::SNS::TopicPolicy')[0]![1].Properties.PolicyDocument.Statement.find((s: { Sid?: string }) => s.Sid === 'AllowSesEventPublishing');
    const sourceArns = JSON.stringify(policy.Condition.StringEquals['AWS:SourceArn']);
    const worker = stack.functions.get('send-worker');
    const env = resources[logicalId(stack, worker!.fn)]!.Properties.Environment.Variables;
    const roleId = logicalId(stack, worker!.role);
    const sendStatement = ofType(resources, 'AWS::IAM::Policy')
      .filter(([, r]) => JSON.stringify(r.Properties.Roles).includes(`"${roleId}"`))
      .flatMap(([, r]) => r.Properties.PolicyDocument.Statement)
      .find((s: { Action: unknown }) => JSON.stringify(s.Action).includes('ses:SendEmail'));

    for (const id of [untrackedId, ...Object.values(trackedIds)]) {
      expect(sourceArns).toContain(id);
      expect(JSON.stringify(sendStatement.Resource)).toContain(id);
    }
    expect(env[envNames.sesConfigurationSet]).toEqual({ Ref: untrackedId });
    expect(env[envNames.sesOpensConfigurationSet]).toEqual({ Ref: trackedIds.opens });
    expect(env[envNames.sesClicksConfigurationSet]).toEqual({ Ref: trackedIds.clicks });
    expect(env[envNames.sesTrackedConfigurationSet]).toEqual({ Ref: trackedIds.both });
  });

  it('put the tracked links on the custom redirect domain that context trackingDomain names, over https', () => {
    const custom = synth({ trackingDomain: 'track.acme.example' });
    const mail = custom.stack.shared.mail;
    const untracked = custom.resources[logicalId(custom.stack, mail.configurationSet)]!;

    for (const set of Object.values(mail.trackedConfigurationSets)) {
      expect(custom.resources[logicalId(custom.stack, set)]!.Properties.TrackingOptions).toEqual({ CustomRedirectDomain: 'track.acme.example', HttpsPolicy: 'REQUIRE' });
    }
    expect(untracked.Properties.TrackingOptions).toBeUndefined();
  });

  it('keep the stack within its resource budget', () => {
    expect(Object.keys(resources).length).toBeLessThanOrEqual(STACK_RESOURCE_BUDGET);
  });
});
