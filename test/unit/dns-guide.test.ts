// The DNS setup guide against a real DNS server on loopback: the zone apex found by walking up to
// the closest name with NS records, the provider told apart by those name servers, hosts written
// relative to the apex, and a guide still produced when the resolver never answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeDns } from '../../shared/adapters/node-dns';
import { buildDnsGuide, OTHER_DNS_PROVIDER, providerFor, relativeHost } from '../../shared/domains/dns-guide';
import type { DomainItem } from '../../shared/domains/model';
import { RetryableError } from '../../shared/errors';
import type { Dns, RecordType } from '../../shared/ports/dns';
import { startDnsServer, startSilentDnsServer, type RunningDns } from '../support/dns-server';
import { domainItemFor } from '../support/domains';

const TOKENS = ['abc', 'def', 'ghi'];

function domainItem(domain: string, overrides: Partial<DomainItem> = {}): DomainItem {
  return domainItemFor('acct_guide', domain, { id: 'dom_guide', tokens: TOKENS, ...overrides });
}

const R53_NS = ['ns-1536.awsdns-00.co.uk', 'ns-512.awsdns-00.net', 'ns-0.awsdns-00.com', 'ns-1024.awsdns-00.org'];
const CF_NS = ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'];

let dns: RunningDns;
const resolver = () => new NodeDns([dns.server], 1000);

beforeAll(async () => {
  dns = await startDnsServer({
    'cf.test': { ns: CF_NS },
    'r53.test': { ns: R53_NS },
    'gd.test': { ns: ['ns01.domaincontrol.com', 'ns02.domaincontrol.com'] },
    'nc.test': { ns: ['dns1.registrar-servers.com', 'dns2.registrar-servers.com'] },
    'gdomains.test': { ns: ['ns-cloud-a1.googledomains.com', 'ns-cloud-a2.googledomains.com'] },
    'sqsp.test': { ns: ['ns1.squarespacedns.com', 'ns2.squarespacedns.com'] },
    'do.test': { ns: ['ns1.digitalocean.com', 'ns2.digitalocean.com', 'ns3.digitalocean.com'] },
    'self.test': { ns: ['ns1.self.test', 'ns2.self.test'] },
    // example.test is the zone; mail.example.test is a name inside it with no NS records.
    'example.test': { ns: R53_NS },
    'mail.example.test': { a: ['192.0.2.1'] },
    // b.deep.test exists (NODATA for NS), a.b.deep.test does not (NXDOMAIN): both are passed over.
    'deep.test': { ns: CF_NS },
    'b.deep.test': {},
    // A delegated subzone: the closest enclosing zone wins over its parent.
    'parent.test': { ns: R53_NS },
    'shop.parent.test': { ns: CF_NS },
  });
});
afterAll(async () => dns.close());

describe('buildDnsGuide', () => {
  it.each([
    ['cf.test', 'cloudflare', 'Cloudflare', 'Name', 'Content'],
    ['r53.test', 'route53', 'Amazon Route 53', 'Record name', 'Value'],
    ['gd.test', 'godaddy', 'GoDaddy', 'Name', 'Value'],
    ['nc.test', 'namecheap', 'Namecheap', 'Host', 'Value'],
    ['gdomains.test', 'squarespace', 'Squarespace Domains (formerly Google Domains)', 'Host', 'Data'],
    ['sqsp.test', 'squarespace', 'Squarespace Domains (formerly Google Domains)', 'Host', 'Data'],
    ['do.test', 'digitalocean', 'DigitalOcean', 'Hostname', 'Value'],
    ['self.test', 'other', OTHER_DNS_PROVIDER.name, 'Name', 'Value'],
  ])('names the provider of %s from its NS records: %s', async (domain, id, name, nameLabel, valueLabel) => {
    // Prepare
    const item = domainItem(domain);

    // Act
    const guide = await buildDnsGuide({ dns: resolver() }, item);

    // Assess
    expect(guide.zone_apex).toBe(domain);
    expect(guide.provider).toMatchObject({ id, name, record_name_label: nameLabel, record_value_label: valueLabel });
    if (id !== 'other') expect(guide.provider.docs_url).toMatch(/^https:\/\//);
    if (id !== 'other') expect(guide.provider.dashboard_url).toMatch(/^https:\/\//);
    expect(guide.provider.supports_api).toBe(id === 'route53');
    expect(guide.provider.unproxy_hint).toBe(id === 'cloudflare');
  });

  it('returns exactly the spec shape, records in order with hosts relative to the apex, statuses copied', async () => {
    const item = domainItem('cf.test', { dkim_status: 'verified', spf_status: 'failed', dmarc_status: 'pending', txt_status: 'verified' });

    const guide = await buildDnsGuide({ dns: resolver() }, item);

    expect(guide).toEqual({
      domain: 'cf.test',
      zone_apex: 'cf.test',
      provider: {
        id: 'cloudflare',
        name: 'Cloudflare',
        docs_url: expect.any(String),
        dashboard_url: expect.any(String),
        supports_api: false,
        unproxy_hint: true,
        record_name_label: 'Name',
        record_value_label: 'Content',
      },
      records: [
        { type: 'CNAME', name: 'abc._domainkey.cf.test', value: 'abc.dkim.amazonses.com', host: 'abc._domainkey' },
        { type: 'CNAME', name: 'def._domainkey.cf.test', value: 'def.dkim.amazonses.com', host: 'def._domainkey' },
        { type: 'CNAME', name: 'ghi._domainkey.cf.test', value: 'ghi.dkim.amazonses.com', host: 'ghi._domainkey' },
        { type: 'MX', name: 'send.cf.test', value: '10 feedback-smtp.us-east-1.amazonses.com', host: 'send' },
        { type: 'TXT', name: 'send.cf.test', value: 'v=spf1 include:amazonses.com ~all', host: 'send' },
        { type: 'TXT', name: '_dmarc.cf.test', value: 'v=DMARC1; p=none; rua=mailto:dmarc-reports@cf.test', host: '_dmarc' },
      ],
      mail_from_domain: 'send.cf.test',
      dkim_status: 'verified',
      spf_status: 'failed',
      dmarc_status: 'pending',
      txt_status: 'verified',
    });
  });

  it('finds the parent zone of a subdomain and writes hosts relative to it', async () => {
    const item = domainItem('mail.example.test');

    const guide = await buildDnsGuide({ dns: resolver() }, item);

    expect(guide.zone_apex).toBe('example.test');
    expect(guide.provider.id).toBe('route53');
    expect(guide.records.map((r) => r.host)).toEqual([
      'abc._domainkey.mail',
      'def._domainkey.mail',
      'ghi._domainkey.mail',
      'send.mail',
      'send.mail',
      '_dmarc.mail',
    ]);
  });

  it('walks past names that do not exist and names without NS records, never asking about the TLD', async () => {
    const before = dns.queries.length;

    const guide = await buildDnsGuide({ dns: resolver() }, domainItem('a.b.deep.test'));

    const asked = dns.queries.slice(before).map((q) => q.name.toLowerCase());
    expect(guide.zone_apex).toBe('deep.test');
    expect(guide.provider.id).toBe('cloudflare');
    expect(guide.records[0]?.host).toBe('abc._domainkey.a.b');
    expect(new Set(asked)).toEqual(new Set(['a.b.deep.test', 'b.deep.test', 'deep.test']));
  });

  it('takes the closest enclosing zone when a subdomain is delegated', async () => {
    const guide = await buildDnsGuide({ dns: resolver() }, domainItem('shop.parent.test'));

    expect(guide.zone_apex).toBe('shop.parent.test');
    expect(guide.provider.id).toBe('cloudflare');
    expect(guide.records.map((r) => r.host)).toEqual(['abc._domainkey', 'def._domainkey', 'ghi._domainkey', 'send', 'send', '_dmarc']);
  });

  it('falls back to the domain itself and the generic provider when no ancestor has NS records', async () => {
    const before = dns.queries.length;

    const guide = await buildDnsGuide({ dns: resolver() }, domainItem('mail.unknown.test'));

    expect(guide.zone_apex).toBe('mail.unknown.test');
    expect(guide.provider).toEqual(OTHER_DNS_PROVIDER);
    expect(guide.records[3]?.host).toBe('send');
    expect(dns.queries.slice(before).map((q) => q.name.toLowerCase())).not.toContain('test');
  });

  it('still produces the guide when the resolver never answers: apex is the domain, provider generic', async () => {
    const silent = await startSilentDnsServer();
    try {
      const item = domainItem('mail.example.test', { dkim_status: 'verified', spf_status: 'verified', dmarc_status: 'failed', txt_status: 'pending' });

      const guide = await buildDnsGuide({ dns: new NodeDns([silent.server], 200) }, item);

      expect(silent.received()).toBeGreaterThan(0);
      expect(guide.zone_apex).toBe('mail.example.test');
      expect(guide.provider).toEqual(OTHER_DNS_PROVIDER);
      expect(guide.records.map((r) => r.host)).toEqual(['abc._domainkey', 'def._domainkey', 'ghi._domainkey', 'send', 'send', '_dmarc']);
      expect(guide).toMatchObject({ dkim_status: 'verified', spf_status: 'verified', dmarc_status: 'failed', txt_status: 'pending' });
    } finally {
      await silent.close();
    }
  });

  it('stops walking at the first lookup that gets no answer and falls back to the domain', async () => {
    const asked: string[] = [];
    const flaky: Dns = {
      acceptsMail: async () => true,
      lookup: async (name: string, _type: RecordType) => {
        asked.push(name);
        if (name === 'example.com') throw new RetryableError('DNS NS lookup for example.com got no answer');
        return [];
      },
    };

    const guide = await buildDnsGuide({ dns: flaky }, domainItem('x.mail.example.com'));

    expect(asked).toEqual(['x.mail.example.com', 'mail.example.com', 'example.com']);
    expect(guide.zone_apex).toBe('x.mail.example.com');
    expect(guide.provider.id).toBe('other');
  });

  it('lets an error that is not a DNS failure through', async () => {
    const broken: Dns = {
      acceptsMail: async () => true,
      lookup: async () => {
        throw new TypeError('bug');
      },
    };

    await expect(buildDnsGuide({ dns: broken }, domainItem('example.com'))).rejects.toBeInstanceOf(TypeError);
  });
});

describe('providerFor', () => {
  it('matches name servers case-insensitively and with a trailing dot', () => {
    expect(providerFor(['ADA.NS.CLOUDFLARE.COM.', 'bob.ns.cloudflare.com.']).id).toBe('cloudflare');
  });

  it('does not match a look-alike host', () => {
    expect(providerFor(['ns.cloudflare.com.evil.test', 'ns1.digitalocean.com.example', 'awsdns.example']).id).toBe('other');
  });

  it('returns a fresh copy, so a caller cannot change the table', () => {
    const provider = providerFor([]);
    provider.name = 'changed';

    expect(providerFor([]).name).toBe(OTHER_DNS_PROVIDER.name);
  });
});

describe('relativeHost', () => {
  it.each([
    ['example.com', 'example.com', '@'],
    ['Example.COM.', 'example.com', '@'],
    ['send.example.com', 'example.com', 'send'],
    ['abc._domainkey.mail.example.com', 'example.com', 'abc._domainkey.mail'],
    ['_dmarc.mail.example.com', 'mail.example.com', '_dmarc'],
    ['notexample.com', 'example.com', 'notexample.com.'],
    ['other.org', 'example.com', 'other.org.'],
  ])('writes %s in zone %s as %s', (name, apex, host) => {
    expect(relativeHost(name, apex)).toBe(host);
  });
});
