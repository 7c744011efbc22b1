// The zone-file fragment against BIND's own zone checker: a real master-file parser must accept
// it, and read every record back exactly as written. The checker's suite needs named-checkzone
// (Debian: bind9-utils) and is skipped, saying so, where it is absent; .ci/run installs it.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordsFor, type DnsRecord, type DomainItem } from '../../shared/domains/model';
import { quoteTxt, renderZoneFile, ZONE_FILE_TTL } from '../../shared/domains/zone-file';
import { domainItemFor } from '../support/domains';
import { needsTool } from '../support/system-tools';

const checker = needsTool('named-checkzone', 'apt-get update && apt-get install -y bind9-utils');
const TOKENS = ['abc', 'def', 'ghi'];

function domainItem(domain: string, records: DnsRecord[] = recordsFor(domain, TOKENS, 'us-east-1')): DomainItem {
  return domainItemFor('acct_zone', domain, { id: 'dom_zone', tokens: TOKENS, dns_records: records });
}

let dir: string;
let files = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'zone-file-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** The fragment inside a minimal zone for `origin`, checked and dumped (-D) by named-checkzone. */
async function checkZone(origin: string, fragment: string): Promise<{ ok: boolean; output: string; dumped: string[] }> {
  const header = [
    `$ORIGIN ${origin}.`,
    `@ 3600 IN SOA ns1.${origin}. hostmaster.${origin}. 1 7200 3600 1209600 3600`,
    `@ 3600 IN NS ns1.${origin}.`,
    `ns1 3600 IN A 192.0.2.1`,
  ].join('\n');
  const file = join(dir, `zone-${++files}.db`);
  await writeFile(file, `${header}\n${fragment}`);
  try {
    const { stdout, stderr } = await promisify(execFile)('named-checkzone', ['-k', 'fail', '-i', 'full', '-D', '-o', '-', origin, file]);
    const dumped = stdout.split('\n').filter((line) => / IN /.test(line)).map((line) => line.trim().split(/\s+/).join(' '));
    return { ok: /^OK$/m.test(stdout + stderr), output: stdout + stderr, dumped };
  } catch (error) {
    const failure = error as { code?: unknown; stdout?: string; stderr?: string };
    return { ok: false, output: `${failure.stdout ?? ''}${failure.stderr ?? ''}`, dumped: [] };
  }
}

/** The octets a resolver assembles from quoted character-strings: `\X` is X, `\DDD` an octet. */
function decodeTxt(rdata: string): { strings: Buffer[]; value: string } {
  const strings = [...rdata.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(([, body = '']) => {
    const octets: number[] = [];
    for (let i = 0; i < body.length; i++) {
      if (body[i] !== '\\') octets.push(body.charCodeAt(i));
      else if (/^\d{3}$/.test(body.slice(i + 1, i + 4))) octets.push(Number(body.slice(i + 1, (i += 3) + 1)));
      else octets.push(body.charCodeAt(++i));
    }
    return Buffer.from(octets);
  });
  return { strings, value: Buffer.concat(strings).toString('utf8') };
}

const recordLines = (zone: string): string[] => zone.split('\n').filter((line) => line !== '' && !line.startsWith(';'));

describe('renderZoneFile', () => {
  it('writes one record per line, absolute names, TTL 3600 and class IN, after a comment naming the domain', () => {
    const domain = domainItem('example.com');

    const zone = renderZoneFile(domain);

    const lines = zone.split('\n');
    expect(lines[0]).toMatch(/^; .*example\.com/);
    expect(zone.endsWith('\n')).toBe(true);
    expect(recordLines(zone)).toHaveLength(domain.dns_records.length);
    for (const [i, line] of recordLines(zone).entries()) {
      const [name, ttl, klass, type] = line.split(' ');
      expect(name).toBe(`${domain.dns_records[i]?.name}.`);
      expect(ttl).toBe(String(ZONE_FILE_TTL));
      expect(klass).toBe('IN');
      expect(type).toBe(domain.dns_records[i]?.type);
    }
  });

  it('writes the DKIM CNAMEs, the MAIL FROM MX and the TXT records in master-file form', () => {
    const zone = renderZoneFile(domainItem('example.com'));

    expect(recordLines(zone)).toEqual([
      'abc._domainkey.example.com. 3600 IN CNAME abc.dkim.amazonses.com.',
      'def._domainkey.example.com. 3600 IN CNAME def.dkim.amazonses.com.',
      'ghi._domainkey.example.com. 3600 IN CNAME ghi.dkim.amazonses.com.',
      'send.example.com. 3600 IN MX 10 feedback-smtp.us-east-1.amazonses.com.',
      'send.example.com. 3600 IN TXT "v=spf1 include:amazonses.com ~all"',
      '_dmarc.example.com. 3600 IN TXT "v=DMARC1; p=none; rua=mailto:dmarc-reports@example.com"',
    ]);
  });
});

checker.describe(checker.name('renderZoneFile, read back by BIND'), () => {
  it('is accepted by named-checkzone, which reads every record back as written', async () => {
    // Prepare
    const domain = domainItem('example.com');

    // Act
    const zone = renderZoneFile(domain);
    const result = await checkZone('example.com', zone);

    // Assess
    expect(result.ok, result.output).toBe(true);
    for (const line of recordLines(zone)) expect(result.dumped).toContain(line);
  });

  it('is accepted for a subdomain and for a record already written with a trailing dot', async () => {
    const records: DnsRecord[] = [
      ...recordsFor('mail.example.org', TOKENS, 'eu-west-1'),
      { type: 'CNAME', name: 'dotted._domainkey.mail.example.org.', value: 'dotted.dkim.amazonses.com.' },
    ];
    const zone = renderZoneFile(domainItem('mail.example.org', records));

    const result = await checkZone('example.org', zone);

    expect(result.ok, result.output).toBe(true);
    expect(zone).toContain('send.mail.example.org. 3600 IN MX 10 feedback-smtp.eu-west-1.amazonses.com.\n');
    expect(zone).toContain('dotted._domainkey.mail.example.org. 3600 IN CNAME dotted.dkim.amazonses.com.\n');
  });

  it('quotes and escapes TXT data: quotes, backslashes, semicolons, parentheses, control and non-ASCII octets', async () => {
    const value = 'say "hi"\\ ; (x) tab\there é';
    const zone = renderZoneFile(domainItem('example.com', [{ type: 'TXT', name: 'odd.example.com', value }]));

    const result = await checkZone('example.com', zone);

    expect(result.ok, result.output).toBe(true);
    expect(recordLines(zone)).toEqual(['odd.example.com. 3600 IN TXT "say \\"hi\\"\\\\ ; (x) tab\\009here \\195\\169"']);
    expect(result.dumped).toContain(recordLines(zone)[0]);
    expect(decodeTxt(quoteTxt(value)).value).toBe(value);
  });

  it.each([
    ['exactly 255 octets', 'a'.repeat(255), [255]],
    ['a 2048-bit DKIM-sized key', `v=DKIM1; k=rsa; p=${'A'.repeat(392)}`, [255, 155]],
    ['601 octets', 'b'.repeat(601), [255, 255, 91]],
    ['multi-byte characters split on octets', 'é'.repeat(200), [255, 145]],
    ['an empty value', '', [0]],
  ])('splits long TXT data into strings of at most 255 octets: %s', async (_label, value, sizes) => {
    const zone = renderZoneFile(domainItem('example.com', [{ type: 'TXT', name: 'long.example.com', value }]));

    const result = await checkZone('example.com', zone);

    const rdata = recordLines(zone)[0]?.replace(/^long\.example\.com\. 3600 IN TXT /, '') ?? '';
    const decoded = decodeTxt(rdata);
    expect(result.ok, result.output).toBe(true);
    expect(result.dumped).toContain(recordLines(zone)[0]);
    expect(decoded.strings.map((s) => s.length)).toEqual(sizes);
    expect(decoded.value).toBe(value);
  });

  it('is checked by a checker that rejects a TXT string over 255 octets', async () => {
    const result = await checkZone('example.com', `long.example.com. 3600 IN TXT "${'a'.repeat(256)}"\n`);

    expect(result.ok).toBe(false);
  });
});
