// The table of powers (docs/threat-model.md), made from the manifest: for every route, what the
// pipeline answers each kind of caller, and what the route may touch. The rule here is written
// apart from the pipeline's code on purpose: test/functions/route-actors.test.ts holds the
// pipeline to it, and test/unit/threat-model.test.ts holds the document to it, so none of the
// three can drift from the others. A new route or function without a `touches` entry fails there.
import { functions, httpRoutes } from '../../functions/manifest';
import { routeKey, type Access, type FunctionDef, type HttpRoute } from '../../shared/platform';

/** Every kind of caller the table has a column for. */
export const actors = [
  'live_send',
  'live_read',
  'live_admin',
  'test_send',
  'test_read',
  'test_admin',
  'session_unverified',
  'session_verified',
  'session_staff',
  'suspended_key',
  'suspended_session',
  'none',
  'staff_token',
] as const;
export type Actor = (typeof actors)[number];

/** The column headings, short enough for a table of 13 columns; the legend spells them out. */
export const actorHeadings: Record<Actor, string> = {
  live_send: 'L·send',
  live_read: 'L·read',
  live_admin: 'L·admin',
  test_send: 'T·send',
  test_read: 'T·read',
  test_admin: 'T·admin',
  session_unverified: 'S·unverified',
  session_verified: 'S·verified',
  session_staff: 'S·staff',
  suspended_key: 'X·key',
  suspended_session: 'X·session',
  none: 'none',
  staff_token: 'staff token',
};

/** What the pipeline answers: it lets the request through (`ok`), or refuses it before the route runs. */
export type Answer = 'ok' | '401' | '403' | '403s';

const keyActors = { live_send: ['send', false], live_read: ['read', false], live_admin: ['admin', false], test_send: ['send', true], test_read: ['read', true], test_admin: ['admin', true] } as const;

/**
 * The rule, as a reviewer reads it:
 * - public routes take anyone (limited per client IP); what they do is the route's own check
 *   (a signed token, a Stripe signature, a password).
 * - staff routes take the staff token or a staff user's session; any other session is 403
 *   (account_suspended first for a suspended account's), a key or nothing is 401.
 * - key routes take a key whose scope is listed (admin always) or a session (as an admin key);
 *   nothing, and the staff token (which is no key), are 401; a suspended account's key or session
 *   is 403 account_suspended before anything else; a caller in test mode (a test key, or the
 *   session of a person whose address is not verified) is 403 on a live-only route.
 */
export function expectedAnswer(access: Access, actor: Actor): Answer {
  if (access.kind === 'public') return 'ok';
  if (access.kind === 'staff') {
    if (actor === 'staff_token' || actor === 'session_staff') return 'ok';
    if (actor === 'suspended_session') return '403s';
    return actor.startsWith('session_') ? '403' : '401';
  }
  if (actor === 'none' || actor === 'staff_token') return '401';
  if (actor === 'suspended_key' || actor === 'suspended_session') return '403s';
  const liveOnly = access.modes === 'live_only';
  if (actor === 'session_verified' || actor === 'session_staff') return 'ok';
  if (actor === 'session_unverified') return liveOnly ? '403' : 'ok';
  const [scope, testMode] = keyActors[actor];
  if (access.kind === 'key' && scope !== 'admin' && !access.scopes.includes(scope)) return '403';
  return testMode && liveOnly ? '403' : 'ok';
}

/** The access rule in words, for the table's second column. */
export function ruleOf(access: Access): string {
  if (access.kind === 'public') return 'public';
  if (access.kind === 'staff') return 'staff';
  const who = access.kind === 'any_key' ? 'any key' : [...access.scopes].join('/');
  return `${who} · ${access.modes === 'live_only' ? 'live only' : 'live+test'}`;
}

const read = 'reads the account’s data (both modes)';
const liveOnly = (what: string): string => `${what} (live only)`;

/**
 * What each function's routes may touch, and for the routes that differ, the route's own entry.
 * Every route of the account's API stays inside the caller's account: another account's ids are
 * 404, which the table does not repeat.
 */
const touches: Record<string, string> = {
  // keys
  'GET /v1/keys': 'API keys (never a secret); a test caller lists test keys only',
  'POST /v1/keys': 'a new key, its secret shown once; a test caller, or an unverified owner, mints test keys only',
  'POST /v1/keys/{id}/rotate': 'a key’s secret; a test caller moves test keys only (a live key is 404)',
  'DELETE /v1/keys/{id}': 'revokes a key; a test caller moves test keys only (a live key is 404)',
  // send
  'POST /v1/send': 'a message in the caller’s mode: live mail leaves (billed, spend caps, sandbox and sender rules, suppressions); a test send never leaves',
  'POST /v1/send/batch': 'as POST /v1/send, up to 1000 messages',
  'POST /v1/validate': 'nothing stored: a DNS lookup of the address’s domain',
  // messages
  'GET /v1/messages': read,
  'GET /v1/messages/{id}': read,
  'POST /v1/messages/{id}/cancel': 'a scheduled message; a test caller cancels test messages only (a live one is 404)',
  // suppressions
  'GET /v1/suppressions': read,
  'POST /v1/suppressions': liveOnly('the suppression list every live send checks'),
  'DELETE /v1/suppressions': liveOnly('re-opens an address to live mail'),
  'POST /v1/suppressions/import': liveOnly('the suppression list, up to 10,000 addresses'),
  // domains and BIMI
  'fn:domains': 'sending domains and their SES identities: where live mail may come from',
  'fn:bimi': 'the BIMI logo recipients see on live mail',
  'GET /v1/bimi/{domain}/logo.svg': 'an uploaded logo’s bytes (public by design: mail clients fetch it)',
  // test recipients
  'GET /v1/test-recipients': read,
  'POST /v1/test-recipients': liveOnly('who sandboxed live mail may reach; mails a one-time link'),
  'DELETE /v1/test-recipients/{id}': liveOnly('who sandboxed live mail may reach'),
  'GET /v1/test-recipients/verify': 'the one-time token’s test recipient: verified (the token is the credential)',
  // webhooks
  'fn:webhooks': 'webhook subscriptions (events of both modes): where events go, never what mail does; a test key may manage them',
  // inbound settings and received mail
  'fn:inbound-routes': 'which domains receive mail and where routes forward it (a URL, an address)',
  'POST /v1/inbound/routes/{id}/rotate-secret': 'a route’s signing secret, shown once: the old one signs no later forward',
  'fn:inbound': 'received mail of the account (read only)',
  // templates and snippets
  'POST /v1/templates': 'a new template: no live send names it yet',
  'GET /v1/templates': read,
  'GET /v1/templates/{id}': read,
  'PUT /v1/templates/{id}': liveOnly('what live sends and broadcasts render'),
  'DELETE /v1/templates/{id}': liveOnly('what live sends and broadcasts render'),
  'fn:template-render': 'nothing stored: renders a template',
  'fn:template-gallery': 'nothing: the built-in templates',
  'POST /v1/templates/snippets': 'a new snippet: no template includes it yet (a template may include only snippets that exist)',
  'GET /v1/templates/snippets': read,
  'GET /v1/templates/snippets/{id}': read,
  'PATCH /v1/templates/snippets/{id}': liveOnly('what the templates that include it render'),
  'DELETE /v1/templates/snippets/{id}': liveOnly('a snippet (refused while a template includes it)'),
  // the Mail app
  'GET /v1/mail/inboxes': read,
  'POST /v1/mail/inboxes': liveOnly('Mail inboxes: compose’s default sender'),
  'DELETE /v1/mail/inboxes/{id}': liveOnly('Mail inboxes: compose’s default sender'),
  'GET /v1/mail/threads': read,
  'GET /v1/mail/threads/{id}': 'reads a thread, and marks it read',
  'GET /v1/mail/search': read,
  'GET /v1/mail/export': read,
  'PUT /v1/mail/threads/{id}/read': 'how the mailbox shows a thread; never what is sent or received',
  'PUT /v1/mail/threads/{id}/star': 'how the mailbox shows a thread; never what is sent or received',
  'PUT /v1/mail/threads/{id}/folder': 'how the mailbox shows a thread; never what is sent or received',
  'PUT /v1/mail/threads/{id}/labels': 'how the mailbox shows a thread; never what is sent or received',
  'PUT /v1/mail/messages/{source}/{id}/star': 'how the mailbox shows a message; never what is sent or received',
  'GET /v1/mail/labels': read,
  'POST /v1/mail/labels': 'a Mail label: how the mailbox is shown',
  'DELETE /v1/mail/labels/{id}': 'a Mail label: how the mailbox is shown',
  'fn:mail-send': liveOnly('live mail from the account’s verified domains, filed in the mailbox'),
  // broadcasts
  'POST /v1/send/bulk': 'a broadcast in the caller’s mode, sending at once (a test one never leaves)',
  'GET /v1/broadcasts': read,
  'GET /v1/broadcasts/{id}': read,
  'POST /v1/broadcasts': 'a broadcast in the caller’s mode: draft, scheduled or sending (a test one never leaves)',
  'PATCH /v1/broadcasts/{id}': 'a draft’s content and recipients; a test caller moves test broadcasts only (a live one is 404)',
  'POST /v1/broadcasts/{id}/send': 'starts a broadcast; a test caller moves test broadcasts only (a live one is 404)',
  'POST /v1/broadcasts/{id}/cancel': 'stops a broadcast; a test caller moves test broadcasts only (a live one is 404)',
  // account, usage, spend caps, billing
  'GET /v1/account/verification': read,
  'GET /v1/usage': read,
  'PUT /v1/account/channels/{channel}': liveOnly('whether a channel delivers at all'),
  'GET /v1/spend-caps': read,
  'PUT /v1/spend-caps': liveOnly('how much live mail may cost before it stops'),
  'DELETE /v1/spend-caps': liveOnly('how much live mail may cost before it stops'),
  'GET /v1/billing': read,
  'POST /v1/billing/checkout': liveOnly('money: a Stripe Checkout, or a change of the live subscription'),
  'POST /v1/billing/portal': liveOnly('money: a Stripe customer portal session'),
  'POST /v1/billing/webhook': 'the plan of the account Stripe names; Stripe’s signature over the raw body is the credential (403 otherwise)',
  // sign-up, sign-in, sessions
  'POST /v1/auth/signup': 'a new user, account (test mode until verified) and session; mails a verification link (per-address budget)',
  'POST /v1/auth/verify-email': 'the token’s user: address verified, the account may go live (the token is the credential)',
  'POST /v1/auth/login': 'a new session; failed sign-ins throttled per address and per IP',
  'POST /v1/auth/login-code': 'mails a code, or starts a session with it (which proves the address)',
  'POST /v1/auth/logout': 'ends the cookie’s own session',
  'POST /v1/auth/password-reset': 'mails a link, or sets the password with it and ends every session of the user',
  'GET /v1/auth/session': 'reads who the cookie’s session is, and its CSRF token',
  'GET /v1/auth/oauth/{provider}/start': 'an OAuth state cookie and a redirect to the provider',
  'GET /v1/auth/oauth/{provider}/callback': 'signs in, or up, by the provider’s verified address (state cookie and PKCE checked)',
  // staff
  'fn:admin': 'every account of the deployment (create with keys, list, read, suspend, unsuspend, reputation board and lift of a reputation pause) and users’ roles',
  'GET /v1/admin/dead-letters': 'every queue’s DLQ: message bodies (any account’s jobs) and why they failed',
  'POST /v1/admin/dead-letters/{queue}/redrive': 'puts DLQ messages (any account’s jobs) back on their queue, as sent; audited',
  // contacts, lists, imports
  'GET /v1/contacts': read,
  'GET /v1/contacts/{id}': read,
  'GET /v1/lists': read,
  'GET /v1/lists/{id}': read,
  'GET /v1/lists/{id}/members': read,
  'POST /v1/contacts': liveOnly('who live broadcasts reach'),
  'PATCH /v1/contacts/{id}': liveOnly('who live broadcasts reach, and the data they render'),
  'DELETE /v1/contacts/{id}': liveOnly('who live broadcasts reach'),
  'POST /v1/lists': liveOnly('who live broadcasts reach'),
  'PATCH /v1/lists/{id}': liveOnly('who live broadcasts reach (a dynamic list’s filter)'),
  'DELETE /v1/lists/{id}': liveOnly('who live broadcasts reach'),
  'POST /v1/lists/{id}/members': liveOnly('who live broadcasts reach'),
  'DELETE /v1/lists/{id}/members/{contact_id}': liveOnly('who live broadcasts reach'),
  'POST /v1/uploads': 'a file under the account’s prefix in the bucket (2 MiB); only an import reads it',
  'POST /v1/contacts/import': liveOnly('contacts and list members from an uploaded CSV'),
  'GET /v1/contacts/imports/{id}': read,
  // public links and pages
  'fn:unsubscribe': 'the signed token’s recipient: suppressed on its channel (the token is the credential)',
  'GET /v1/t/o/{token}': 'the signed token’s message: an opened event on its timeline and its webhooks, if it tracks opens (the token is the credential; nothing else is read or written)',
  'GET /v1/t/c/{token}': 'the signed token’s message: a clicked event and its webhooks, if it tracks clicks; a 302 only to the link the token signs (never an open redirect)',
  'GET /v1/forms': read,
  'GET /v1/forms/{id}': read,
  'POST /v1/forms': liveOnly('a form: the deployment then mails strangers who sign up'),
  'PUT /v1/forms/{id}': liveOnly('a form: the deployment then mails strangers who sign up'),
  'DELETE /v1/forms/{id}': liveOnly('a form and its confirmation links'),
  'GET /v1/forms/{id}/config': 'reads a form’s public fields',
  'GET /v1/forms/{id}/page': 'reads a form’s public fields (a page)',
  'POST /v1/forms/{id}/submit': 'a contact in the form’s list (double opt-in: a confirmation mail from the shared sender, budgeted)',
  'GET /v1/forms/confirm': 'nothing: a page with a button',
  'POST /v1/forms/confirm': 'the one-time token’s sign-up: confirmed into the list (the token is the credential)',
  'fn:docs': 'nothing: the API’s description',
  'fn:mail-page': 'nothing: a static page',
  'fn:console-page': 'nothing: a static page',
};

/** Who may start each function that no HTTP route reaches, and what it may touch. */
const entryPoints: Record<string, { trigger: string; who: string; touches: string }> = {
  'send-worker': {
    trigger: 'queue `send`',
    who: 'only our functions send to it (IAM: the send, fan-out, sweep, Mail-send and receive-email functions)',
    touches: 'sends a stored message as stored: its mode (a test message never reaches SES), its account’s suppressions at send time (read once per batch, by the recipient the job names; a job naming another recipient than its message’s is read on its own, and the message’s own recipient is the one mailed); timeline and webhooks',
  },
  'acceptance-sweep': {
    trigger: 'every minute (EventBridge; locally a timer, and once at start)',
    who: 'the scheduler only',
    touches: 'finishes sends a killed request left half accepted, as the request would have',
  },
  'ses-events': {
    trigger: 'queue `ses-events` (SES → SNS → SQS)',
    who: 'SES’s configuration set, through our SNS topic (its policy lets only SES publish); locally the SES emulator’s feedback',
    touches: 'timeline events of the message SES names (matched by our message id tag), suppressions on bounces and complaints, the account’s reputation counters and its reputation warning or pause (an alert job to the send queue), webhooks',
  },
  'webhook-worker': {
    trigger: 'queue `webhooks`',
    who: 'only our functions',
    touches: 'signed POSTs to subscribers’ endpoints through the guarded HTTP client (no private or loopback addresses, no redirects)',
  },
  'receive-email': {
    trigger: 'queue `inbound` (SES receiving → S3 → SNS; locally the SMTP listener)',
    who: 'anyone on the internet who can send mail to an inbound-enabled domain (the listener refuses other domains: 550)',
    touches: 'the raw message, parsed as untrusted input, stored under the account that enabled the domain; email.received webhooks; the account’s route forwards (live mail from the account)',
  },
  'broadcast-fan-out': {
    trigger: 'queue `fanout`, and the scheduler’s one-off schedules of scheduled broadcasts',
    who: 'only our functions',
    touches: 'a broadcast’s pages → one send each, in the broadcast’s mode (a test broadcast never leaves), as the key that made it',
  },
  'contact-import': {
    trigger: 'queue `imports`',
    who: 'only our functions (an import a live caller started; a list delete’s rest)',
    touches: 'contacts and memberships of the import’s account, from its uploaded CSV',
  },
  fallback: {
    trigger: 'every request no route takes (`$default`)',
    who: 'anyone',
    touches: 'nothing: 404 or 405 in the error envelope',
  },
};

/** The `touches` entry of a route: its own, else its function's. */
export function touchesOf(route: HttpRoute, fn: FunctionDef): string | undefined {
  return touches[routeKey(route)] ?? touches[`fn:${fn.name}`];
}

const cell = (answer: Answer): string => (answer === 'ok' ? '✓' : answer);

/** The table of every route, one row each, in the manifest's order. Throws for a route nobody described. */
export function routesTable(): string {
  const head = `| route | rule | ${actors.map((a) => actorHeadings[a]).join(' | ')} | may touch |`;
  const rule = `| --- | --- | ${actors.map(() => ':-:').join(' | ')} | --- |`;
  const rows = httpRoutes().map((route) => {
    const what = touchesOf(route, route.fn);
    if (!what) throw new Error(`${routeKey(route)}: no entry in test/support/powers.ts's touches; say what the route may touch`);
    return `| \`${routeKey(route)}\` | ${ruleOf(route.access)} | ${actors.map((a) => cell(expectedAnswer(route.access, a))).join(' | ')} | ${what} |`;
  });
  return [head, rule, ...rows].join('\n');
}

/** The table of the functions no route reaches. Throws for one nobody described. */
export function entryPointsTable(): string {
  const rows = functions
    .filter((fn) => !fn.http?.length)
    .map((fn) => {
      const entry = entryPoints[fn.name];
      if (!entry) throw new Error(`function ${fn.name}: no entry in test/support/powers.ts's entryPoints; say who may start it and what it touches`);
      return `| \`${fn.name}\` (${fn.entry}) | ${entry.trigger} | ${entry.who} | ${entry.touches} |`;
    });
  return ['| function | started by | who can cause it | may touch |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

export const ROUTES_BEGIN = '<!-- powers:routes:begin (generated from functions/manifest.ts by test/support/powers.ts) -->';
export const ROUTES_END = '<!-- powers:routes:end -->';
export const ENTRY_BEGIN = '<!-- powers:entry-points:begin (generated) -->';
export const ENTRY_END = '<!-- powers:entry-points:end -->';

/** The document with both generated blocks put in their places. */
export function withTables(doc: string): string {
  const put = (text: string, begin: string, end: string, table: string): string => {
    const from = text.indexOf(begin);
    const to = text.indexOf(end);
    if (from < 0 || to < from) throw new Error(`docs/threat-model.md has no ${begin} … ${end} block`);
    return `${text.slice(0, from + begin.length)}\n${table}\n${text.slice(to)}`;
  };
  return put(put(doc, ROUTES_BEGIN, ROUTES_END, routesTable()), ENTRY_BEGIN, ENTRY_END, entryPointsTable());
}
