// CDK entry point: `npx cdk synth -c stage=prod` (stage defaults to dev).
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AppStack } from '../lib/app-stack';
import { billingPeriods, oauthProviders, paidPlans } from '../shared/platform';
import { envNames, oauthEnvNames } from '../shared/runtime/env-names';

const app = new App();
const stage = String(app.node.tryGetContext('stage') ?? 'dev');
if (!/^[a-z][a-z0-9-]{0,20}$/.test(stage)) {
  throw new Error(`Context "stage" must be lower-case letters, digits and dashes; got "${stage}"`);
}
const sharedEmailSender: unknown = app.node.tryGetContext('sharedEmailSender');
// `-c inbound=true` where SES receives mail: receipt rules and the inbound routes.
const inbound = String(app.node.tryGetContext('inbound') ?? 'false') === 'true';
// `-c trackingDomain=track.example.com`: tracked links and the open pixel on a host of your own.
const trackingDomain: unknown = app.node.tryGetContext('trackingDomain');
// Stripe price ids, one context value per plan and period: `-c STRIPE_PRICE_PRO_YEAR=price_…`.
const stripePrices: Record<string, string> = {};
for (const plan of paidPlans) {
  for (const period of billingPeriods) {
    const name = envNames.stripePrice(plan, period);
    const value: unknown = app.node.tryGetContext(name);
    if (typeof value === 'string' && value) stripePrices[name] = value;
  }
}

// OAuth apps' client ids, one context value per provider: `-c OAUTH_GITHUB_CLIENT_ID=…` (the secrets are Secrets Manager's).
const oauthClientIds: Record<string, string> = {};
for (const provider of oauthProviders) {
  const name = oauthEnvNames.clientId(provider);
  const value: unknown = app.node.tryGetContext(name);
  if (typeof value === 'string' && value) oauthClientIds[name] = value;
}

new AppStack(app, `Postbox-${stage}`, {
  stage,
  sharedEmailSender: typeof sharedEmailSender === 'string' ? sharedEmailSender : undefined,
  inbound,
  trackingDomain: typeof trackingDomain === 'string' && trackingDomain ? trackingDomain : undefined,
  stripePrices,
  oauthClientIds,
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
