// Forms in the store: the form (in its account's partition, so the account lists its forms with
// one Query), the reference that names a form's account for the public routes (which know only the
// form id), and the pending double opt-in sign-ups, each found by the SHA-256 of its link token.
import { keyQueries, keys, type ItemKey } from '../db/keys';
import { wrote, type Store } from '../db/store';
import { queryPage, type Page, type PageRequest } from '../pagination';
import type { FormField } from './schemas';

export interface FormItem extends ItemKey {
  entity: 'form';
  id: string;
  account_id: string;
  name: string;
  list_id: string;
  fields: FormField[];
  double_opt_in: boolean;
  redirect_url: string | null;
  title: string | null;
  description: string | null;
  submit_label: string;
  success_message: string | null;
  language: string;
  created_at: string;
  updated_at: string;
}

export type NewForm = Omit<FormItem, keyof ItemKey | 'entity'>;
export type FormContent = Omit<NewForm, 'id' | 'account_id' | 'created_at'>;

interface FormRefItem extends ItemKey {
  entity: 'form_ref';
  form_id: string;
  account_id: string;
}

/** A sign-up waiting for its address to confirm: what it will write, for which form and list. */
export interface FormTokenItem extends ItemKey {
  entity: 'form_token';
  account_id: string;
  form_id: string;
  list_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  data: Record<string, string>;
  created_at: string;
  /** Epoch seconds (the table's TTL attribute). Checked on use: TTL deletion lags or never runs. */
  expires_at: number;
}

export type NewFormToken = Omit<FormTokenItem, keyof ItemKey | 'entity'>;

export class FormRepository {
  constructor(private readonly store: Store) {}

  get(accountId: string, formId: string): Promise<FormItem | undefined> {
    return this.store.get<FormItem>(keys.form(accountId, formId));
  }

  /** The account a form belongs to, by the form id alone; undefined for an id no form has. */
  async accountOf(formId: string): Promise<string | undefined> {
    return (await this.store.get<FormRefItem>(keys.formRef(formId)))?.account_id;
  }

  list(accountId: string, page: PageRequest): Promise<Page<FormItem>> {
    return queryPage<FormItem>(this.store, keyQueries.accountItems(accountId, keys.formPrefix), page);
  }

  /**
   * The reference first, then the form: a create that dies between the two leaves a reference to
   * no form, which every public route reads as an unknown form (and a fresh id never meets it).
   */
  async create(form: NewForm): Promise<FormItem> {
    const ref: FormRefItem = { ...keys.formRef(form.id), entity: 'form_ref', form_id: form.id, account_id: form.account_id };
    await this.store.create(ref);
    const item: FormItem = { ...keys.form(form.account_id, form.id), entity: 'form', ...form };
    await this.store.create(item);
    return item;
  }

  /** Replaces what a PUT may change; undefined when the form is gone. */
  async replace(accountId: string, formId: string, content: FormContent): Promise<FormItem | undefined> {
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const sets = Object.entries(content).map(([field, value], i) => {
      names[`#f${i}`] = field;
      values[`:v${i}`] = value;
      return `#f${i} = :v${i}`;
    });
    const write = this.store.update<FormItem>(keys.form(accountId, formId), {
      expression: `SET ${sets.join(', ')}`,
      condition: 'attribute_exists(pk)',
      names,
      values,
    });
    return (await wrote(write)) ? write : undefined;
  }

  /** The form, then its reference (a dangling reference names no form); false when the form was gone. */
  async remove(accountId: string, formId: string): Promise<boolean> {
    const removed = await wrote(this.store.delete(keys.form(accountId, formId), { expression: 'attribute_exists(pk)' }));
    await this.store.delete(keys.formRef(formId));
    return removed;
  }

  /** Digests of fresh random tokens never collide, so this never meets an existing token. */
  async createToken(digest: string, token: NewFormToken): Promise<void> {
    await this.store.create<FormTokenItem>({ ...keys.formToken(digest), entity: 'form_token', ...token });
  }

  getToken(digest: string): Promise<FormTokenItem | undefined> {
    return this.store.get<FormTokenItem>(keys.formToken(digest));
  }

  /** Uses a token up; false when another use took it first. */
  useToken(digest: string): Promise<boolean> {
    return wrote(this.store.delete(keys.formToken(digest), { expression: 'attribute_exists(pk)' }));
  }

  async deleteToken(digest: string): Promise<void> {
    await this.store.delete(keys.formToken(digest));
  }
}
