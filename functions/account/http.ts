import { functionNamed } from '../manifest';
import { account } from './definition';
import { channelBody } from '../../shared/accounts/schemas';
import { getVerification, setChannelEnabled } from '../../shared/accounts/service';
import { domainCounts } from '../../shared/domains/service';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { getUsage, usageQuery } from '../../shared/billing/usage/service';

export const handler = createHttpHandler(account, {
  'GET /v1/account/verification': async (req, c) =>
    json(200, await getVerification(c, authOf(req).accountId, { sharedEmailSender: c.config.sharedEmailSender, domains: await domainCounts(c.store, authOf(req).accountId) })),
  'PUT /v1/account/channels/{channel}': async (req, c) =>
    json(200, await setChannelEnabled(c, authOf(req).accountId, req.params.channel ?? '', parseInput(channelBody, req.body).enabled)),
  'GET /v1/usage': async (req, c) => json(200, await getUsage(c, authOf(req).account, parseInput(usageQuery, req.query, 'query').period)),
});
