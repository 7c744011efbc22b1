// Which account receives mail for a domain name, when inbound is on for it. The domain item's
// `inbound_enabled` flag is written by POST /v1/domains/{id}/inbound (shared/domains); absent is off.
import { DomainRepository } from '../../domains/repository';
import type { Store } from '../../db/store';

export interface InboundDomain {
  accountId: string;
  domain: string;
}

export async function inboundDomainOf(store: Store, domainName: string): Promise<InboundDomain | undefined> {
  const domain = domainName.trim().toLowerCase().replace(/\.$/, '');
  if (!domain) return undefined;
  const repo = new DomainRepository(store);
  const claim = await repo.claimOf(domain);
  if (!claim) return undefined;
  const item = (await repo.get(claim.account_id, domain)) as (Record<string, unknown> & { inbound_enabled?: unknown }) | undefined;
  return item?.inbound_enabled === true ? { accountId: claim.account_id, domain } : undefined;
}

/** The domain part of an address, lowercased; undefined when there is none. */
export function domainOfAddress(address: string): string | undefined {
  const at = address.lastIndexOf('@');
  return at > 0 && at < address.length - 1 ? address.slice(at + 1).toLowerCase() : undefined;
}
