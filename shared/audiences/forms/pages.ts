// What people see: the hosted sign-up page (again with its errors after a refused post), the page
// after a sign-up, and the confirmation link's pages. HTML text only; the entry chooses the status
// and the headers each is served with.
import type { FormItem } from './repository';
import type { FieldError, Flat } from './signup';
import { HONEYPOT_FIELD } from './schemas';
import { escapeHtml, pageShell } from './html';

const AUTOCOMPLETE: Record<string, string> = { email: 'email', first_name: 'given-name', last_name: 'family-name' };

/**
 * The sign-up form: one labelled input per field (label bound by `for`, required ones marked in
 * words and with `required`), a plain POST to the submit URL, so it works without JavaScript.
 * After a refused post the values come back with an error summary (role="alert", each entry a link
 * to its input) and each bad input says what is wrong through aria-describedby and aria-invalid.
 */
export function formPage(form: FormItem, submitUrl: string, shown: { values?: Flat; errors?: FieldError[] } = {}): string {
  const title = form.title ?? form.name;
  const errors = new Map((shown.errors ?? []).map((e) => [e.key, e.message]));
  const idOf = (index: number): string => `field-${index}`;
  const summary =
    errors.size === 0
      ? ''
      : [
          '<div class="summary" role="alert" aria-labelledby="error-summary-title">',
          '<h2 id="error-summary-title">There is a problem</h2><ul>',
          ...[...errors].map(([key, message]) => {
            const index = form.fields.findIndex((f) => f.key === key);
            return index < 0 ? `<li>${escapeHtml(message)}</li>` : `<li><a href="#${idOf(index)}">${escapeHtml(message)}</a></li>`;
          }),
          '</ul></div>',
        ].join('');
  const inputs = form.fields.map((field, index) => {
    const id = idOf(index);
    const error = errors.get(field.key);
    const value = shown.values?.[field.key];
    const attributes = [
      `id="${id}"`,
      `name="${escapeHtml(field.key)}"`,
      `type="${field.key === 'email' ? 'email' : 'text'}"`,
      AUTOCOMPLETE[field.key] ? `autocomplete="${AUTOCOMPLETE[field.key]}"` : '',
      field.required ? 'required' : '',
      value ? `value="${escapeHtml(value)}"` : '',
      error ? `aria-invalid="true" aria-describedby="${id}-error"` : '',
    ].filter(Boolean);
    return [
      `<label for="${id}">${escapeHtml(field.label)}${field.required ? ' (required)' : ''}</label>`,
      `<input ${attributes.join(' ')}>`,
      error ? `<p class="error" id="${id}-error">${escapeHtml(error)}</p>` : '',
    ].join('');
  });
  // The honeypot: `hidden` keeps it from sight, from the accessibility tree and from the tab
  // order; a person never fills it, a bot filling every input does.
  const honeypot = `<div hidden><label for="${HONEYPOT_FIELD}-field">Leave this empty</label><input id="${HONEYPOT_FIELD}-field" name="${HONEYPOT_FIELD}" type="text" tabindex="-1" autocomplete="off"></div>`;
  const main = [
    `<h1>${escapeHtml(title)}</h1>`,
    form.description ? `<p>${escapeHtml(form.description)}</p>` : '',
    summary,
    `<form method="post" action="${escapeHtml(submitUrl)}">`,
    ...inputs,
    honeypot,
    `<button type="submit">${escapeHtml(form.submit_label)}</button>`,
    '</form>',
  ].join('\n');
  return pageShell({ language: form.language, title: errors.size > 0 ? `Error: ${title}` : title, main });
}

/** A short page: a heading and one paragraph of text. */
export function messagePage(input: { language: string; heading: string; text: string }): string {
  return pageShell({ language: input.language, title: input.heading, main: `<h1>${escapeHtml(input.heading)}</h1>\n<p role="status">${escapeHtml(input.text)}</p>` });
}

/** After a sign-up from the hosted page (when the form has no redirect_url). */
export const thanksPage = (form: FormItem, message: string): string => messagePage({ language: form.language, heading: form.title ?? form.name, text: message });

/** The confirmation link's page: a button that POSTs the token, so opening the link (a mail scanner does) confirms nothing. */
export function confirmPage(input: { title: string; language: string; email: string; token: string; action: string }): string {
  const main = [
    `<h1>Confirm your subscription</h1>`,
    `<p>Subscribe <strong>${escapeHtml(input.email)}</strong> to ${escapeHtml(input.title)}?</p>`,
    `<form method="post" action="${escapeHtml(input.action)}">`,
    `<input type="hidden" name="token" value="${escapeHtml(input.token)}">`,
    '<button type="submit">Confirm subscription</button>',
    '</form>',
  ].join('\n');
  return pageShell({ language: input.language, title: 'Confirm your subscription', main });
}

export const confirmedPage = (input: { title: string; language: string; email: string }): string =>
  messagePage({ language: input.language, heading: 'Subscription confirmed', text: `${input.email} is now subscribed to ${input.title}. You can close this page.` });

export const invalidLinkPage = (): string =>
  messagePage({ language: 'en', heading: 'Link not valid', text: 'This link is invalid, has already been used or has expired. Sign up again to get a new one.' });

export const formNotFoundPage = (): string => messagePage({ language: 'en', heading: 'Form not found', text: 'This sign-up form does not exist or no longer takes sign-ups.' });
