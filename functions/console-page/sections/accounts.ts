// Staff only: the accounts of this deployment (GET /v1/admin/accounts, a lookup by address), and
// suspend / unsuspend.
import { field, view, type Section } from '../section';

const markup = view(
  'accounts',
  'Accounts',
  `<form id="account-lookup" class="inline" role="search">${field('account-email', 'Find by email', '<input id="account-email" name="email" type="email">')}
<button type="submit">Find</button></form><div id="account-list"></div>`,
);

const script = String.raw`
let accountEmail = '';
views.accounts = {
  staff: true,
  wire() {
    views.accounts.list = pager($('account-list'), async (cursor, fresh) => {
      const page = await api('GET', '/v1/admin/accounts' + query({ limit: 50, cursor, email: accountEmail }));
      views.accounts.rows = (fresh ? [] : views.accounts.rows).concat(page.accounts);
      const act = (a, verb, label) => button(label, async () => {
        if (verb === 'suspend' && !confirm('Suspend ' + a.name + '? Its keys and sessions stop working.')) return;
        await api('POST', '/v1/admin/accounts/' + encodeURIComponent(a.account_id) + '/' + verb);
        say((verb === 'suspend' ? 'Suspended ' : 'Unsuspended ') + a.name + '.');
        await views.accounts.list();
      }, { 'aria-label': label + ' ' + a.name, class: verb === 'suspend' ? 'danger' : undefined });
      $('account-list').replaceChildren(table('Accounts', ['Name', 'Email', 'Status', 'Created', ''], views.accounts.rows.map((a) => [
        a.name, a.email, a.status, when(a.created_at), a.status === 'suspended' ? act(a, 'unsuspend', 'Unsuspend') : act(a, 'suspend', 'Suspend'),
      ]), 'No accounts match.'));
      return page;
    });
    onSubmit($('account-lookup'), async (f) => {
      accountEmail = f.email;
      await views.accounts.list();
    });
  },
  load() {
    return views.accounts.list();
  },
};
`;

export const accountsSection: Section = { markup, script, nav: [{ view: 'accounts', label: 'Accounts', staff: true }] };
