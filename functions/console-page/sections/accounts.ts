// Staff only: the accounts of this deployment (GET /v1/admin/accounts, a lookup by address), and
// suspend / unsuspend.
import { field, view, type Section } from '../section';

const markup = view(
  'accounts',
  'Accounts',
  `<form id="account-lookup" class="inline" role="search">${field('account-email', 'Find by email', '<input id="account-email" name="email" type="email">')}
<button type="submit">Find</button></form><div id="account-list"></div>`,
);

export const accountsSection: Section = { markup, nav: [{ view: 'accounts', label: 'Accounts', staff: true }] };
