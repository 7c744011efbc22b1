// Sending domains: register with the provider, publish-and-verify, delete, default sender name.
import { keys } from '../db/keys';
import type { Store } from '../db/store';
import { NotFoundError } from '../errors';
import { normalizeDomain, type DomainItem } from './model';

/** The account's domain by name (any case, trailing dot allowed); 404 for anything else. */
export async function getDomainItem(store: Store, accountId: string, domain: string): Promise<DomainItem> {
  const name = normalizeDomain(domain);
  const item = name ? await store.get<DomainItem>(keys.domain(accountId, name)) : undefined;
  if (!item) throw new NotFoundError('domain');
  return item;
}

/** Which account holds a domain name, across the deployment. */
export async function findDomainOwner(store: Store, domain: string): Promise<{ account_id: string } | undefined> {
  const name = normalizeDomain(domain);
  return name ? store.get<{ account_id: string }>(keys.domainClaim(name)) : undefined;
}
