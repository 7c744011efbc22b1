// The one list of functions and their triggers. The CDK stack and the local runtime both iterate
// it, so a route exists in both runtimes or in neither. Data only: it must never import handler code.
// Each area declares its functions in functions/<area>/definition.ts; this is their one list.
import type { FunctionDef, HttpRoute } from '../shared/platform';
import { keys } from './keys/definition';
import { send, sendWorker, acceptanceSweep } from './send/definition';
import { messages } from './messages/definition';
import { suppressions } from './suppressions/definition';
import { sesEvents } from './events/definition';
import { domains } from './domains/definition';
import { bimi } from './bimi/definition';
import { testRecipients } from './test-recipients/definition';
import { webhooks, webhookWorker } from './webhooks/definition';
import { inboundRoutes } from './inbound-routes/definition';
import { templates } from './templates/definition';
import { inbound, receiveEmail } from './inbound/definition';
import { mail } from './mail/definition';
import { mailSend } from './mail-send/definition';
import { broadcasts, broadcastFanOut } from './broadcasts/definition';
import { account } from './account/definition';
import { spendCaps } from './spend-caps/definition';
import { billing } from './billing/definition';
import { auth } from './auth/definition';
import { admin } from './admin/definition';
import { templateRender } from './template-render/definition';
import { templateGallery } from './template-gallery/definition';
import { snippets } from './snippets/definition';
import { contacts } from './contacts/definition';
import { uploads, contactImport } from './uploads/definition';
import { unsubscribe } from './unsubscribe/definition';
import { forms } from './forms/definition';
import { docs } from './docs/definition';
import { mailPage } from './mail-page/definition';
import { consolePage } from './console-page/definition';
import { fallback } from './fallback/definition';

export const functions: readonly FunctionDef[] = [
  keys,
  send,
  sendWorker,
  acceptanceSweep,
  messages,
  suppressions,
  sesEvents,
  domains,
  bimi,
  testRecipients,
  webhooks,
  inboundRoutes,
  templates,
  webhookWorker,
  inbound,
  mail,
  mailSend,
  receiveEmail,
  broadcasts,
  broadcastFanOut,
  account,
  spendCaps,
  billing,
  auth,
  admin,
  templateRender,
  templateGallery,
  snippets,
  contacts,
  uploads,
  contactImport,
  unsubscribe,
  forms,
  docs,
  mailPage,
  consolePage,
  fallback,
];

export function httpRoutes(): Array<HttpRoute & { fn: FunctionDef }> {
  return functions.flatMap((fn) => (fn.http ?? []).map((route) => ({ ...route, fn })));
}

/** A function of the manifest by name; an entry file names its own. */
export function functionNamed(name: string): FunctionDef {
  const found = functions.find((f) => f.name === name);
  if (!found) throw new Error(`function ${name} is not in the manifest`);
  return found;
}
