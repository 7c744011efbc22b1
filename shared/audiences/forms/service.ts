// Hosted sign-up forms: an account manages forms bound to a static list; the public signs up
// through a form (at once, or with double opt-in once a mailed one-time link is confirmed). The
// link's token is a one-time token (shared/accounts/one-time-tokens, purpose `form_confirmation`) carrying
// the pending sign-up: shown only in the mail, stored as its SHA-256, working once, for 7 days.
import { getAccount } from '../../accounts/service';
import { staticLists } from '../contacts/contacts';
import { ContactListRepository } from '../contacts/lists-repository';
import { isLive } from '../contacts/views';
import { randomBase62 } from '../../crypto/crypto';
import { keys } from '../../db/keys';
import type { Store } from '../../db/store';
import { formatMailbox, parseMailbox } from '../../formats/address';
import { ApiError, NotFoundError } from '../../errors';
import { isId, type Ids } from '../../ports/ids';
import { invalidToken, issueToken, peekToken, redeemToken, revokeToken } from '../../accounts/one-time-tokens/service';
import { pageRequest, type Page, type PageInput } from '../../pagination';
import type { Clock } from '../../ports/clock';
import { PermanentSendError, type Mailer } from '../../ports/mailer';
import { accountHold } from '../../sending/messages/account-hold';
import { checkSandboxRecipient, loadSenderContext } from '../../sending/messages/sender';
import { admit } from '../../accounts/rate-limit/service';
import { findSuppression } from '../../sending/suppressions/service';
import type { Logger } from '../../ports/logger';
import { confirmationMail } from './mail';
import { FormRepository, type FormItem } from './repository';
import { HONEYPOT_FIELD, type ConfirmedView, type FormBody, type FormConfigView, type FormView, type PendingSignupView, type SubmitResult } from './schemas';
import { subscribe, type Signup } from './subscribe';

/** Confirmation mails per address and account in a sliding hour; past it a sign-up is answered alike and mails nothing. */
export const CONFIRM_MAILS_PER_HOUR = 3;
const HOUR_MS = 3600_000;

export interface FormDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  logger: Logger;
}

export interface PublicFormDeps extends FormDeps {
  mailer: Mailer;
  config: { sharedEmailSender: string };
}

const formNotFound = (formId: string): ApiError => new NotFoundError(`form ${formId}`);
const SIGN_UP_AGAIN = 'sign up again for a new one';
const closed = (formId: string): ApiError => new ApiError('not_found', `form ${formId} no longer takes sign-ups: its list is gone`);

// ---- views ----

const defaultSuccess = (form: Pick<FormItem, 'double_opt_in'>): string =>
  form.double_opt_in ? 'Almost done: check your inbox and follow the link to confirm your subscription.' : 'Thank you for subscribing.';

export const successMessageOf = (form: FormItem): string => form.success_message ?? defaultSuccess(form);

export const formLinks = (baseUrl: string, formId: string) => ({
  page_url: `${baseUrl}/v1/forms/${formId}/page`,
  config_url: `${baseUrl}/v1/forms/${formId}/config`,
  submit_url: `${baseUrl}/v1/forms/${formId}/submit`,
});

export function toFormView(item: FormItem, baseUrl: string): FormView {
  const links = formLinks(baseUrl, item.id);
  return {
    id: item.id,
    name: item.name,
    list_id: item.list_id,
    fields: item.fields,
    double_opt_in: item.double_opt_in,
    redirect_url: item.redirect_url,
    title: item.title,
    description: item.description,
    submit_label: item.submit_label,
    success_message: item.success_message,
    language: item.language,
    page_url: links.page_url,
    config_url: links.config_url,
    submit_url: links.submit_url,
    created_at: item.created_at,
    updated_at: item.updated_at,
  };
}

export function toFormConfig(item: FormItem, baseUrl: string): FormConfigView {
  const links = formLinks(baseUrl, item.id);
  return {
    id: item.id,
    title: item.title ?? item.name,
    description: item.description,
    language: item.language,
    fields: item.fields,
    submit_label: item.submit_label,
    success_message: successMessageOf(item),
    double_opt_in: item.double_opt_in,
    honeypot_field: HONEYPOT_FIELD,
    submit_url: links.submit_url,
    page_url: links.page_url,
  };
}

// ---- management (behind a key) ----

function contentOf(body: FormBody, now: string) {
  return {
    name: body.name,
    list_id: body.list_id,
    fields: body.fields ?? [{ key: 'email', label: 'Email', required: true }],
    double_opt_in: body.double_opt_in ?? false,
    redirect_url: body.redirect_url ?? null,
    title: body.title ?? null,
    description: body.description ?? null,
    submit_label: body.submit_label ?? 'Subscribe',
    success_message: body.success_message ?? null,
    language: body.language ?? 'en',
    updated_at: now,
  };
}

/** 404 for a list that is not the account's, 422 for a dynamic one (it takes no members). */
async function checkList(store: Store, accountId: string, listId: string): Promise<void> {
  await staticLists(store, accountId, [listId]);
}

export async function createForm(deps: FormDeps, accountId: string, body: FormBody): Promise<FormItem> {
  await checkList(deps.store, accountId, body.list_id);
  const now = deps.clock.now().toISOString();
  return new FormRepository(deps.store).create({ id: deps.ids.next('frm'), account_id: accountId, created_at: now, ...contentOf(body, now) });
}

/** The account's form; 404 for another account's, a deleted one or an id we never issue. */
export async function readForm(store: Store, accountId: string, formId: string): Promise<FormItem> {
  if (!isId(formId, 'frm')) throw formNotFound(formId);
  const item = await new FormRepository(store).get(accountId, formId);
  if (!item) throw formNotFound(formId);
  return item;
}

export async function listForms(deps: { store: Store; cursorSecret: string }, accountId: string, page: PageInput): Promise<Page<FormItem>> {
  return new FormRepository(deps.store).list(accountId, pageRequest(deps, { accountId, collection: 'forms' }, page));
}

/** Replaces the whole form: what the body omits takes its default. */
export async function replaceForm(deps: FormDeps, accountId: string, formId: string, body: FormBody): Promise<FormItem> {
  await readForm(deps.store, accountId, formId);
  await checkList(deps.store, accountId, body.list_id);
  const replaced = await new FormRepository(deps.store).replace(accountId, formId, contentOf(body, deps.clock.now().toISOString()));
  if (!replaced) throw formNotFound(formId);
  return replaced;
}

/** Its pending confirmation links stop working with it (a confirmation reads the form first). */
export async function deleteForm(deps: { store: Store }, accountId: string, formId: string): Promise<void> {
  if (!isId(formId, 'frm')) throw formNotFound(formId);
  if (!(await new FormRepository(deps.store).remove(accountId, formId))) throw formNotFound(formId);
}

// ---- public ----

/** A form by its id alone, as the public routes know it. */
export async function publicForm(store: Store, formId: string): Promise<FormItem> {
  if (!isId(formId, 'frm')) throw formNotFound(formId);
  const repo = new FormRepository(store);
  const accountId = await repo.accountOf(formId);
  const item = accountId === undefined ? undefined : await repo.get(accountId, formId);
  if (!item) throw formNotFound(formId);
  return item;
}

async function listIsOpen(store: Store, accountId: string, listId: string): Promise<boolean> {
  const list = await new ContactListRepository(store).getList(accountId, listId);
  return isLive(list) && list.type === 'static';
}

function sharedSender(config: PublicFormDeps['config']): string {
  const mailbox = parseMailbox(config.sharedEmailSender);
  if (!mailbox) throw new ApiError('service_unavailable', 'this deployment has no usable sender address for confirmation mail (SHARED_EMAIL_SENDER)');
  return formatMailbox(mailbox);
}

/**
 * A sign-up through a form (already checked against its fields). Without double opt-in the
 * contact joins the list at once. With it, nothing joins: a one-time link is mailed, at most
 * CONFIRM_MAILS_PER_HOUR times per address and account; a sign-up past that is answered the same
 * and stores and mails nothing, so a form cannot be used to flood an inbox.
 */
export async function submitSignup(deps: PublicFormDeps, form: FormItem, signup: Signup, baseUrl: string): Promise<SubmitResult> {
  // A suspended account's forms take no sign-ups, with or without a confirmation mail: answered
  // as an unknown form is, so the public learns nothing about the account.
  const account = await getAccount(deps.store, form.account_id);
  if (!account || accountHold(account)) throw formNotFound(form.id);
  if (!(await listIsOpen(deps.store, form.account_id, form.list_id))) throw closed(form.id);
  const message = successMessageOf(form);
  if (!form.double_opt_in) {
    await subscribe(deps, form.account_id, form.list_id, signup, { resubscribe: false });
    return { status: 'subscribed', message };
  }
  const from = sharedSender(deps.config);
  // The confirmation mail is the account's mail to a stranger: the send rules that protect
  // recipients hold for it too. In sandbox mode it goes only where a send could (403
  // recipient_not_verified otherwise), and a suppressed address gets no mail (answered alike).
  await checkSandboxRecipient(await loadSenderContext(deps.store, account, deps.config.sharedEmailSender), signup.email, false);
  if (await findSuppression(deps.store, form.account_id, 'email', signup.email)) {
    deps.logger.info('confirmation mail not sent: the address is on the suppression list', { accountId: form.account_id, formId: form.id });
    return { status: 'pending_confirmation', message };
  }
  const decision = await admit(deps, keys.formConfirmMails(form.account_id, signup.email), CONFIRM_MAILS_PER_HOUR, HOUR_MS);
  if (!decision.allowed) {
    deps.logger.info('confirmation mail not sent: the address had its hourly share', { accountId: form.account_id, formId: form.id });
    return { status: 'pending_confirmation', message };
  }
  // A subject of its own per sign-up: every sign-up's link works, not only the address's newest.
  const subject = `${form.id}:${randomBase62(16)}`;
  const pending: PendingSignup = {
    account_id: form.account_id,
    form_id: form.id,
    list_id: form.list_id,
    email: signup.email,
    first_name: signup.first_name ?? null,
    last_name: signup.last_name ?? null,
    data: signup.data,
  };
  const { token } = await issueToken(deps, 'form_confirmation', subject, pending);
  // The configured origin, never the request's Host: a forged Host would mail a real token to the forger's site.
  const link = `${baseUrl}/v1/forms/confirm?token=${token}`;
  try {
    await deps.mailer.send({ from, to: signup.email, ...confirmationMail({ title: form.title ?? form.name, link, language: form.language }), messageId: form.id, accountId: form.account_id });
  } catch (error) {
    await revokeToken(deps, 'form_confirmation', subject).catch(() => undefined);
    if (error instanceof PermanentSendError) {
      throw new ApiError('service_unavailable', 'the mail provider refused the confirmation mail; this deployment cannot send it', { cause: error });
    }
    throw error;
  }
  return { status: 'pending_confirmation', message };
}

/** A sign-up waiting for its address to confirm, as its token carries it: what it will write, for which form and list. */
type PendingSignup = {
  account_id: string;
  form_id: string;
  list_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  data: Record<string, string>;
};

interface Pending {
  pending: PendingSignup;
  expiresAt: Date;
  form: FormItem;
}

/** The pending sign-up a token names, while its link works and its form takes sign-ups; 400 invalid_token otherwise. It uses nothing up. */
async function pendingOf(deps: { store: Store; clock: Clock }, token: string | undefined): Promise<Pending> {
  const { data, expiresAt } = await peekToken(deps, 'form_confirmation', token, SIGN_UP_AGAIN);
  const pending = data as PendingSignup | undefined;
  if (!pending) throw invalidToken(SIGN_UP_AGAIN);
  const form = await new FormRepository(deps.store).get(pending.account_id, pending.form_id);
  if (!form || !(await listIsOpen(deps.store, pending.account_id, pending.list_id))) throw invalidToken('the form of this link no longer takes sign-ups');
  return { pending, expiresAt, form };
}

/** What GET /v1/forms/confirm shows before the button is pressed; it confirms nothing (mail scanners open links). */
export async function describePending(deps: { store: Store; clock: Clock }, token: string | undefined): Promise<PendingSignupView & { title: string; language: string }> {
  const { pending: item, expiresAt, form } = await pendingOf(deps, token);
  return {
    status: 'pending_confirmation',
    form_id: item.form_id,
    email: item.email,
    expires_at: expiresAt.toISOString(),
    title: form.title ?? form.name,
    language: form.language,
  };
}

/**
 * Confirms a double opt-in sign-up. The subscription is written first and the token used up
 * after, so a crash between the two leaves a link that still works and whose next use finds the
 * subscription done; of two uses racing, the subscription happens once and one use answers 400.
 */
export async function confirmSignup(deps: FormDeps, token: string | undefined): Promise<ConfirmedView & { title: string; language: string }> {
  const { pending: item, form } = await pendingOf(deps, token);
  const signup: Signup = { email: item.email, data: item.data ?? {} };
  if (item.first_name !== null) signup.first_name = item.first_name;
  if (item.last_name !== null) signup.last_name = item.last_name;
  await subscribe(deps, item.account_id, item.list_id, signup, { resubscribe: true });
  await redeemToken(deps, 'form_confirmation', token, SIGN_UP_AGAIN);
  return { status: 'confirmed', form_id: item.form_id, list_id: item.list_id, email: item.email, title: form.title ?? form.name, language: form.language };
}
