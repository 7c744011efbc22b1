// Sending domains for tests: the item POST /v1/domains would store, built without I/O, and a
// fully verified one written straight to the store for tests about sending rather than verifying.
import { keys } from '../../shared/db/keys';
import { recordsFor, type DomainItem } from '../../shared/domains/model';
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

/** Writes a fully verified domain and its deployment-wide claim. */
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
  await c.store.put(item);
  await c.store.put({ ...keys.domainClaim(domain), entity: 'domain_claim', account_id: accountId });
  return item;
}
