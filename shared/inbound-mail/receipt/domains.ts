// Which account receives mail for a domain name, when inbound is on for it. The domain item's
// `inbound_enabled` flag is written by POST /v1/domains/{id}/inbound (shared/domains); absent is off.
import { DomainRepository } from '../../domains/repository';
import type { Store } from '../../db/store';

export interface InboundDomain {
  accountId: string;
  domain: string;
}

export async function inboundDomainOf(store: Store, domainName: string): Promise<InboundDomain | undefined> {
  const holder = await domainHolderOf(store, domainName);
  return holder && (await inboundIsOn(store, holder)) ? holder : undefined;
}

/** The account that holds a domain name (inbound on or not): the first of inboundDomainOf's two reads. */
export async function domainHolderOf(store: Store, domainName: string): Promise<InboundDomain | undefined> {
  const domain = domainName.trim().toLowerCase().replace(/\.$/, '');
  if (!domain) return undefined;
  const claim = await new DomainRepository(store).claimOf(domain);
  return claim ? { accountId: claim.account_id, domain } : undefined;
}

/** Whether the holder's domain item has inbound on: the second read, which may go beside others of the account. */
export async function inboundIsOn(store: Store, holder: InboundDomain): Promise<boolean> {
  const item = (await new DomainRepository(store).get(holder.accountId, holder.domain)) as (Record<string, unknown> & { inbound_enabled?: unknown }) | undefined;
  return item?.inbound_enabled === true;
}

/** The domain part of an address, lowercased; undefined when there is none. */
export function domainOfAddress(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  return at > 0 && at < address.length - 1 ? address.slice(at + 1).toLowerCase() : undefined;
}
