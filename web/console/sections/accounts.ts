// Staff only: the accounts of this deployment (GET /v1/admin/accounts, a lookup by address), and
// suspend / unsuspend.
import type { Ok } from '../../../client/src/index';
import { api, present } from '../api';
import { $, say, when } from '../dom';
import type { View } from '../router';
import { button, onSubmit, pager, table } from '../ui';

type Account = Ok<'/v1/admin/accounts', 'get'>['accounts'][number];

let accountEmail = '';
let rows: Account[] = [];
let list = async (): Promise<void> => undefined;

const act = (a: Account, verb: 'suspend' | 'unsuspend', label: string): HTMLButtonElement =>
  button(
    label,
    async () => {
      if (verb === 'suspend' && !confirm(`Suspend ${a.name}? Its keys and sessions stop working.`)) return;
      await api((c) => c.admin[verb](a.account_id));
      say(`${verb === 'suspend' ? 'Suspended ' : 'Unsuspended '}${a.name}.`);
      await list();
    },
    { 'aria-label': `${label} ${a.name}`, class: verb === 'suspend' ? 'danger' : undefined },
  );

const accounts: View = {
  staff: true,
  wire() {
    list = pager($('account-list'), async (cursor, fresh) => {
      const page = await api((c) => c.admin.listAccounts(present({ limit: 50, cursor, email: accountEmail })));
      rows = (fresh ? [] : rows).concat(page.accounts);
      const cells = rows.map((a) => [a.name, a.email, a.status, when(a.created_at), a.status === 'suspended' ? act(a, 'unsuspend', 'Unsuspend') : act(a, 'suspend', 'Suspend')]);
      $('account-list').replaceChildren(table('Accounts', ['Name', 'Email', 'Status', 'Created', ''], cells, 'No accounts match.'));
      return page;
    });
    onSubmit<'email'>($('account-lookup'), async (f) => {
      accountEmail = f.email;
      await list();
    });
  },
  load() {
    return list();
  },
};

export const accountViews: Record<string, View> = { accounts };
