// What people see: the confirmation mail, and the page a browser gets from the one-time link.
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

/** The link leaks nothing onward: no scripts, no referrer, no caching of a page reached by token. */
export const pageHeaders: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/**
 * True when the Accept header ranks text/html above application/json (a browser following the
 * link); API clients, `*\/*` and no header at all get JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    return { type, q: Number.isFinite(weight) ? weight : 0 };
  });
  const weightOf = (media: string): number => {
    const family = `${media.split('/')[0]}/*`;
    const match = ranges.find((r) => r.type === media) ?? ranges.find((r) => r.type === family) ?? ranges.find((r) => r.type === '*/*');
    return match?.q ?? 0;
  };
  return weightOf('text/html') > weightOf('application/json');
}
