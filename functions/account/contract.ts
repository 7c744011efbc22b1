import * as z from 'zod';
import { accountVerificationView, channelBody, channels, channelStateView } from '../../shared/accounts/schemas';
import type { ContractsOf } from '../../shared/http/contract';
import type { account } from './definition';
import { usageQuery, usageView } from '../../shared/billing/usage/schemas';

const channelParam = z.object({
  channel: z.enum(channels).meta({ description: 'email or webhook; sms, push and voice have no provider in this deployment (422 channel_not_enabled)' }),
});

export const contracts: ContractsOf<typeof account> = {
  'GET /v1/account/verification': {
    operationId: 'getAccountVerification',
    description:
      'Whether each channel can send, and whether the account is still in the sandbox (live mail only from the shared sender, ' +
      'only to the account\'s own address or a verified test recipient). Any key may call it, whatever its scope or mode.',
    responses: { 200: { description: 'The account\'s readiness per channel', schema: accountVerificationView } },
    errors: [],
    examples: [
      { name: 'a read key', status: 200, as: 'read' },
      { name: 'a test-mode key', status: 200, as: 'test' },
      { name: 'no key', status: 401, as: 'none' },
    ],
  },
  'GET /v1/usage': {
    operationId: 'getUsage',
    description:
      'Live sends accepted in a calendar month (UTC), per channel: `send_count` and `total_send_count` transactional ones, ' +
      '`broadcast_send_count` broadcast and bulk ones. `cost_micros` and `total_cost_micros` are the internal cost estimate spend caps hold ' +
      '(100 micro-dollars per live email by default; webhook-channel sends cost 0). A send is counted and its cost reserved when it is accepted, ' +
      'queued and scheduled ones included, and both are given back if it is suppressed, fails before the provider takes it or is canceled. ' +
      'Test-mode sends never count and cost nothing.',
    query: usageQuery,
    responses: { 200: { description: 'The period\'s usage', schema: usageView } },
    errors: [],
    examples: [
      { name: 'this month', status: 200, as: 'read' },
      { name: 'a given month', query: { period: '2026-01' }, status: 200, as: 'read' },
      { name: 'a month that does not exist', query: { period: '2026-13' }, status: 400, as: 'read' },
    ],
  },
  'PUT /v1/account/channels/{channel}': {
    operationId: 'setChannelEnabled',
    description:
      'Turns a channel on or off for the account. `webhook` (POSTs a send\'s `payload.data` to `destination.url`) is off until turned on; ' +
      'a send on a channel that is off is 422 `channel_not_enabled`. Changes what live mail does: a live admin key only.',
    params: channelParam,
    body: channelBody,
    responses: { 200: { description: 'The channel\'s new state', schema: channelStateView } },
    errors: ['channel_not_enabled'],
    examples: [
      { name: 'turn on the webhook channel', params: { channel: 'webhook' }, body: { enabled: true }, status: 200 },
      { name: 'a channel without a provider', params: { channel: 'sms' }, body: { enabled: true }, status: 422 },
      { name: 'not a channel', params: { channel: 'fax' }, body: { enabled: true }, status: 404 },
      { name: 'a test-mode key', params: { channel: 'webhook' }, body: { enabled: true }, status: 403, as: 'test' },
    ],
  },
};
