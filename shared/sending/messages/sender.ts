// Who a message may come from and, in sandbox mode, go to: rule 3 and rule 4 of the spec's send
// rules, decided once per request from the account's domains.
import { ownerUnverified, type AccountItem } from '../../accounts/service';
import type { Store } from '../../db/store';
import { isFullyVerified, type DomainItem } from '../../domains/model';
import { accountDomains } from '../../domains/service';
import { domainOf, formatMailbox, normalizeAddress, parseMailbox } from '../../formats/address';
import { ApiError } from '../../errors';
import { isVerifiedTestRecipient } from '../test-recipients/sandbox';

export interface SenderContext {
  account: AccountItem;
  sharedSender: string;
  /** No fully verified domain of its own: mail goes only from the shared sender to known addresses. */
  sandboxMode: boolean;
  domains: Map<string, DomainItem>;
  testRecipients: Map<string, Promise<boolean>>;
  store: Store;
  /** The sends are a broadcast's fan-out: tracking follows the domain's settings (shared/sending/tracking/choice.ts). */
  bulk?: boolean;
}

export async function loadSenderContext(store: Store, account: AccountItem, sharedSender: string): Promise<SenderContext> {
  const domains = await accountDomains(store, account.id);
  return {
    account,
    sharedSender,
    // Sign-up accounts stay in sandbox mode until their owner verifies their address.
    sandboxMode: ownerUnverified(account) || !domains.some(isFullyVerified),
    domains: new Map(domains.map((d) => [d.domain, d])),
    testRecipients: new Map(),
    store,
  };
}

/** A display name of the account's own on the shared sender (docs/api-decisions.md, issue 28). */
export const sharedSenderNamed = (sharedSender: string): ApiError =>
  new ApiError(
    'invalid_request',
    `metadata.from_email: the shared sender ${sharedSender} takes no display name of your choosing; omit the name (or from_email), or send from a verified domain of your own, where the name is yours to set`,
  );

/** The RFC 5322 sender of one send, or the error the spec names for it. */
export function resolveSender(ctx: SenderContext, fromEmail: unknown): string {
  let mailbox: ReturnType<typeof parseMailbox>;
  if (fromEmail !== undefined) {
    mailbox = typeof fromEmail === 'string' ? parseMailbox(fromEmail) : undefined;
    if (!mailbox) throw new ApiError('invalid_request', 'metadata.from_email: expected an address or "Name <address>"');
  }
  const configured = parseMailbox(ctx.sharedSender);
  const shared = normalizeAddress(configured?.address ?? ctx.sharedSender);
  if (ctx.sandboxMode) {
    if (!mailbox) return ctx.sharedSender;
    if (mailbox.address === shared) {
      // The shared sender speaks for the deployment, to every tenant's recipients: a name of the
      // account's choosing ("PayPal Security") would lend it any identity, so only its own name goes.
      if (mailbox.name !== undefined && mailbox.name !== configured?.name) throw sharedSenderNamed(ctx.sharedSender);
      return ctx.sharedSender;
    }
    if (ownerUnverified(ctx.account)) {
      throw new ApiError('no_verified_domain', 'verify your email address first; until then omit metadata.from_email');
    }
    if (ctx.domains.has(domainOf(mailbox.address))) {
      throw new ApiError('domain_not_verified', `${domainOf(mailbox.address)} is registered but its DNS records are not verified yet`);
    }
    throw new ApiError('no_verified_domain', 'sending from your own address needs a verified domain; until then omit metadata.from_email to send from the shared sender');
  }
  if (!mailbox) throw new ApiError('from_required', 'metadata.from_email is required once the account has a verified domain');
  const domain = ctx.domains.get(domainOf(mailbox.address));
  if (!domain) throw new ApiError('from_not_verified', `${domainOf(mailbox.address)} is not a verified sending domain of this account`);
  if (!isFullyVerified(domain)) throw new ApiError('domain_not_verified', `${domain.domain} is registered but its DNS records are not verified yet`);
  // A display name in from_email wins for this send; otherwise the domain's default, if any.
  return formatMailbox({ address: mailbox.address, name: mailbox.name ?? domain.from_name ?? undefined });
}

export type SandboxRecipient = 'unrestricted' | 'account_address' | 'test_recipient';

/**
 * In sandbox mode live mail goes only to the account's own address or a verified test recipient.
 * Test-mode keys send nothing, so they are not held to it.
 */
export async function checkSandboxRecipient(ctx: SenderContext, recipient: string, testMode: boolean): Promise<SandboxRecipient> {
  if (!ctx.sandboxMode || testMode) return 'unrestricted';
  if (ctx.account.email && recipient === normalizeAddress(ctx.account.email)) return 'account_address';
  const verified = ctx.testRecipients.get(recipient) ?? isVerifiedTestRecipient(ctx.store, ctx.account.id, recipient);
  ctx.testRecipients.set(recipient, verified);
  if (await verified) return 'test_recipient';
  throw new ApiError('recipient_not_verified', `in sandbox mode mail goes only to the account address or a verified test recipient; ${recipient} is neither`);
}
