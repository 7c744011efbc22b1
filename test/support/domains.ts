// A fully verified sending domain written straight to the store, for tests about sending rather
// than about verifying.
import { keys } from '../../shared/db/keys';
import { recordsFor, type DomainItem } from '../../shared/domains/model';
import type { TestContainer } from './container';

export async function giveVerifiedDomain(c: TestContainer, accountId: string, domain = 'acme.test', extra: Partial<DomainItem> = {}): Promise<DomainItem> {
  const now = c.clock.now().toISOString();
  const tokens = ['tok1', 'tok2', 'tok3'].map((t) => `${t}${domain.replace(/\W/g, '')}`);
  const item: DomainItem = {
    ...keys.domain(accountId, domain),
    entity: 'domain',
    id: c.ids.next('dom'),
    account_id: accountId,
    domain,
    dkim_tokens: tokens,
    dkim_status: 'verified',
    spf_status: 'verified',
    dmarc_status: 'verified',
    txt_status: 'verified',
    mail_from_domain: `send.${domain}`,
    dns_records: recordsFor(domain, tokens, 'us-east-1'),
    from_name: null,
    verified_at: now,
    created_at: now,
    updated_at: now,
    ...extra,
  };
  await c.store.put(item);
  await c.store.put({ ...keys.domainClaim(domain), entity: 'domain_claim', account_id: accountId });
  return item;
}
