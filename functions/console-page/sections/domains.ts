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

export const domainsSection: Section = { markup, nav: [{ view: 'domains', label: 'Domains' }] };
