// What a person sees at the unsubscribe link: the confirmation page (a GET, which changes
// nothing: mail scanners follow links), the page after the button's POST, and the page of a link
// that is not valid. HTML text only; the entry chooses the status and headers.
import type { UnsubscribeState } from './unsubscribe';

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);

function page(title: string, body: string): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title></head>`,
    `<body style="font-family:sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem"><h1>${escapeHtml(title)}</h1>${body}</body></html>`,
  ].join('\n');
}

const from = (state: UnsubscribeState): string => (state.sender ? ` from <strong>${escapeHtml(state.sender)}</strong>` : '');

/**
 * The button posts the form to the page's own address (no action attribute), so the page needs no
 * origin and the policy's form-action 'self' holds wherever the API is served.
 */
export function confirmPage(state: UnsubscribeState): string {
  if (state.unsubscribed) return donePage(state);
  return page(
    'Unsubscribe?',
    [
      `<p><strong>${escapeHtml(state.recipient)}</strong> will no longer get ${escapeHtml(state.channel)} messages${from(state)}.</p>`,
      '<form method="post"><input type="hidden" name="confirm" value="yes">',
      '<button type="submit" style="font-size:1rem;padding:.5rem 1rem">Unsubscribe</button></form>',
      '<p>If you opened this link by mistake, close this page and nothing changes.</p>',
    ].join('\n'),
  );
}

export const donePage = (state: UnsubscribeState): string =>
  page('You are unsubscribed', `<p><strong>${escapeHtml(state.recipient)}</strong> will no longer get ${escapeHtml(state.channel)} messages${from(state)}. You can close this page.</p>`);

export const invalidLinkPage = (): string => page('Link not valid', '<p>This unsubscribe link is not valid. Use the link from the message as it was mailed.</p>');
