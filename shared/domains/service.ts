// Sending domains: register with the provider, publish-and-verify, delete, default sender name.
import { getAccount } from '../accounts/service';
import { accountPartition, keys } from '../db/keys';
import type { Store } from '../db/store';
import { domainOf } from '../email/address';
import { ApiError, ConditionFailedError, NotFoundError } from '../errors';
import type { Ids } from '../ids';
import type { Clock } from '../ports/clock';
import type { Dns } from '../ports/dns';
import type { SendingIdentities } from '../ports/identities';
import type { ObjectStore } from '../ports/object-store';
import type { Logger } from '../runtime/logger';
import {
  isFullyVerified,
  logoObjectKey,
  MAIL_FROM_LABEL,
  MAX_DOMAINS,
  normalizeDomain,
  recordsFor,
  sandboxDomainView,
  toDomainView,
  type DomainItem,
  type DomainView,
} from './model';

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

export interface DomainDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  identities: SendingIdentities;
  objects: ObjectStore;
  dns: Dns;
  logger: Logger;
  config: { sharedEmailSender: string; region: string };
}

const sandboxName = (deps: Pick<DomainDeps, 'config'>): string => domainOf(deps.config.sharedEmailSender);

export async function listDomains(deps: Pick<DomainDeps, 'store' | 'config'>, accountId: string): Promise<DomainView[]> {
  const account = await getAccount(deps.store, accountId);
  const items: DomainItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps.store.query({
      keyCondition: 'pk = :pk AND begins_with(sk, :prefix)',
      values: { ':pk': accountPartition(accountId), ':prefix': keys.domainPrefix },
      startKey,
    });
    items.push(...(page.items as unknown as DomainItem[]));
    startKey = page.lastKey;
  } while (startKey);
  items.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  return [sandboxDomainView(deps.config.sharedEmailSender, account?.created_at ?? ''), ...items.map(toDomainView)];
}

export async function getDomain(deps: Pick<DomainDeps, 'store' | 'config'>, accountId: string, domain: string): Promise<DomainView> {
  if (normalizeDomain(domain) === sandboxName(deps)) {
    const account = await getAccount(deps.store, accountId);
    return sandboxDomainView(deps.config.sharedEmailSender, account?.created_at ?? '');
  }
  return toDomainView(await getDomainItem(deps.store, accountId, domain));
}

export async function createDomain(deps: DomainDeps, accountId: string, input: string): Promise<DomainView> {
  const name = normalizeDomain(input);
  if (!name) throw new ApiError('invalid_request', 'domain: expected a domain name such as example.com');
  if (name === sandboxName(deps)) throw new ApiError('conflict', `${name} is the built-in sandbox domain`);
  const claim = keys.domainClaim(name);
  try {
    await deps.store.create({ ...claim, entity: 'domain_claim', account_id: accountId });
  } catch (error) {
    if (error instanceof ConditionFailedError) throw new ApiError('conflict', `${name} is already registered`, { cause: error });
    throw error;
  }
  const release = (): Promise<void> => deps.store.delete(claim, { expression: 'account_id = :me', values: { ':me': accountId } }).catch(() => undefined);
  // Every registered domain counts toward the limit, whatever its status.
  try {
    await deps.store.update(keys.account(accountId), {
      expression: 'ADD domain_count :one',
      condition: 'attribute_exists(pk) AND (attribute_not_exists(domain_count) OR domain_count < :max)',
      values: { ':one': 1, ':max': MAX_DOMAINS },
    });
  } catch (error) {
    await release();
    if (error instanceof ConditionFailedError) throw new ApiError('domain_limit_reached', `an account holds at most ${MAX_DOMAINS} domains`, { cause: error });
    throw error;
  }
  const uncount = (): Promise<unknown> =>
    deps.store.update(keys.account(accountId), { expression: 'ADD domain_count :minus', values: { ':minus': -1 } }).catch(() => undefined);
  const mailFrom = `${MAIL_FROM_LABEL}.${name}`;
  let tokens: string[];
  try {
    ({ dkimTokens: tokens } = await deps.identities.create(name, mailFrom));
  } catch (error) {
    await Promise.all([release(), uncount()]);
    throw error;
  }
  const now = deps.clock.now().toISOString();
  const item: DomainItem = {
    ...keys.domain(accountId, name),
    entity: 'domain',
    id: deps.ids.next('dom'),
    account_id: accountId,
    domain: name,
    dkim_tokens: tokens,
    dkim_status: 'pending',
    spf_status: 'pending',
    dmarc_status: 'pending',
    txt_status: 'pending',
    mail_from_domain: mailFrom,
    dns_records: recordsFor(name, tokens, deps.config.region),
    from_name: null,
    created_at: now,
    updated_at: now,
  };
  await deps.store.put(item);
  return toDomainView(item);
}

export async function deleteDomain(deps: DomainDeps, accountId: string, input: string): Promise<void> {
  if (normalizeDomain(input) === sandboxName(deps)) throw new ApiError('cannot_delete_sandbox', 'the built-in sandbox domain cannot be deleted');
  const item = await getDomainItem(deps.store, accountId, input);
  await deps.identities.remove(item.domain);
  await deps.objects.delete(logoObjectKey(accountId, item.domain));
  try {
    await deps.store.delete(keys.domain(accountId, item.domain), { expression: 'attribute_exists(pk)' });
  } catch (error) {
    if (error instanceof ConditionFailedError) throw new NotFoundError('domain'); // deleted meanwhile
    throw error;
  }
  await deps.store.delete(keys.domainClaim(item.domain), { expression: 'account_id = :me', values: { ':me': accountId } }).catch(() => undefined);
  await deps.store.update(keys.account(accountId), { expression: 'ADD domain_count :minus', values: { ':minus': -1 } });
}

export async function setFromName(deps: Pick<DomainDeps, 'store' | 'clock'>, accountId: string, input: string, fromName: string): Promise<{ domain: string; from_name: string | null }> {
  const item = await getDomainItem(deps.store, accountId, input);
  const value = fromName.trim() === '' ? null : fromName.trim();
  await deps.store.update(keys.domain(accountId, item.domain), {
    expression: 'SET from_name = :name, updated_at = :now',
    condition: 'attribute_exists(pk)',
    values: { ':name': value, ':now': deps.clock.now().toISOString() },
  });
  return { domain: item.domain, from_name: value };
}

/** The account's registered domains, for the send path's sender rules. */
export async function accountDomains(store: Store, accountId: string): Promise<DomainItem[]> {
  const { items } = await store.query({
    keyCondition: 'pk = :pk AND begins_with(sk, :prefix)',
    values: { ':pk': accountPartition(accountId), ':prefix': keys.domainPrefix },
    limit: MAX_DOMAINS + 1,
  });
  return items as unknown as DomainItem[];
}

export async function domainCounts(store: Store, accountId: string): Promise<{ registered: number; verified: number }> {
  const domains = await accountDomains(store, accountId);
  return { registered: domains.length, verified: domains.filter(isFullyVerified).length };
}
