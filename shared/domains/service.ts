// Sending domains: register with the provider, publish-and-verify, delete, default sender name.
import { getAccount } from '../accounts/service';
import type { Store } from '../db/store';
import { domainOf } from '../formats/address';
import { ApiError, NotFoundError } from '../errors';
import type { Ids } from '../ports/ids';
import type { Clock } from '../ports/clock';
import type { Dns } from '../ports/dns';
import type { SendingIdentities } from '../ports/identities';
import type { ObjectStore } from '../ports/object-store';
import type { Logger } from '../ports/logger';
import { claimStanding, ownershipRecord, pendingUntil } from './claims';
import { DomainClaimRepository } from './claims-repository';
import { buildDnsGuide, type DnsGuide } from './dns-guide';
import { isFullyVerified, logoObjectKey, MAIL_FROM_LABEL, MAX_DOMAINS, normalizeDomain, recordsFor, sandboxDomainView, toDomainView, type DomainView } from './model';
import { DomainRepository, type DomainItem } from './repository';
import { renderZoneFile } from './zone-file';

/** The account's domain by name (any case, trailing dot allowed); 404 for anything else. */
export async function getDomainItem(store: Store, accountId: string, domain: string): Promise<DomainItem> {
  const name = normalizeDomain(domain);
  const item = name ? await new DomainRepository(store).get(accountId, name) : undefined;
  if (!item) throw new NotFoundError('domain');
  return item;
}

/** Which account holds a domain name, across the deployment. */
export async function findDomainOwner(store: Store, domain: string): Promise<{ account_id: string } | undefined> {
  const name = normalizeDomain(domain);
  return name ? new DomainRepository(store).claimOf(name) : undefined;
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
  const items = await new DomainRepository(deps.store).listAll(accountId);
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

/** The setup guide for the account's domain: its DNS host and the records as that host asks for them. */
export async function getDnsGuide(deps: Pick<DomainDeps, 'store' | 'dns'>, accountId: string, domain: string): Promise<DnsGuide> {
  return buildDnsGuide(deps, await getDomainItem(deps.store, accountId, domain));
}

/** The account's domain's records as a zone file fragment. */
export async function getZoneFile(deps: Pick<DomainDeps, 'store'>, accountId: string, domain: string): Promise<string> {
  return renderZoneFile(await getDomainItem(deps.store, accountId, domain));
}

/**
 * How a registration stands toward the name's claim: it takes a free name (or its own claim left
 * by a crash) or an expired one as the holder, or it joins a pending one as a contender; a name
 * registered here already or verified by another account is 409.
 */
async function claimForRegistration(deps: DomainDeps, domains: DomainRepository, accountId: string, name: string): Promise<{ role: 'holder' | 'contender'; took: boolean; freshIdentity: boolean }> {
  const conflict = (why: string): ApiError => new ApiError('conflict', `${name} ${why}`);
  if (await domains.get(accountId, name)) throw conflict('is already registered on this account');
  const nowMs = deps.clock.now().getTime();
  const claim = await claimStanding(domains, name, nowMs);
  const claims = new DomainClaimRepository(deps.store);
  if (!claim) {
    if (!(await claims.claim(accountId, name, pendingUntil(nowMs)))) throw conflict('was registered by another account a moment ago; try again');
    return { role: 'holder', took: true, freshIdentity: false };
  }
  if (claim.holder === accountId) return { role: 'holder', took: false, freshIdentity: false };
  if (claim.state === 'verified') throw conflict('is registered and verified by another account');
  if (claim.expired) {
    if (!(await claims.takeExpired(accountId, name, claim.seen, pendingUntil(nowMs)))) throw conflict('changed hands a moment ago; try again');
    // The old holder never verified: a new identity (new DKIM tokens) leaves its records worthless.
    return { role: 'holder', took: true, freshIdentity: true };
  }
  if (!(await claims.contest(name, claim.seen))) throw conflict('changed hands a moment ago; try again');
  return { role: 'contender', took: false, freshIdentity: false };
}

export async function createDomain(deps: DomainDeps, accountId: string, input: string): Promise<DomainView> {
  const name = normalizeDomain(input);
  if (!name) throw new ApiError('invalid_request', 'domain: expected a domain name such as example.com');
  if (name === sandboxName(deps)) throw new ApiError('conflict', `${name} is the built-in sandbox domain`);
  const domains = new DomainRepository(deps.store);
  const { role, took, freshIdentity } = await claimForRegistration(deps, domains, accountId, name);
  // Undoing a half-done registration is best effort: the error worth answering is the first one.
  const release = async (): Promise<void> => {
    if (took) await domains.release(accountId, name).catch((error: unknown) => deps.logger.warn('domain claim left behind', { domain: name, accountId, error }));
  };
  const uncount = (): Promise<void> =>
    domains.uncountDomain(accountId).catch((error: unknown) => deps.logger.warn('domain count left one too high', { accountId, error }));
  let counted: boolean;
  try {
    counted = await domains.countDomain(accountId, MAX_DOMAINS);
  } catch (error) {
    await release();
    throw error;
  }
  if (!counted) {
    await release();
    throw new ApiError('domain_limit_reached', `an account holds at most ${MAX_DOMAINS} domains`);
  }
  const mailFrom = `${MAIL_FROM_LABEL}.${name}`;
  let tokens: string[];
  try {
    if (freshIdentity) await deps.identities.remove(name);
    ({ dkimTokens: tokens } = await deps.identities.create(name, mailFrom));
  } catch (error) {
    await Promise.all([release(), uncount()]);
    throw error;
  }
  const now = deps.clock.now().toISOString();
  // A contender proves the name is its own with one more TXT record (claims.ts).
  const records = [...recordsFor(name, tokens, deps.config.region), ...(role === 'contender' ? [ownershipRecord(accountId, name)] : [])];
  const item = await domains.put({
    id: deps.ids.next('dom'),
    account_id: accountId,
    domain: name,
    dkim_tokens: tokens,
    dkim_status: 'pending',
    spf_status: 'pending',
    dmarc_status: 'pending',
    txt_status: 'pending',
    ...(role === 'contender' ? { ownership_status: 'pending' as const } : {}),
    mail_from_domain: mailFrom,
    dns_records: records,
    from_name: null,
    created_at: now,
    updated_at: now,
  });
  return toDomainView(item);
}

/**
 * Removes the account's domain. The holder of the name's claim also removes the provider identity
 * and frees the name; another account's registration (a contender's, or one whose claim was
 * taken) only goes: the identity is the holder's.
 */
export async function deleteDomain(deps: DomainDeps, accountId: string, input: string): Promise<void> {
  if (normalizeDomain(input) === sandboxName(deps)) throw new ApiError('cannot_delete_sandbox', 'the built-in sandbox domain cannot be deleted');
  const item = await getDomainItem(deps.store, accountId, input);
  const domains = new DomainRepository(deps.store);
  const holds = (await domains.claimOf(item.domain))?.account_id === accountId;
  if (holds) await deps.identities.remove(item.domain);
  await deps.objects.delete(logoObjectKey(accountId, item.domain));
  if (!(await domains.remove(accountId, item.domain))) throw new NotFoundError('domain'); // deleted meanwhile
  if (holds) await domains.release(accountId, item.domain).catch((error: unknown) => deps.logger.warn('domain claim left behind', { domain: item.domain, accountId, error }));
  await domains.uncountDomain(accountId);
}

export async function setFromName(deps: Pick<DomainDeps, 'store' | 'clock'>, accountId: string, input: string, fromName: string): Promise<{ domain: string; from_name: string | null }> {
  const item = await getDomainItem(deps.store, accountId, input);
  const value = fromName.trim() === '' ? null : fromName.trim();
  if (!(await new DomainRepository(deps.store).setFromName(accountId, item.domain, value, deps.clock.now().toISOString()))) {
    throw new NotFoundError('domain'); // deleted meanwhile
  }
  return { domain: item.domain, from_name: value };
}

/** PATCH /v1/domains/{domain}: the tracking switches sent change; the domain as it now stands. */
export async function updateDomainSettings(
  deps: Pick<DomainDeps, 'store' | 'clock'>,
  accountId: string,
  input: string,
  settings: { open_tracking?: boolean; click_tracking?: boolean },
): Promise<DomainView> {
  const item = await getDomainItem(deps.store, accountId, input);
  const now = deps.clock.now().toISOString();
  if (!(await new DomainRepository(deps.store).setTracking(accountId, item.domain, settings, now))) throw new NotFoundError('domain'); // deleted meanwhile
  const defined = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
  return toDomainView({ ...item, ...defined, updated_at: now });
}

/** The account's registered domains, for the send path's sender rules. */
export async function accountDomains(store: Store, accountId: string): Promise<DomainItem[]> {
  return new DomainRepository(store).listAll(accountId);
}

export async function domainCounts(store: Store, accountId: string): Promise<{ registered: number; verified: number }> {
  const domains = await accountDomains(store, accountId);
  return { registered: domains.length, verified: domains.filter(isFullyVerified).length };
}
