import type { ContractsOf } from '../../shared/http/contract';
import type { spendCaps } from './definition';
import { deleteSpendCapQuery, putSpendCapBody, spendCapListView, spendCapView } from '../../shared/billing/spend-caps/schemas';

const CAPS =
  'A cap holds the cost of a calendar month (UTC), as `GET /v1/usage` shows it (`total_cost_micros`, reserved when a send is accepted): ' +
  'a send that would take it past `hard_limit_micros` is refused with 402 `spend_cap_exceeded` (single sends, batch items, bulk and broadcast recipients); ' +
  'the first send that takes it to `soft_limit_micros` sends one alert per cap and month (an email to the account\'s address and a `usage.soft_cap_reached` webhook event). ' +
  'Without `key_id` the cap holds the whole account; with it, what one live key of the account sends. Test-mode sends cost nothing and are never capped.';

export const contracts: ContractsOf<typeof spendCaps> = {
  'PUT /v1/spend-caps': {
    operationId: 'putSpendCap',
    description: `${CAPS} Creates the cap or changes the limits sent (null clears one; an omitted one stays). Changes what live mail may do: a live admin key only.`,
    body: putSpendCapBody,
    responses: { 200: { description: 'The cap as it now is', schema: spendCapView } },
    errors: ['not_found'],
    examples: [
      { name: 'the account cap', body: { hard_limit_micros: 1_000_000_000_000, soft_limit_micros: 900_000_000_000 }, status: 200 },
      { name: 'a key cap', body: { key_id: '{{spare_key_id}}', hard_limit_micros: 5_000_000 }, status: 200 },
      { name: 'a negative limit', body: { hard_limit_micros: -1 }, status: 400 },
      { name: 'a key that is not the account\'s', body: { key_id: 'key_01hzzzzzzzzzzzzzzzzzzzzzzz', hard_limit_micros: 1 }, status: 404 },
      { name: 'a read key', body: { hard_limit_micros: 1 }, status: 403, as: 'read' },
      { name: 'a test-mode key', body: { hard_limit_micros: 1 }, status: 403, as: 'test' },
    ],
  },
  'GET /v1/spend-caps': {
    operationId: 'listSpendCaps',
    description: `${CAPS} Lists the account cap (first, if set) and every key cap.`,
    responses: { 200: { description: 'The account\'s caps', schema: spendCapListView } },
    errors: [],
    examples: [
      { name: 'a read key', status: 200, as: 'read' },
      { name: 'no key', status: 401, as: 'none' },
    ],
  },
  'DELETE /v1/spend-caps': {
    operationId: 'deleteSpendCap',
    description: 'Removes the account cap, or with `key_id` that key\'s cap: its sends are no longer held by it. 404 when no such cap is set.',
    query: deleteSpendCapQuery,
    responses: { 204: { description: 'Removed' } },
    errors: ['not_found'],
    examples: [
      { name: 'a key cap', query: { key_id: '{{capped_key_id}}' }, status: 204 },
      { name: 'a key without a cap', query: { key_id: '{{spare_key_id}}' }, status: 404 },
      { name: 'a test-mode key', query: { key_id: '{{capped_key_id}}' }, status: 403, as: 'test' },
    ],
  },
};
