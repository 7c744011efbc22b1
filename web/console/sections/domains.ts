// Domains: register; per domain its DNS records (copy buttons), the zone file download, verify with
// each record's result, and BIMI (the logo URL and the record to publish).
import type { Ok } from '../../../client/src/index';
import { api } from '../api';
import { $, el, say, when } from '../dom';
import type { View } from '../router';
import { button, copyButton, onSubmit, table } from '../ui';

type Domain = Ok<'/v1/domains', 'get'>['domains'][number];
type DomainDetail = Ok<'/v1/domains/{domain}', 'get'>;
type DnsRecord = { type: string; name: string; value: string };

/** Verified once DKIM, SPF and DMARC all are; the built-in sandbox domain (its `sandbox` flag) never is. */
export const isVerified = (d: Domain | DomainDetail): boolean => !d.sandbox && d.dkim_status === 'verified' && d.spf_status === 'verified' && d.dmarc_status === 'verified';
/** A domain's state in words. */
const domainState = (d: Domain | DomainDetail): string => (d.sandbox ? 'the built-in sandbox sender' : isVerified(d) ? 'verified' : 'not verified yet');

const domainPath = (d: string): string => `/v1/domains/${encodeURIComponent(d)}`;
const recordRows = (records: DnsRecord[]) =>
  records.map((r) => [r.type, el('code', {}, r.name), el('code', {}, r.value), el('span', { class: 'actions' }, copyButton(r.name, `${r.type} name`), copyButton(r.value, `${r.type} value`))]);

let opened = '';

async function showBimi(name: string): Promise<void> {
  const bimi = await api((c) => c.domains.bimi.get(name)).catch(() => null);
  $('domain-bimi').replaceChildren(
    ...(bimi
      ? [
          el('p', {}, bimi.bimi_published ? 'Published.' : 'Not published yet.', ' ', bimi.dmarc.at_enforcement ? 'DMARC is at enforcement.' : `BIMI needs DMARC at enforcement: ${bimi.dmarc.recommended}`),
          bimi.record ? table('BIMI record', ['Type', 'Name', 'Value', 'Copy'], recordRows([bimi.record])) : el('p', {}, 'Set a logo to get the record to publish.'),
          el('p', { class: 'hint' }, bimi.vmc_note),
        ]
      : [el('p', {}, 'BIMI is not available for this domain yet.')]),
  );
  if (bimi?.logo_url) $<HTMLInputElement>('bimi-logo').value = bimi.logo_url;
}

async function openDomain(name: string): Promise<void> {
  const d = await api((c) => c.domains.get(name));
  opened = name;
  $('domain-detail').hidden = false;
  $('domain-title').textContent = `${d.domain} (${domainState(d)})`;
  const zone = el('a', { href: `${domainPath(d.domain)}/dns-setup/zonefile`, download: `${d.domain}.zone`, class: 'button' }, 'Download zone file');
  $('domain-records').replaceChildren(
    el('p', {}, `DKIM ${d.dkim_status}, SPF ${d.spf_status}, DMARC ${d.dmarc_status}, ownership ${d.txt_status}.`),
    table(`DNS records for ${d.domain}`, ['Type', 'Name', 'Value', 'Copy'], recordRows(d.dns_records)),
    el('p', {}, zone, ' ', button('Verify now', () => verifyDomain(d.domain))),
  );
  $('domain-verify').replaceChildren();
  await showBimi(d.domain);
  $('domain-title').focus();
}

async function verifyDomain(name: string): Promise<void> {
  const result = await api((c) => c.domains.verify(name));
  await openDomain(name);
  $('domain-verify').replaceChildren(
    el('p', { role: 'status' }, result.fully_verified ? `Verified: you can send from ${name}.` : 'Not verified yet: DNS changes can take a while to show.'),
    table(`Verification of ${name}`, ['Record', 'Name', 'Status', 'Detail'], result.results.map((r) => [`${r.type} (${r.field})`, el('code', {}, r.name), r.status, r.detail])),
  );
  await listDomains();
}

async function listDomains(): Promise<void> {
  const { domains } = await api((c) => c.domains.list());
  $('domain-list').replaceChildren(
    table(
      'Domains',
      ['Domain', 'Status', 'Created', ''],
      domains.map((d) => [d.domain, domainState(d), when(d.created_at), button('Open', () => openDomain(d.domain), { 'aria-label': `Open ${d.domain}` })]),
      'No domains yet: register one to send from your own address.',
    ),
  );
}

const domains: View = {
  wire() {
    onSubmit<'domain'>($('domain-form'), async (f, form) => {
      const d = await api((c) => c.domains.create({ domain: f.domain }));
      form.reset();
      say('Domain registered: add its DNS records, then verify.');
      await listDomains();
      await openDomain(d.domain);
    });
    onSubmit<'logo_url'>($('bimi-form'), async (f) => {
      await api((c) => c.domains.bimi.setLogoUrl(opened, { logo_url: f.logo_url }));
      say('BIMI logo saved.');
      await openDomain(opened);
    });
  },
  load() {
    $('domain-detail').hidden = true;
    return listDomains();
  },
};

export const domainViews: Record<string, View> = { domains };
