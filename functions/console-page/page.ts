// The console's page at GET /: one static document, its style and its script inline and allowed by
// their hashes in a strict Content-Security-Policy (no 'unsafe-inline', calls to this origin only).
// The markup is each section's (sections/*.ts); the script is web/console/ (TypeScript), bundled by
// `npm run web:build` into generated/app-bundle.ts (lib/web-bundles.ts). It builds everything it
// shows from the API with text, never markup.
import { createHash } from 'node:crypto';
import { appScript } from './generated/app-bundle';
import type { Section } from './section';
import { accountsSection } from './sections/accounts';
import { audienceSection } from './sections/audience';
import { authSection } from './sections/auth';
import { billingSection } from './sections/billing';
import { deadLettersSection } from './sections/dead-letters';
import { domainsSection } from './sections/domains';
import { keysSection } from './sections/keys';
import { messagesSection } from './sections/messages';
import { overviewSection } from './sections/overview';
import { suppressionsSection } from './sections/suppressions';
import { templatesSection } from './sections/templates';
import { usageSection } from './sections/usage';
import { webhooksSection } from './sections/webhooks';
import { style } from './style';

const sections: Section[] = [
  authSection,
  overviewSection,
  keysSection,
  domainsSection,
  messagesSection,
  suppressionsSection,
  webhooksSection,
  templatesSection,
  audienceSection,
  usageSection,
  billingSection,
  accountsSection,
  deadLettersSection,
];

export const consoleScript = appScript;

// Inline, the script must not end its element early nor open a comment the parser would act on.
if (/<\/script|<!--/i.test(consoleScript) || /<\/style/i.test(style)) throw new Error('the console script or style holds a sequence that ends its element');
const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Same-origin everything; the script and the style only by hash; never framed. */
export const consolePolicy = [
  "default-src 'self'",
  `script-src ${hash(consoleScript)}`,
  `style-src ${hash(style)}`,
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const consoleHeaders: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'content-security-policy': consolePolicy,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const navItems = sections
  .flatMap((s) => s.nav ?? [])
  .map((n) => `<li${n.staff ? ' data-staff hidden' : ''}><a href="#/${n.view}" data-nav="${n.view}">${n.label}</a></li>`)
  .join('');
const signedOutMarkup = sections.filter((s) => s.signedOut).map((s) => s.markup).join('\n');
const signedInMarkup = sections.filter((s) => !s.signedOut).map((s) => s.markup).join('\n');

export const consolePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Postbox</title><link rel="icon" href="data:,"><style>${style}</style><script type="module">${consoleScript}</script></head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<header class="bar"><h1>Postbox</h1><span id="who"></span><span id="header-actions"><a href="/mail">Mail</a> <a href="/docs">API docs</a></span></header>
<p id="status" role="status" aria-live="polite"></p>
<p id="suspended" role="alert" hidden>This account is suspended: its keys, sending and settings are stopped. Contact support to have it lifted.</p>
<div id="signed-out"><main id="main-out">${signedOutMarkup}</main></div>
<div id="app" hidden><div id="shell">
<nav aria-label="Console"><button type="button" id="nav-toggle" aria-expanded="false" aria-controls="nav-list">Menu</button>
<ul id="nav-list">${navItems}<li><a href="/mail">Mail app</a></li><li><button type="button" id="signout">Sign out</button></li></ul></nav>
<main id="main">${signedInMarkup}</main></div></div>
</body></html>`;
