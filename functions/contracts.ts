// Every route's contract (shared/http/contract.ts), by route key: what the OpenAPI document is
// built from. Each area keeps its own beside its route table, in functions/<area>/contract.ts.
import type { Contracts } from '../shared/http/contract';
import { contracts as account } from './account/contract';
import { contracts as admin } from './admin/contract';
import { contracts as auth } from './auth/contract';
import { contracts as billing } from './billing/contract';
import { contracts as bimi } from './bimi/contract';
import { contracts as broadcasts } from './broadcasts/contract';
import { contracts as consolePage } from './console-page/contract';
import { contracts as contacts } from './contacts/contract';
import { contracts as docs } from './docs/contract';
import { contracts as domains } from './domains/contract';
import { contracts as forms } from './forms/contract';
import { contracts as inboundRoutes } from './inbound-routes/contract';
import { contracts as keys } from './keys/contract';
import { contracts as mail } from './mail/contract';
import { contracts as mailPage } from './mail-page/contract';
import { contracts as messages } from './messages/contract';
import { contracts as send } from './send/contract';
import { contracts as snippets } from './snippets/contract';
import { contracts as spendCaps } from './spend-caps/contract';
import { contracts as inbound } from './inbound/contract';
import { contracts as suppressions } from './suppressions/contract';
import { contracts as templateGallery } from './template-gallery/contract';
import { contracts as templateRender } from './template-render/contract';
import { contracts as templates } from './templates/contract';
import { contracts as testRecipients } from './test-recipients/contract';
import { contracts as unsubscribe } from './unsubscribe/contract';
import { contracts as uploads } from './uploads/contract';
import { contracts as webhooks } from './webhooks/contract';

export const contracts: Contracts = {
  ...account,
  ...admin,
  ...auth,
  ...billing,
  ...bimi,
  ...broadcasts,
  ...consolePage,
  ...contacts,
  ...docs,
  ...domains,
  ...forms,
  ...inboundRoutes,
  ...keys,
  ...mail,
  ...mailPage,
  ...messages,
  ...send,
  ...snippets,
  ...spendCaps,
  ...inbound,
  ...suppressions,
  ...templateGallery,
  ...templateRender,
  ...templates,
  ...testRecipients,
  ...unsubscribe,
  ...uploads,
  ...webhooks,
};
