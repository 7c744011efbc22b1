// Every route's contract (shared/http/contract.ts), by route key: what the OpenAPI document is
// built from. Each area keeps its own beside its route table, in functions/<area>/contract.ts.
import type { Contracts } from '../shared/http/contract';
import { contracts as account } from './account/contract';
import { contracts as admin } from './admin/contract';
import { contracts as broadcasts } from './broadcasts/contract';
import { contracts as docs } from './docs/contract';
import { contracts as keys } from './keys/contract';
import { contracts as webhooks } from './webhooks/contract';

export const contracts: Contracts = {
  ...account,
  ...admin,
  ...broadcasts,
  ...docs,
  ...keys,
  ...webhooks,
};
