// Domains: register; per domain its DNS records (copy buttons), the zone file download, verify with
// each record's result, and BIMI (the logo URL and the record to publish).
import { field, view, type Section } from '../section';

const markup = view(
  'domains',
  'Domains',
  `<form id="domain-form" class="inline">${field('domain-name', 'Domain', '<input id="domain-name" name="domain" required placeholder="example.com" autocomplete="off">')}
<button type="submit">Register domain</button></form>
<div id="domain-list"></div>
<section id="domain-detail" aria-labelledby="domain-title" hidden><h3 id="domain-title" tabindex="-1"></h3>
<div id="domain-records"></div><div id="domain-verify"></div>
<h4>BIMI</h4><div id="domain-bimi"></div>
<form id="bimi-form" class="inline">${field('bimi-logo', 'Logo URL (an SVG Tiny PS over https)', '<input id="bimi-logo" name="logo_url" type="url" required>')}
<button type="submit">Save logo</button></form></section>`,
);

const script = String.raw`
const domainPath = (d) => '/v1/domains/' + encodeURIComponent(d);
const recordRows = (records) => records.map((r) => [r.type, el('code', {}, r.name), el('code', {}, r.value), el('span', { class: 'actions' }, copyButton(r.name, r.type + ' name'), copyButton(r.value, r.type + ' value'))]);

async function openDomain(name) {
  const d = await api('GET', domainPath(name));
  views.domains.open = name;
  $('domain-detail').hidden = false;
  $('domain-title').textContent = d.domain + ' (' + domainState(d) + ')';
  const zone = el('a', { href: domainPath(d.domain) + '/dns-setup/zonefile', download: d.domain + '.zone', class: 'button' }, 'Download zone file');
  $('domain-records').replaceChildren(
    el('p', {}, 'DKIM ' + d.dkim_status + ', SPF ' + d.spf_status + ', DMARC ' + d.dmarc_status + ', ownership ' + d.txt_status + '.'),
    table('DNS records for ' + d.domain, ['Type', 'Name', 'Value', 'Copy'], recordRows(d.dns_records)),
    el('p', {}, zone, ' ', button('Verify now', () => verifyDomain(d.domain))),
  );
  $('domain-verify').replaceChildren();
  const bimi = await api('GET', domainPath(d.domain) + '/bimi').catch(() => null);
  $('domain-bimi').replaceChildren(...(bimi ? [
    el('p', {}, bimi.bimi_published ? 'Published.' : 'Not published yet.', ' ', bimi.dmarc.at_enforcement ? 'DMARC is at enforcement.' : 'BIMI needs DMARC at enforcement: ' + bimi.dmarc.recommended),
    bimi.record ? table('BIMI record', ['Type', 'Name', 'Value', 'Copy'], recordRows([bimi.record])) : el('p', {}, 'Set a logo to get the record to publish.'),
    el('p', { class: 'hint' }, bimi.vmc_note),
  ] : [el('p', {}, 'BIMI is not available for this domain yet.')]));
  if (bimi && bimi.logo_url) $('bimi-logo').value = bimi.logo_url;
  $('domain-title').focus();
}

async function verifyDomain(name) {
  const result = await api('POST', domainPath(name) + '/verify');
  await openDomain(name);
  $('domain-verify').replaceChildren(
    el('p', { role: 'status' }, result.fully_verified ? 'Verified: you can send from ' + name + '.' : 'Not verified yet: DNS changes can take a while to show.'),
    table('Verification of ' + name, ['Record', 'Name', 'Status', 'Detail'], result.results.map((r) => [r.type + ' (' + r.field + ')', el('code', {}, r.name), r.status, r.detail])),
  );
  await listDomains();
}

async function listDomains() {
  const { domains } = await api('GET', '/v1/domains');
  $('domain-list').replaceChildren(table('Domains', ['Domain', 'Status', 'Created', ''], domains.map((d) => [
    d.domain, domainState(d), when(d.created_at), button('Open', () => openDomain(d.domain), { 'aria-label': 'Open ' + d.domain }),
  ]), 'No domains yet: register one to send from your own address.'));
}

views.domains = {
  wire() {
    onSubmit($('domain-form'), async (f, form) => {
      const d = await api('POST', '/v1/domains', { domain: f.domain });
      form.reset();
      say('Domain registered: add its DNS records, then verify.');
      await listDomains();
      await openDomain(d.domain);
    });
    onSubmit($('bimi-form'), async (f) => {
      await api('PUT', domainPath(views.domains.open) + '/bimi', { logo_url: f.logo_url });
      say('BIMI logo saved.');
      await openDomain(views.domains.open);
    });
  },
  load() {
    $('domain-detail').hidden = true;
    return listDomains();
  },
};
`;

export const domainsSection: Section = { markup, script, nav: [{ view: 'domains', label: 'Domains' }] };
