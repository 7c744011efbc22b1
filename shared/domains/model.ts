// Sending domains: the records a domain must publish, the rules on names, and the wire forms.
import { domainOf } from '../formats/address';
import type { DnsRecord, DomainItem } from './repository';
import type { DomainView } from './schemas';

// The stored shapes live with the repository; callers keep importing them from here.
export type { DnsRecord, DomainItem, VerificationStatus } from './repository';

/** The wire form of a domain: inferred from its zod shape in ./schemas. */
export type { DomainView } from './schemas';

export const MAX_DOMAINS = 100;
export const MAIL_FROM_LABEL = 'send';

/** The records a domain publishes: 3 DKIM CNAMEs, MAIL FROM MX and SPF, a starter DMARC. */
export function recordsFor(domain: string, dkimTokens: readonly string[], region: string): DnsRecord[] {
  const mailFrom = `${MAIL_FROM_LABEL}.${domain}`;
  return [
    ...dkimTokens.map((token): DnsRecord => ({ type: 'CNAME', name: `${token}._domainkey.${domain}`, value: `${token}.dkim.amazonses.com` })),
    { type: 'MX', name: mailFrom, value: `10 feedback-smtp.${region}.amazonses.com` },
    { type: 'TXT', name: mailFrom, value: 'v=spf1 include:amazonses.com ~all' },
    { type: 'TXT', name: `_dmarc.${domain}`, value: `v=DMARC1; p=none; rua=mailto:dmarc-reports@${domain}` },
  ];
}

/** DKIM, SPF and DMARC verified, and the ownership record too where the domain lists one (shared/domains/claims.ts). */
export const isFullyVerified = (d: Pick<DomainItem, 'dkim_status' | 'spf_status' | 'dmarc_status'> & { ownership_status?: DomainItem['ownership_status'] }): boolean =>
  d.dkim_status === 'verified' && d.spf_status === 'verified' && d.dmarc_status === 'verified' && (d.ownership_status === undefined || d.ownership_status === 'verified');

export function toDomainView(d: DomainItem): DomainView {
  return {
    id: d.id,
    domain: d.domain,
    dkim_status: d.dkim_status,
    spf_status: d.spf_status,
    dmarc_status: d.dmarc_status,
    txt_status: d.txt_status,
    dns_records: d.dns_records,
    mail_from_domain: d.mail_from_domain,
    from_name: d.from_name ?? null,
    open_tracking: d.open_tracking ?? false,
    click_tracking: d.click_tracking ?? false,
    sandbox: false,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

/** The built-in sandbox domain every account has: the shared sender's domain, always verified. */
export function sandboxDomainView(sharedSender: string, accountCreatedAt: string): DomainView {
  return {
    id: 'dom_sandbox',
    domain: domainOf(sharedSender),
    dkim_status: 'verified',
    spf_status: 'verified',
    dmarc_status: 'verified',
    txt_status: 'verified',
    dns_records: [],
    mail_from_domain: '',
    from_name: null,
    open_tracking: false,
    click_tracking: false,
    sandbox: true,
    created_at: accountCreatedAt,
    updated_at: accountCreatedAt,
  };
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Lower-cased, no trailing dot; undefined unless it is a plausible registrable host name. */
export function normalizeDomain(input: string): string | undefined {
  const name = input.trim().toLowerCase().replace(/\.$/, '');
  if (name.length > 253 || name.length === 0) return undefined;
  const labels = name.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels[labels.length - 1] as string)) return undefined;
  return name;
}

/** Where a domain's uploaded BIMI logo is kept in the object store. */
export const logoObjectKey = (accountId: string, domain: string): string => `bimi/${accountId}/${domain}.svg`;
