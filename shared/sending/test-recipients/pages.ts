// What people see: the confirmation mail, and the page a browser gets from the one-time link.
// HTML text only; the entry chooses the status and headers it is served with.
import type { VerifiedTestRecipientView } from './schemas';

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);

/** A header may not carry line breaks; an account name is free text. */
const oneLine = (value: string): string => value.replace(/[\r\n\t]+/g, ' ').trim();

export function linkMail(input: { accountName: string; email: string; link: string }): { subject: string; text: string; html: string } {
  const name = oneLine(input.accountName);
  const text = [
    `${name} wants to send test mail to ${input.email} while its account is in sandbox mode.`,
    '',
    'If that is fine with you, open this link within 24 hours:',
    input.link,
    '',
    'If you did not expect this, ignore this message and no test mail will be sent to you.',
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">',
    `<p>${escapeHtml(name)} wants to send test mail to <strong>${escapeHtml(input.email)}</strong> while its account is in sandbox mode.</p>`,
    `<p><a href="${escapeHtml(input.link)}">Confirm you want test mail</a> (the link works once, for 24 hours).</p>`,
    '<p>If you did not expect this, ignore this message and no test mail will be sent to you.</p>',
    '</body></html>',
  ].join('\n');
  return { subject: `Confirm you want test mail from ${name}`, text, html };
}

function page(title: string, message: string): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body style="font-family:sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1><p>${message}</p></body></html>`,
  ].join('\n');
}

export const verifiedPage = (view: VerifiedTestRecipientView): string =>
  page('Address confirmed', `<strong>${escapeHtml(view.email)}</strong> will now receive test mail from this account. You can close this page.`);

export const invalidLinkPage = (): string =>
  page('Link not valid', 'This link is invalid, has already been used or has expired. Ask for a new one to be sent.');
