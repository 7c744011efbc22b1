// Sending domains for tests: the item POST /v1/domains would store, built without I/O, and a
// fully verified one written through the domain repositories for tests about sending rather than
// verifying (no DNS check, no identity).
import { DomainClaimRepository } from '../../shared/domains/claims-repository';
import { keys } from '../../shared/db/keys';
import { recordsFor, type DomainItem } from '../../shared/domains/model';
import { DomainRepository } from '../../shared/domains/repository';
import type { TestContainer } from './container';

/** A domain item with its 6 records; pending unless `overrides` says otherwise. */
export function domainItemFor(accountId: string, domain: string, overrides: Partial<DomainItem> & { tokens?: string[] } = {}): DomainItem {
  const { tokens = ['tok1', 'tok2', 'tok3'], ...rest } = overrides;
  const at = '2026-03-01T12:00:00.000Z';
  return {
    ...keys.domain(accountId, domain),
    entity: 'domain',
    id: `dom_${domain.replace(/\W/g, '')}`,
    account_id: accountId,
    domain,
    dkim_tokens: tokens,
    dkim_status: 'pending',
    spf_status: 'pending',
    dmarc_status: 'pending',
    txt_status: 'pending',
    mail_from_domain: `send.${domain}`,
    dns_records: recordsFor(domain, tokens, 'us-east-1'),
    created_at: at,
    updated_at: at,
    ...rest,
  };
}

const VERIFIED = { dkim_status: 'verified', spf_status: 'verified', dmarc_status: 'verified', txt_status: 'verified' } as const;

/** Writes a domain item (`domainItemFor`) as the repository stores it, without its claim. */
export function putDomain(c: TestContainer, item: DomainItem): Promise<DomainItem> {
  return new DomainRepository(c.store).put(item);
}

/** Writes a fully verified domain and its deployment-wide claim, taken from whichever account held the name. */
export async function giveVerifiedDomain(c: TestContainer, accountId: string, domain = 'acme.test', extra: Partial<DomainItem> = {}): Promise<DomainItem> {
  const now = c.clock.now().toISOString();
  const item = domainItemFor(accountId, domain, {
    ...VERIFIED,
    id: c.ids.next('dom'),
    tokens: ['tok1', 'tok2', 'tok3'].map((t) => `${t}${domain.replace(/\W/g, '')}`),
    from_name: null,
    verified_at: now,
    created_at: now,
    updated_at: now,
    ...extra,
  });
  const domains = new DomainRepository(c.store);
  await domains.put(item);
  const held = await domains.claimOf(domain);
  if (!(await new DomainClaimRepository(c.store).win(accountId, domain, held))) throw new Error(`the claim on ${domain} changed while a test took it`);
  return item;
}
