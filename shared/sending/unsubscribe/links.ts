// What a marketing message carries so its recipient can leave: the https link (the body's
// `{{ unsubscribe_url }}` and the List-Unsubscribe header) and the RFC 8058 one-click header. The
// link is built on the configured public origin (PUBLIC_BASE_URL), never a request's Host.
import { domainOf, parseMailbox } from '../../formats/address';
import type { MailHeader } from '../../ports/mailer';
import type { Secrets } from '../../ports/secrets';
import { unsubscribeToken, type UnsubscribeRef } from './token';

/** The secret unsubscribe tokens are keyed with; the functions that make or check links need it. */
export const UNSUBSCRIBE_SECRET = 'unsubscribe-signing-key';

export interface LinkDeps {
  secrets: Pick<Secrets, 'get'>;
  config: { publicBaseUrl?: string };
}

function baseUrlOf(deps: LinkDeps): string {
  // A plain error (500): a function that makes links without an origin is misconfigured.
  if (!deps.config.publicBaseUrl) throw new Error('PUBLIC_BASE_URL is not configured for this function; the unsubscribe link cannot be built');
  return deps.config.publicBaseUrl;
}

function linkOf(deps: LinkDeps, ref: UnsubscribeRef): { token: string; url: string } {
  const token = unsubscribeToken(deps.secrets.get(UNSUBSCRIBE_SECRET), ref);
  return { token, url: `${baseUrlOf(deps)}/v1/unsubscribe/${token}` };
}

export const unsubscribeUrl = (deps: LinkDeps, ref: UnsubscribeRef): string => linkOf(deps, ref).url;

/**
 * `List-Unsubscribe: <https link>, <mailto:unsub+token@sender domain>` and
 * `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 2369, RFC 8058). The mailto goes to the
 * sending domain, the one domain of the message that is the account's: Postbox reads nothing
 * mailed there yet (inbound mail is a later issue), so the https link is the one that acts.
 */
export function unsubscribeHeaders(deps: LinkDeps, ref: UnsubscribeRef, from: string): MailHeader[] {
  const { token, url } = linkOf(deps, ref);
  const links = [`<${url}>`];
  const sender = parseMailbox(from);
  if (sender) links.push(`<mailto:unsub+${token}@${domainOf(sender.address)}?subject=unsubscribe>`);
  return [
    { name: 'List-Unsubscribe', value: links.join(', ') },
    { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
  ];
}
