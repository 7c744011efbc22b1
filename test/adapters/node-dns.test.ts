// NodeDns against a real DNS server on loopback: a domain takes mail when it publishes MX, A or
// AAAA; NXDOMAIN and NODATA are definite "no"; a resolver that never answers is retryable, not a
// "no". And the DNS_SERVERS setting that points NodeDns at its resolvers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeDns } from '../../shared/adapters/node-dns';
import { RetryableError } from '../../shared/errors';
import { ConfigError, readAwsConfig, readLocalSettings } from '../../shared/runtime/config';
import { startDnsServer, startSilentDnsServer, type RunningDns } from '../support/dns-server';

let dns: RunningDns;

beforeAll(async () => {
  dns = await startDnsServer({
    'mx.test': { mx: [{ exchange: 'mail.mx.test', priority: 10 }] },
    'a-only.test': { a: ['192.0.2.10'] },
    'aaaa-only.test': { aaaa: ['2001:db8::10'] },
    'none.test': {},
    'nx.test': 'nxdomain',
    'broken.test': { servfail: ['mx', 'a', 'aaaa'] },
    'mx-broken-a-ok.test': { servfail: ['mx'], a: ['192.0.2.20'] },
    'mx-broken-nothing-else.test': { servfail: ['mx'] },
  });
});
afterAll(async () => dns.close());

describe('NodeDns.acceptsMail', () => {
  it.each([
    ['mx.test', 'an MX record', true],
    ['a-only.test', 'only an A record', true],
    ['aaaa-only.test', 'only an AAAA record', true],
    ['none.test', 'no records at all (NODATA)', false],
    ['nx.test', 'a name that does not exist (NXDOMAIN)', false],
  ])('answers %s with %s: %s', async (domain, _label, expected) => {
    // Prepare
    const resolver = new NodeDns([dns.server]);

    // Act
    const accepts = await resolver.acceptsMail(domain);

    // Assess
    expect(accepts).toBe(expected);
  });

  it('asks for MX first and stops at the first record found', async () => {
    const resolver = new NodeDns([dns.server]);
    const before = dns.queries.length;

    await resolver.acceptsMail('mx.test');

    const asked = dns.queries.slice(before).map((q) => q.type);
    expect(new Set(asked)).toEqual(new Set([15])); // MX only: no A or AAAA lookups were needed
  });

  it('falls back from MX to A to AAAA', async () => {
    const resolver = new NodeDns([dns.server]);
    const before = dns.queries.length;

    await resolver.acceptsMail('aaaa-only.test');

    const distinct = [...new Set(dns.queries.slice(before).map((q) => q.type))];
    expect(distinct).toEqual([15, 1, 28]);
  });

  it('answers true when MX fails but an A record is found', async () => {
    const resolver = new NodeDns([dns.server], 300);

    await expect(resolver.acceptsMail('mx-broken-a-ok.test')).resolves.toBe(true);
  });

  it.each([
    ['broken.test', 'every lookup fails with SERVFAIL'],
    ['mx-broken-nothing-else.test', 'MX fails and A and AAAA find nothing'],
  ])('throws RetryableError for %s: %s', async (domain) => {
    const resolver = new NodeDns([dns.server], 300);

    await expect(resolver.acceptsMail(domain)).rejects.toBeInstanceOf(RetryableError);
  });

  it('throws RetryableError when the resolver never answers', async () => {
    const silent = await startSilentDnsServer();
    try {
      const resolver = new NodeDns([silent.server], 300);

      const outcome = resolver.acceptsMail('mx.test');

      await expect(outcome).rejects.toBeInstanceOf(RetryableError);
      expect(silent.received()).toBeGreaterThan(0);
    } finally {
      await silent.close();
    }
  });
});

describe('DNS_SERVERS and VALIDATION_ENABLED', () => {
  const aws = (env: Record<string, string>) => readAwsConfig({ TABLE_NAME: 't', ...env });

  it('parses a comma-separated list of host and host:port addresses, trimming spaces', () => {
    expect(aws({ DNS_SERVERS: '127.0.0.1:5353, 127.0.0.2' }).dnsServers).toEqual(['127.0.0.1:5353', '127.0.0.2']);
    expect(readLocalSettings({ DNS_SERVERS: '127.0.0.1:5353, 127.0.0.2' }).dnsServers).toEqual(['127.0.0.1:5353', '127.0.0.2']);
  });

  it('accepts IPv6 resolvers, bare and bracketed with a port', () => {
    expect(aws({ DNS_SERVERS: '2001:db8::53,[2001:db8::53]:5353' }).dnsServers).toEqual(['2001:db8::53', '[2001:db8::53]:5353']);
  });

  it('defaults to no servers (the system resolvers) and validation on', () => {
    expect(aws({})).toMatchObject({ dnsServers: [], validationEnabled: true });
    expect(readLocalSettings({})).toMatchObject({ dnsServers: [], validationEnabled: true });
  });

  it.each(['not-an-ip', '127.0.0.1,resolver.example', '127.0.0.1:port'])('rejects DNS_SERVERS=%j with a ConfigError naming it', (value) => {
    expect(() => aws({ DNS_SERVERS: value })).toThrow(ConfigError);
    expect(() => aws({ DNS_SERVERS: value })).toThrow(/DNS_SERVERS/);
    expect(() => readLocalSettings({ DNS_SERVERS: value })).toThrow(ConfigError);
    expect(() => readLocalSettings({ DNS_SERVERS: value })).toThrow(/DNS_SERVERS/);
  });

  it.each([
    ['false', false],
    ['0', false],
    ['true', true],
    ['1', true],
  ])('reads VALIDATION_ENABLED=%s as %s', (value, expected) => {
    expect(aws({ VALIDATION_ENABLED: value }).validationEnabled).toBe(expected);
    expect(readLocalSettings({ VALIDATION_ENABLED: value }).validationEnabled).toBe(expected);
  });

  it('rejects VALIDATION_ENABLED=yes', () => {
    expect(() => aws({ VALIDATION_ENABLED: 'yes' })).toThrow(/VALIDATION_ENABLED/);
  });
});
