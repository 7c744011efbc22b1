// The DNS setup guide: where the domain's zone lives, who hosts it (from its NS records), and the
// records to publish written the way that provider's dashboard asks for them.
import { RetryableError } from '../errors';
import type { Dns } from '../ports/dns';
import type { DomainItem } from './repository';
import type { DnsGuide, DnsProvider } from './schemas';

// The wire forms are inferred from their zod shapes in ./schemas.
export type { DnsGuide, DnsGuideRecord, DnsProvider } from './schemas';

interface ProviderEntry extends DnsProvider {
  /** Matched against each name server host, lower-cased and without the trailing dot. */
  nameServers: readonly RegExp[];
}

/** Known DNS hosts, matched in order by the zone's name servers. */
export const DNS_PROVIDERS: readonly ProviderEntry[] = [
  {
    id: 'cloudflare',
    name: 'Cloudflare',
    nameServers: [/\.ns\.cloudflare\.com$/],
    docs_url: 'https://developers.cloudflare.com/dns/manage-dns-records/how-to/create-dns-records/',
    dashboard_url: 'https://dash.cloudflare.com/',
    supports_api: false,
    unproxy_hint: true,
    record_name_label: 'Name',
    record_value_label: 'Content',
  },
  {
    id: 'route53',
    name: 'Amazon Route 53',
    nameServers: [/(^|\.)awsdns-\d+\./],
    docs_url: 'https://docs.aws.amazon.com/Route53/latest/DeveloperGuide/resource-record-sets-creating.html',
    dashboard_url: 'https://console.aws.amazon.com/route53/v2/hostedzones',
    supports_api: true,
    unproxy_hint: false,
    record_name_label: 'Record name',
    record_value_label: 'Value',
  },
  {
    id: 'godaddy',
    name: 'GoDaddy',
    nameServers: [/(^|\.)domaincontrol\.com$/],
    docs_url: 'https://www.godaddy.com/help/manage-dns-records-680',
    dashboard_url: 'https://dcc.godaddy.com/control/portfolio',
    supports_api: false,
    unproxy_hint: false,
    record_name_label: 'Name',
    record_value_label: 'Value',
  },
  {
    id: 'namecheap',
    name: 'Namecheap',
    nameServers: [/(^|\.)registrar-servers\.com$/],
    docs_url: 'https://www.namecheap.com/support/knowledgebase/article.aspx/434/2237/how-do-i-set-up-host-records-for-a-domain/',
    dashboard_url: 'https://ap.www.namecheap.com/domains/list/',
    supports_api: false,
    unproxy_hint: false,
    record_name_label: 'Host',
    record_value_label: 'Value',
  },
  {
    id: 'squarespace',
    name: 'Squarespace Domains (formerly Google Domains)',
    nameServers: [/(^|\.)googledomains\.com$/, /(^|\.)squarespacedns\.com$/],
    docs_url: 'https://support.squarespace.com/hc/en-us/articles/360002101888-Adding-custom-DNS-records-to-your-Squarespace-managed-domain',
    dashboard_url: 'https://account.squarespace.com/domains',
    supports_api: false,
    unproxy_hint: false,
    record_name_label: 'Host',
    record_value_label: 'Data',
  },
  {
    id: 'digitalocean',
    name: 'DigitalOcean',
    nameServers: [/^ns\d+\.digitalocean\.com$/],
    docs_url: 'https://docs.digitalocean.com/products/networking/dns/how-to/manage-records/',
    dashboard_url: 'https://cloud.digitalocean.com/networking/domains',
    supports_api: false,
    unproxy_hint: false,
    record_name_label: 'Hostname',
    record_value_label: 'Value',
  },
];

/** Any other DNS host: the generic wording most dashboards use. */
export const OTHER_DNS_PROVIDER: DnsProvider = {
  id: 'other',
  name: 'Your DNS provider',
  docs_url: 'https://en.wikipedia.org/wiki/Zone_file',
  dashboard_url: '',
  supports_api: false,
  unproxy_hint: false,
  record_name_label: 'Name',
  record_value_label: 'Value',
};

const canonical = (name: string): string => name.trim().toLowerCase().replace(/\.+$/, '');

/** The provider hosting a zone served by these name servers; OTHER_DNS_PROVIDER when none is known. */
export function providerFor(nameServers: readonly string[]): DnsProvider {
  const hosts = nameServers.map(canonical);
  const entry = DNS_PROVIDERS.find((p) => hosts.some((host) => p.nameServers.some((pattern) => pattern.test(host))));
  if (!entry) return { ...OTHER_DNS_PROVIDER };
  const { nameServers: _patterns, ...provider } = entry;
  return provider;
}

/** `name` relative to the zone `apex`: '@' for the apex, the absolute name (dotted) outside it. */
export function relativeHost(name: string, apex: string): string {
  const n = canonical(name);
  const a = canonical(apex);
  if (n === a) return '@';
  if (n.endsWith(`.${a}`)) return n.slice(0, -(a.length + 1));
  return `${n}.`;
}

/**
 * The closest enclosing zone: the domain or an ancestor with NS records, walking up one label at
 * a time and never asking about the TLD. The domain itself when nothing answers, so the guide is
 * still produced while DNS is unreachable.
 */
export async function findZoneApex(dns: Dns, domain: string): Promise<{ apex: string; nameServers: string[] }> {
  const labels = canonical(domain).split('.');
  for (let i = 0; i < labels.length - 1; i++) {
    const name = labels.slice(i).join('.');
    let nameServers: string[];
    try {
      nameServers = await dns.lookup(name, 'NS');
    } catch (error) {
      // A resolver that does not answer will not answer for the parent either.
      if (error instanceof RetryableError) break;
      throw error;
    }
    if (nameServers.length > 0) return { apex: name, nameServers };
  }
  return { apex: canonical(domain), nameServers: [] };
}

export async function buildDnsGuide(deps: { dns: Dns }, domain: DomainItem): Promise<DnsGuide> {
  const { apex, nameServers } = await findZoneApex(deps.dns, domain.domain);
  return {
    domain: domain.domain,
    zone_apex: apex,
    provider: providerFor(nameServers),
    records: domain.dns_records.map((record) => ({ ...record, host: relativeHost(record.name, apex) })),
    mail_from_domain: domain.mail_from_domain,
    dkim_status: domain.dkim_status,
    spf_status: domain.spf_status,
    dmarc_status: domain.dmarc_status,
    txt_status: domain.txt_status,
  };
}
