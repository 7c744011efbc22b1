// Forms in the store: the form (in its account's partition, so the account lists its forms with
// one Query) and the reference that names a form's account for the public routes (which know only
// the form id). Pending double opt-in sign-ups ride on one-time tokens (shared/accounts/one-time-tokens).
import { keyQueries, keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { queryPage, type Page, type PageRequest } from '../../pagination';
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
}
