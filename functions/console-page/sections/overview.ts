// Overview: the account, whether it is in sandbox, and the next step out of it (verify the address
// → register a domain → publish its DNS records → verify it); a link to the Mail app.
import { view, type Section } from '../section';

const markup = view(
  'overview',
  'Overview',
  `<div id="overview-body"></div>
<h3>Leave the sandbox</h3>
<ol id="overview-steps" class="steps"></ol>
<p>Read and answer mail in the <a href="/mail">Mail app</a>, signed in with this session.</p>`,
);

const script = String.raw`
views.overview = {
  async load() {
    await refreshSession();
    const s = state.session;
    const { domains } = await api('GET', '/v1/domains');
    const verified = domains.filter((d) => !d.sandbox);
    const steps = [
      { done: s.user.email_verified, text: 'Verify your email address: open the link we mailed to ' + s.user.email + '.' },
      { done: domains.length > 0, text: 'Register a sending domain.', href: '#/domains' },
      { done: domains.some((d) => d.dns_records.length && d.dkim_status !== 'pending'), text: 'Add its DNS records at your DNS provider.', href: '#/domains' },
      { done: verified.length > 0, text: 'Verify the domain.', href: '#/domains' },
    ];
    const next = steps.findIndex((st) => !st.done);
    $('overview-body').replaceChildren(
      el('p', {}, 'Account ', el('strong', {}, s.account_name), ' (' + s.account_id + '), signed in as ' + s.user.email + (s.user.role === 'staff' ? ' (staff)' : '') + '.'),
      el('p', { class: s.sandbox ? 'badge warn' : 'badge ok' }, s.sandbox
        ? 'Sandbox: mail goes only to verified test recipients, from the shared sender.'
        : 'Live: mail goes from your verified domains to anyone.'),
    );
    $('overview-steps').replaceChildren(...steps.map((st, i) => el('li', { class: st.done ? 'done' : i === next ? 'next' : '' },
      el('span', { class: 'visually-hidden' }, st.done ? 'Done: ' : i === next ? 'Next: ' : 'To do: '),
      st.href && !st.done ? el('a', { href: st.href }, st.text) : st.text)));
  },
};
`;

export const overviewSection: Section = { markup, script, nav: [{ view: 'overview', label: 'Overview' }] };
