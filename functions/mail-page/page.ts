// The Mail app's page at GET /mail: one static document with its style and its script inline (one
// route: the stack's resources are counted), the script allowed by its hash in the
// Content-Security-Policy. The script builds nothing from mail as markup in this document: text
// goes in as text, and a message's HTML only into a sandboxed frame (no scripts, no same-origin)
// after the page has sanitized it. The script is web/mail/ (TypeScript), bundled by
// `npm run web:build` into generated/app-bundle.ts (lib/web-bundles.ts).
import { createHash } from 'node:crypto';
import { appStyle } from './app-style';
import { appScript } from './generated/app-bundle';

// Inline, the script must not end its element early nor open a comment the parser would act on.
if (/<\/script|<!--/i.test(appScript) || /<\/style/i.test(appStyle)) throw new Error('the Mail page script or style holds a sequence that ends its element');
const scriptHash = createHash('sha256').update(appScript).digest('base64');

/**
 * The page's policy: its one script by hash, calls to its own origin only. A message frame is
 * `srcdoc`, so it inherits this policy, and its own meta policy narrows it further: `img-src https:
 * http:` is here only so a message's remote images can load once the person asks for them (until
 * then the frame's policy and the sanitizer block them), and `style-src 'unsafe-inline'` so the
 * page's style and mail's inline styles apply (the app's script never writes markup built from
 * mail into this document).
 */
export const pagePolicy = [
  "default-src 'none'",
  `script-src 'sha256-${scriptHash}'`,
  "style-src 'unsafe-inline'",
  "img-src 'self' data: https: http:",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers of the page: never framed, never sniffed, never sent as a referrer, revalidated. */
export const pageHeaders: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'content-security-policy': pagePolicy,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

export const mailPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Postbox Mail</title><link rel="icon" href="data:,"><style>${appStyle}</style><script type="module">${appScript}</script></head>
<body>
<a class="skip" href="#threads">Skip to the thread list</a>
<p id="status" role="status" aria-live="polite"></p>
<section id="signin" aria-labelledby="signin-title">
  <h1 id="signin-title">Postbox Mail</h1>
  <form id="signin-form">
    <label for="key">API key</label>
    <input id="key" type="password" autocomplete="off" spellcheck="false" required>
    <p class="hint">Kept in this tab's session storage only, sent as a Bearer header, never in a URL.</p>
    <button type="submit">Sign in</button>
  </form>
</section>
<div id="app" hidden>
  <header>
    <h1>Mail</h1>
    <form id="search-form" role="search">
      <label for="search" class="visually-hidden">Search mail</label>
      <input id="search" name="q" type="search" placeholder="Search: from: to: subject: has:attachment after: before:" autocomplete="off">
      <button type="submit">Search</button>
    </form>
    <button type="button" id="compose-open">Compose</button>
    <button type="button" id="signout">Sign out</button>
  </header>
  <nav aria-label="Folders and labels">
    <h2 class="visually-hidden">Folders</h2>
    <ul id="folders">
      <li><button type="button" data-folder="inbox">Inbox</button></li>
      <li><button type="button" data-folder="starred">Starred</button></li>
      <li><button type="button" data-folder="sent">Sent</button></li>
      <li><button type="button" data-folder="archive">Archive</button></li>
      <li><button type="button" data-folder="spam">Spam</button></li>
      <li><button type="button" data-folder="trash">Trash</button></li>
    </ul>
    <label for="inbox-filter">Address</label>
    <select id="inbox-filter"><option value="">All addresses</option></select>
    <h2>Labels</h2>
    <ul id="labels"></ul>
    <form id="label-form">
      <label for="label-name">New label</label>
      <input id="label-name" name="name" maxlength="100" required>
      <label for="label-color">Colour</label>
      <input id="label-color" name="color" type="color" value="#3366cc">
      <button type="submit">Add label</button>
    </form>
    <p class="hint">Keys: j/k next/previous, o open, r reply, e archive, / search.</p>
  </nav>
  <main>
    <section id="list" aria-labelledby="list-title">
      <h2 id="list-title">Inbox</h2>
      <ul id="threads" tabindex="-1"></ul>
      <button type="button" id="more" hidden>Load more</button>
    </section>
    <section id="compose" aria-labelledby="compose-title" hidden>
      <h2 id="compose-title">New message</h2>
      <form id="compose-form">
        <label for="compose-to">To</label><input id="compose-to" name="to" type="email" required>
        <label for="compose-from">From (optional)</label><input id="compose-from" name="from" type="email">
        <label for="compose-subject">Subject</label><input id="compose-subject" name="subject" required>
        <label for="compose-body">Message</label><textarea id="compose-body" name="body" rows="8" required></textarea>
        <button type="submit">Send</button> <button type="button" id="compose-cancel">Cancel</button>
      </form>
    </section>
    <article id="thread" aria-labelledby="thread-title" hidden>
      <h2 id="thread-title" tabindex="-1"></h2>
      <div class="toolbar">
        <button type="button" id="star" aria-pressed="false">Star</button>
        <label for="move-to">Move to</label>
        <select id="move-to"><option value="inbox">Inbox</option><option value="archive">Archive</option><option value="spam">Spam</option><option value="trash">Trash</option></select>
        <button type="button" id="move">Move</button>
        <label for="add-label">Label</label>
        <select id="add-label"></select>
        <button type="button" id="label-add">Add</button>
      </div>
      <ul id="thread-labels" aria-label="Labels of this thread"></ul>
      <div id="messages"></div>
      <form id="reply-form">
        <h3>Reply</h3>
        <label for="reply-body">Your reply</label>
        <textarea id="reply-body" name="body" rows="5" required></textarea>
        <button type="submit">Send reply</button>
      </form>
      <form id="forward-form">
        <h3>Forward</h3>
        <label for="forward-to">To</label><input id="forward-to" name="to" type="email" required>
        <label for="forward-subject">Subject (default Fwd: and the subject)</label><input id="forward-subject" name="subject">
        <label for="forward-body">Note</label><textarea id="forward-body" name="body" rows="3" required></textarea>
        <button type="submit">Forward</button>
      </form>
    </article>
  </main>
</div>
</body></html>`;
