// The one list of functions and their triggers. The CDK stack and the local runtime both iterate
// it, so a route exists in both runtimes or in neither. Data only: it must never import handler code.
import { type Access, type FunctionDef, type HttpRoute } from '../shared/platform';


// Test-mode keys, and the sessions of people who have not verified their address yet, may call
// every key route except the `…_LIVE` ones, which change what live mail reads or does: who it goes
// to (contacts, lists, suppressions), what it says (templates, snippets), where it comes from
// (domains, inboxes) and whether it goes at all (docs/api-decisions.md, "Test-mode keys"). The
// pipeline enforces it from this table; docs/threat-model.md is the table of powers it makes.
// A `live_and_test` route that moves a stored live thing (a broadcast, a scheduled message, a
// key) answers a test-mode caller 404 for a live one, in its use case.
const ADMIN: Access = { kind: 'key', scopes: ['admin'], modes: 'live_and_test' };
const ADMIN_LIVE: Access = { kind: 'key', scopes: ['admin'], modes: 'live_only' };
const READ: Access = { kind: 'key', scopes: ['read'], modes: 'live_and_test' };
const SEND_OR_READ: Access = { kind: 'key', scopes: ['send', 'read'], modes: 'live_and_test' };
const ANY_KEY: Access = { kind: 'any_key', modes: 'live_and_test' };
const STAFF: Access = { kind: 'staff' };
const SEND: Access = { kind: 'key', scopes: ['send'], modes: 'live_and_test' };
const SEND_LIVE: Access = { kind: 'key', scopes: ['send'], modes: 'live_only' };
const PUBLIC: Access = { kind: 'public' };

export const functions: readonly FunctionDef[] = [
  {
    name: 'keys',
    entry: 'functions/keys/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/keys', access: ADMIN, summary: 'List API keys (never the secret)' },
      { method: 'POST', path: '/v1/keys', access: ADMIN, summary: 'Create an API key; the secret is shown once' },
      { method: 'POST', path: '/v1/keys/{id}/rotate', access: ADMIN, summary: 'Rotate a key; the old secret stops at once' },
      { method: 'DELETE', path: '/v1/keys/{id}', access: ADMIN, summary: 'Revoke a key for good' },
    ],
    needs: { table: 'readwrite', secrets: ['cursor-signing-key'] },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    name: 'send',
    entry: 'functions/send/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/send', access: SEND, summary: 'Send one message (idempotent on idempotency_key)' },
      { method: 'POST', path: '/v1/send/batch', access: SEND, summary: 'Send up to 1000 messages, each independently' },
      { method: 'POST', path: '/v1/validate', access: SEND_OR_READ, summary: 'Check an address: syntax and a domain that takes mail' },
    ],
    // The bucket: content too large for the message item is written there (shared/messages/content.ts).
    needs: { table: 'readwrite', sendTo: ['send'], scheduler: true, bucket: 'readwrite' },
    memoryMb: 1024,
    timeoutSeconds: 29,
  },
  {
    name: 'send-worker',
    entry: 'functions/send/send-message.ts',
    handler: 'handler',
    queue: 'send',
    // The bucket: reads back content too large for the message item. The unsubscribe key and
    // links: marketing mail's unsubscribe link, in its headers and body (shared/unsubscribe/).
    // reputation: the alert mail names the levels.
    needs: { table: 'readwrite', sesSend: true, sendTo: ['webhooks'], bucket: 'read', secrets: ['unsubscribe-signing-key'], links: true, reputation: true },
    memoryMb: 512,
    timeoutSeconds: 30,
  },
  {
    name: 'acceptance-sweep',
    entry: 'functions/send/sweep.ts',
    handler: 'handler',
    every: { minutes: 1, summary: 'Finishes sends a killed request left half accepted (shared/messages/recovery.ts)' },
    needs: { table: 'readwrite', sendTo: ['send', 'webhooks'], scheduler: true },
    memoryMb: 512,
    timeoutSeconds: 60,
  },
  {
    name: 'messages',
    entry: 'functions/messages/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/messages', access: READ, summary: 'List messages, newest first; or one by idempotency_key' },
      { method: 'GET', path: '/v1/messages/{id}', access: READ, summary: 'A message with its event timeline' },
      { method: 'POST', path: '/v1/messages/{id}/cancel', access: SEND, summary: 'Cancel a scheduled message before it is sent' },
    ],
    needs: { table: 'readwrite', scheduler: true, secrets: ['cursor-signing-key'] },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    name: 'suppressions',
    entry: 'functions/suppressions/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/suppressions', access: SEND_OR_READ, summary: 'List suppressed recipients' },
      { method: 'POST', path: '/v1/suppressions', access: SEND_LIVE, summary: 'Suppress a recipient' },
      { method: 'DELETE', path: '/v1/suppressions', access: SEND_LIVE, summary: 'Remove a suppression (query: channel, recipient)' },
      { method: 'POST', path: '/v1/suppressions/import', access: SEND_LIVE, summary: 'Upsert up to 10000 suppressions' },
    ],
    needs: { table: 'readwrite', secrets: ['cursor-signing-key'] },
    memoryMb: 1024,
    timeoutSeconds: 29,
  },
  {
    name: 'ses-events',
    entry: 'functions/events/ingest-ses-event.ts',
    handler: 'handler',
    queue: 'ses-events',
    // send: a reputation alert (shared/reputation) is mailed by the send worker.
    needs: { table: 'readwrite', sendTo: ['webhooks', 'send'], reputation: true },
    memoryMb: 512,
    timeoutSeconds: 30,
  },
  {
    name: 'domains',
    entry: 'functions/domains/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/domains', access: READ, summary: 'List sending domains (the built-in sandbox domain first)' },
      { method: 'POST', path: '/v1/domains', access: ADMIN_LIVE, summary: 'Register a domain; answers the DNS records to publish (6, or 7 while another account contends for the name)' },
      { method: 'GET', path: '/v1/domains/{domain}', access: READ, summary: 'A domain with its records and statuses' },
      { method: 'PATCH', path: '/v1/domains/{domain}', access: ADMIN_LIVE, summary: 'Change a domain\'s settings: open_tracking, click_tracking' },
      { method: 'DELETE', path: '/v1/domains/{domain}', access: ADMIN_LIVE, summary: 'Remove a domain and its provider identity' },
      { method: 'POST', path: '/v1/domains/{domain}/verify', access: ADMIN_LIVE, summary: 'Check the DNS records now' },
      { method: 'PUT', path: '/v1/domains/{domain}/from-name', access: ADMIN_LIVE, summary: 'Default display name of mail from the domain' },
      { method: 'GET', path: '/v1/domains/{domain}/dns-setup', access: READ, summary: 'DNS setup guide for the domain’s DNS provider' },
      { method: 'GET', path: '/v1/domains/{domain}/dns-setup/zonefile', access: READ, summary: 'The records as a zone file fragment (text/plain)' },
    ],
    // The bucket: deleting a domain deletes its uploaded BIMI logo.
    needs: { table: 'readwrite', sesIdentities: true, bucket: 'readwrite' },
    memoryMb: 512,
    timeoutSeconds: 15,
  },
  {
    name: 'bimi',
    entry: 'functions/bimi/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/domains/{domain}/bimi', access: READ, summary: 'BIMI state: logo, record to publish, DMARC readiness' },
      { method: 'PUT', path: '/v1/domains/{domain}/bimi', access: ADMIN_LIVE, summary: 'Set the BIMI logo URL (https, SVG Tiny PS)' },
      { method: 'POST', path: '/v1/domains/{domain}/bimi/logo', access: ADMIN_LIVE, summary: 'Upload a BIMI logo (multipart SVG, at most 1 MiB)' },
      { method: 'GET', path: '/v1/bimi/{domain}/logo.svg', access: PUBLIC, summary: 'Serves an uploaded BIMI logo (public)' },
    ],
    needs: { table: 'readwrite', bucket: 'readwrite' },
    memoryMb: 512,
    timeoutSeconds: 15,
  },
  {
    name: 'test-recipients',
    entry: 'functions/test-recipients/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/test-recipients', access: SEND_OR_READ, summary: 'Sandbox test recipients and their state' },
      { method: 'POST', path: '/v1/test-recipients', access: SEND_LIVE, summary: 'Register a test recipient (at most 3); mails a one-time link' },
      { method: 'DELETE', path: '/v1/test-recipients/{id}', access: SEND_LIVE, summary: 'Remove a test recipient' },
      { method: 'GET', path: '/v1/test-recipients/verify', access: PUBLIC, summary: 'The one-time link: verifies a test recipient (public)' },
    ],
    needs: { table: 'readwrite', sesSend: true, secrets: ['cursor-signing-key'] },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    name: 'webhooks',
    entry: 'functions/webhooks/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/webhooks', access: SEND, summary: 'Subscribe an HTTPS endpoint; the signing secret is shown once' },
      { method: 'GET', path: '/v1/webhooks', access: SEND_OR_READ, summary: 'List webhook subscriptions' },
      { method: 'GET', path: '/v1/webhooks/{id}', access: SEND_OR_READ, summary: 'A subscription (never its secret)' },
      { method: 'PUT', path: '/v1/webhooks/{id}', access: SEND, summary: 'Change endpoint_url, event_types or is_active' },
      { method: 'DELETE', path: '/v1/webhooks/{id}', access: SEND, summary: 'Remove a subscription; its retries stop' },
      { method: 'POST', path: '/v1/webhooks/{id}/rotate-secret', access: SEND, summary: 'New signing secret, shown once' },
      { method: 'GET', path: '/v1/webhooks/{id}/deliveries', access: SEND_OR_READ, summary: 'Delivery log, most recent first' },
      { method: 'POST', path: '/v1/webhooks/{id}/deliveries/{delivery_id}/replay', access: SEND, summary: 'Deliver a logged event again, as a new delivery' },
      { method: 'POST', path: '/v1/webhooks/{id}/replay-failed', access: SEND, summary: 'Deliver every exhausted event of the log again' },
      { method: 'POST', path: '/v1/webhooks/{id}/test', access: SEND, summary: 'Deliver a signed webhook.test event' },
    ],
    // sendTo webhooks: replays and test events are queued attempts, made by the webhook worker.
    needs: { table: 'readwrite', sendTo: ['webhooks'], secrets: ['cursor-signing-key', 'data-encryption-key'] },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    // Inbound email settings (issue 16): enabling inbound on a domain, and the routes that forward
    // received mail. Deployment-gated: every route answers 404 where INBOUND_ENABLED is off.
    name: 'inbound-routes',
    entry: 'functions/inbound-routes/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/domains/{domain}/inbound', access: ADMIN_LIVE, summary: 'Turn inbound email on or off for a domain (its id or name); answers the MX record to publish' },
      { method: 'POST', path: '/v1/inbound/routes', access: SEND_LIVE, summary: 'Create an inbound route (webhook or email forward); the signing secret is shown once' },
      { method: 'GET', path: '/v1/inbound/routes', access: SEND_OR_READ, summary: 'List inbound routes (never the secret)' },
      { method: 'GET', path: '/v1/inbound/routes/{id}', access: SEND_OR_READ, summary: 'An inbound route (never its secret)' },
      { method: 'PUT', path: '/v1/inbound/routes/{id}', access: SEND_LIVE, summary: 'Change match_prefix, the destination or active; only sent fields change' },
      { method: 'DELETE', path: '/v1/inbound/routes/{id}', access: SEND_LIVE, summary: 'Delete an inbound route for good' },
      { method: 'POST', path: '/v1/inbound/routes/{id}/rotate-secret', access: SEND_LIVE, summary: 'New signing secret for a route, shown once; the old one stops signing at once' },
    ],
    needs: { table: 'readwrite', secrets: ['data-encryption-key'] },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    name: 'templates',
    entry: 'functions/templates/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/templates', access: SEND, summary: 'Create a template (Mustache; checked on write); version 1' },
      { method: 'GET', path: '/v1/templates', access: SEND_OR_READ, summary: 'List templates, newest first' },
      { method: 'GET', path: '/v1/templates/{id}', access: SEND_OR_READ, summary: 'A template; ?version=N for an earlier version' },
      { method: 'PUT', path: '/v1/templates/{id}', access: SEND_LIVE, summary: 'Change a template; content or variables make a new version' },
      { method: 'DELETE', path: '/v1/templates/{id}', access: SEND_LIVE, summary: 'Delete a template; sends with its id answer 404' },
    ],
    needs: { table: 'readwrite', secrets: ['cursor-signing-key'] },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    name: 'webhook-worker',
    entry: 'functions/webhooks/deliver-webhook.ts',
    handler: 'handler',
    queue: 'webhooks',
    needs: { table: 'readwrite', sendTo: ['webhooks'], scheduler: true, secrets: ['data-encryption-key'] },
    memoryMb: 512,
    timeoutSeconds: 35,
  },
  {
    // Received mail (issue 16): reads. The routes answer 404 unless INBOUND_ENABLED (spec: deployment-gated).
    // Table writes: the pipeline's rate limiter and key checks write, as on every key route.
    name: 'inbound',
    entry: 'functions/inbound/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/inbound', access: SEND_OR_READ, summary: 'List received emails, newest first (no bodies)' },
      { method: 'GET', path: '/v1/inbound/{id}', access: SEND_OR_READ, summary: 'A received email, with its text, html and headers' },
      { method: 'GET', path: '/v1/inbound/{id}/raw', access: SEND_OR_READ, summary: 'The received message as it arrived (message/rfc822)' },
      { method: 'GET', path: '/v1/inbound/{id}/attachments/{index}', access: SEND_OR_READ, summary: "One attachment's bytes, by its 0-based index" },
    ],
    needs: { table: 'readwrite', secrets: ['cursor-signing-key'], bucket: 'read' },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    // The Mail app (issue 17): inboxes, threads, folders, stars, read state, labels. Deployment-gated
    // like the inbound routes (404 unless INBOUND_ENABLED). Writes take send (or admin) keys, reads any key.
    name: 'mail',
    entry: 'functions/mail/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/mail/inboxes', access: ANY_KEY, summary: 'List Mail inboxes, newest first' },
      { method: 'POST', path: '/v1/mail/inboxes', access: SEND_LIVE, summary: 'Create an inbox for an address on an inbound-enabled domain' },
      { method: 'DELETE', path: '/v1/mail/inboxes/{id}', access: SEND_LIVE, summary: 'Delete an inbox; its mail stays, detached from it' },
      { method: 'GET', path: '/v1/mail/threads', access: ANY_KEY, summary: 'List threads of a folder, newest message first' },
      { method: 'GET', path: '/v1/mail/threads/{id}', access: ANY_KEY, summary: 'A thread with its messages, oldest first; marks it read' },
      { method: 'GET', path: '/v1/mail/search', access: ANY_KEY, summary: 'Search mail (words, "phrases", from:, to:, subject:, has:attachment, after:, before:), newest first' },
      { method: 'GET', path: '/v1/mail/export', access: ANY_KEY, summary: 'Export mail as JSON or mbox, a page at a time (same filters as threads)' },
      { method: 'PUT', path: '/v1/mail/threads/{id}/read', access: SEND, summary: 'Mark a thread read or unread' },
      { method: 'PUT', path: '/v1/mail/threads/{id}/star', access: SEND, summary: 'Star or unstar a thread' },
      { method: 'PUT', path: '/v1/mail/threads/{id}/folder', access: SEND, summary: 'Move a thread to inbox, archive, trash or spam' },
      { method: 'PUT', path: '/v1/mail/threads/{id}/labels', access: SEND, summary: 'Add or remove labels of a thread, by name' },
      { method: 'PUT', path: '/v1/mail/messages/{source}/{id}/star', access: SEND, summary: 'Star or unstar one message (source inbound or outbound)' },
      { method: 'GET', path: '/v1/mail/labels', access: ANY_KEY, summary: 'List labels, ordered by name' },
      { method: 'POST', path: '/v1/mail/labels', access: SEND, summary: 'Create a label (name unique without regard to case, hex colour)' },
      { method: 'DELETE', path: '/v1/mail/labels/{id}', access: SEND, summary: 'Delete a label; it leaves every thread' },
    ],
    // The bucket: a thread's large content and the raw messages an export serves are read from it.
    needs: { table: 'readwrite', secrets: ['cursor-signing-key'], bucket: 'read' },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    // The Mail app's sending (compose, reply, forward), apart from its reading so neither bundle
    // carries the other: it writes large content to the bucket and hands messages to the send
    // queue like POST /v1/send (never to the scheduler: the Mail app sends at once).
    name: 'mail-send',
    entry: 'functions/mail-send/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/mail/compose', access: SEND_LIVE, summary: 'Send a new message from a verified domain; it starts a thread' },
      { method: 'POST', path: '/v1/mail/threads/{id}/reply', access: SEND_LIVE, summary: 'Reply in a thread to its newest received message' },
      { method: 'POST', path: '/v1/mail/threads/{id}/forward', access: SEND_LIVE, summary: 'Forward the newest received message of a thread, the original attached' },
    ],
    needs: { table: 'readwrite', bucket: 'readwrite', sendTo: ['send'] },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    // SES receiving's notifications (and the local SMTP listener's): parse, store, email.received.
    name: 'receive-email',
    entry: 'functions/inbound/receive-email.ts',
    handler: 'handler',
    queue: 'inbound',
    // The bucket: reads the raw message, writes its attachments (and large content) beside it. The
    // queues: email.received and a route's webhook forward go to webhooks, a route's email forward to send.
    needs: { table: 'readwrite', sendTo: ['webhooks', 'send'], bucket: 'readwrite' },
    // A 40 MB message is read whole, and each attachment is held while it is stored.
    memoryMb: 1024,
    timeoutSeconds: 120,
  },
  {
    name: 'broadcasts',
    entry: 'functions/broadcasts/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/send/bulk', access: SEND, summary: 'Bulk email to inline recipients or a contact list; fans out asynchronously (202)' },
      { method: 'GET', path: '/v1/broadcasts', access: SEND_OR_READ, summary: 'List broadcasts, newest first' },
      { method: 'GET', path: '/v1/broadcasts/{id}', access: SEND_OR_READ, summary: 'A broadcast with its send counts' },
      { method: 'POST', path: '/v1/broadcasts', access: SEND, summary: 'Create a broadcast: draft, scheduled (scheduled_at) or sending (send_now)' },
      { method: 'PATCH', path: '/v1/broadcasts/{id}', access: SEND, summary: 'Edit a draft broadcast' },
      { method: 'POST', path: '/v1/broadcasts/{id}/send', access: SEND, summary: 'Send a draft or scheduled broadcast now (202)' },
      { method: 'POST', path: '/v1/broadcasts/{id}/cancel', access: SEND, summary: 'Cancel a draft or scheduled broadcast' },
    ],
    // The scheduler: a scheduled broadcast starts from its schedule, which a cancel removes.
    needs: { table: 'readwrite', sendTo: ['fanout'], scheduler: true, secrets: ['cursor-signing-key'] },
    memoryMb: 512,
    timeoutSeconds: 29,
  },
  {
    name: 'broadcast-fan-out',
    entry: 'functions/broadcasts/fan-out.ts',
    handler: 'handler',
    queue: 'fanout',
    // The bucket: each recipient's send writes content too large for its message item there.
    needs: { table: 'readwrite', sendTo: ['send', 'fanout', 'webhooks'], scheduler: true, bucket: 'readwrite' },
    memoryMb: 1024,
    timeoutSeconds: 120,
  },
  {
    name: 'account',
    entry: 'functions/account/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/account/verification', access: ANY_KEY, summary: 'Per-channel sending readiness' },
      { method: 'GET', path: '/v1/usage', access: READ, summary: 'Sends and estimated cost of a period (YYYY-MM)' },
      { method: 'PUT', path: '/v1/account/channels/{channel}', access: ADMIN_LIVE, summary: 'Turn a channel on or off (email, webhook)' },
    ],
    // reputation: GET /v1/usage shows the rates against the levels.
    needs: { table: 'readwrite', reputation: true },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    name: 'spend-caps',
    entry: 'functions/spend-caps/http.ts',
    handler: 'handler',
    http: [
      { method: 'PUT', path: '/v1/spend-caps', access: ADMIN_LIVE, summary: 'Set the account\'s or one key\'s monthly spend cap (hard and soft limits)' },
      { method: 'GET', path: '/v1/spend-caps', access: READ, summary: 'The account cap and the key caps' },
      { method: 'DELETE', path: '/v1/spend-caps', access: ADMIN_LIVE, summary: 'Remove the account cap, or a key\'s with ?key_id=' },
    ],
    needs: { table: 'readwrite' },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    // Plans and billing through Stripe (issue 18). Checkout and portal spend money: live admin keys
    // only (docs/api-decisions.md). The webhook is public: Stripe's signature over
    // the raw body is its credential, and it is limited per client IP like every public route.
    name: 'billing',
    entry: 'functions/billing/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/billing', access: ADMIN, summary: 'The plan in force, its subscription status and the included emails left' },
      { method: 'POST', path: '/v1/billing/checkout', access: ADMIN_LIVE, summary: 'Buy a plan (a Stripe Checkout page) or change a live subscription in place' },
      { method: 'POST', path: '/v1/billing/portal', access: ADMIN_LIVE, summary: 'A Stripe customer portal session for the account' },
      { method: 'POST', path: '/v1/billing/webhook', access: PUBLIC, body: 'raw', summary: "Stripe's signed event notifications (public; 403 invalid_signature)" },
    ],
    needs: { table: 'readwrite', secrets: ['stripe-secret-key', 'stripe-webhook-secret'], billing: true },
    memoryMb: 512,
    timeoutSeconds: 29,
  },
  {
    // Sign-up, sign-in and the console's session (issue 19). Public routes, limited per client IP;
    // failed sign-ins and the mails are budgeted per address too (shared/auth/throttle.ts).
    name: 'auth',
    entry: 'functions/auth/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/auth/signup', access: PUBLIC, summary: 'Sign up (signed in at once); mails a verification link' },
      { method: 'POST', path: '/v1/auth/verify-email', access: PUBLIC, summary: 'Verify the address with the mailed token' },
      { method: 'POST', path: '/v1/auth/login', access: PUBLIC, summary: 'Sign in with a password' },
      { method: 'POST', path: '/v1/auth/login-code', access: PUBLIC, summary: 'Mail a sign-in code, or sign in with it' },
      { method: 'POST', path: '/v1/auth/logout', access: PUBLIC, summary: 'Sign out' },
      { method: 'POST', path: '/v1/auth/password-reset', access: PUBLIC, summary: 'Mail a reset link, or set a new password' },
      { method: 'GET', path: '/v1/auth/session', access: PUBLIC, summary: 'Who is signed in, and the CSRF token' },
      { method: 'GET', path: '/v1/auth/oauth/{provider}/start', access: PUBLIC, summary: 'Sign in with GitHub or Google' },
      { method: 'GET', path: '/v1/auth/oauth/{provider}/callback', access: PUBLIC, summary: "The provider's redirect back" },
    ],
    // The OAuth apps' client secrets; the client ids are the function's environment (lib/app-stack.ts).
    needs: { table: 'readwrite', sesSend: true, links: true, secrets: ['oauth-github-client-secret', 'oauth-google-client-secret'] },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    name: 'admin',
    entry: 'functions/admin/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/admin/accounts', access: STAFF, summary: 'Create an account with its admin keys (staff token or staff session)' },
      { method: 'GET', path: '/v1/admin/accounts', access: STAFF, summary: 'List accounts, newest first; by status or email (staff token or staff session)' },
      { method: 'GET', path: '/v1/admin/accounts/{id}', access: STAFF, summary: 'One account (staff token or staff session)' },
      { method: 'POST', path: '/v1/admin/accounts/{id}/suspend', access: STAFF, summary: 'Suspend an account (staff token or staff session)' },
      { method: 'POST', path: '/v1/admin/accounts/{id}/unsuspend', access: STAFF, summary: 'Lift a suspension (staff token or staff session)' },
      { method: 'POST', path: '/v1/admin/users/role', access: STAFF, summary: 'Make a signed-up user staff, or an owner again (staff token or staff session)' },
      { method: 'GET', path: '/v1/admin/audit', access: STAFF, summary: 'The staff audit log, newest first (staff token or staff session)' },
      // Sending reputation (issue 32): the deployment's accounts by bounce and complaint rate, and the lift of a pause.
      { method: 'GET', path: '/v1/admin/reputation', access: STAFF, summary: 'Accounts by bounce and complaint rate over the last 7 days (staff token or staff session)' },
      { method: 'POST', path: '/v1/admin/accounts/{id}/reputation/lift', access: STAFF, summary: 'Lift a reputation warning or pause (staff token or staff session)' },
      { method: 'GET', path: '/v1/admin/dead-letters', access: STAFF, summary: "Each queue's DLQ: depth, messages and why they failed (staff token or staff session)" },
      { method: 'POST', path: '/v1/admin/dead-letters/{queue}/redrive', access: STAFF, summary: 'Put DLQ messages back on their queue, some or all (staff token or staff session)' },
    ],
    // deadLetters: the dead-letter routes look at and redrive every DLQ.
    needs: { table: 'readwrite', secrets: ['staff-token', 'cursor-signing-key'], deadLetters: true },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    // Its own function: showing a template as mailed takes the CSS inliner and the HTML-to-text
    // converter (juice, html-to-text), which the templates and send APIs must not carry.
    name: 'template-render',
    entry: 'functions/template-render/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/templates/preview', access: SEND_OR_READ, summary: 'Preview a template that is not stored: rendered, with its warnings and errors' },
      { method: 'POST', path: '/v1/templates/{id}/render', access: SEND_OR_READ, summary: 'Render the current version with vars, as mailed; sends nothing' },
    ],
    needs: { table: 'readwrite' },
    memoryMb: 1024,
    timeoutSeconds: 10,
  },
  {
    // Its own function: the 20 built-in templates are data the templates API need not carry.
    name: 'template-gallery',
    entry: 'functions/template-gallery/http.ts',
    handler: 'handler',
    http: [{ method: 'GET', path: '/v1/templates/gallery', access: SEND_OR_READ, summary: 'The 20 built-in templates to start from, with sample variables' }],
    needs: { table: 'readwrite' },
    memoryMb: 256,
    timeoutSeconds: 5,
  },
  {
    // Its own function, so the templates bundle does not grow. Literal paths win over
    // /v1/templates/{id} in API Gateway and in the local matcher alike.
    name: 'snippets',
    entry: 'functions/snippets/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/templates/snippets', access: SEND, summary: 'Create a snippet, a partial templates include as {{> name }}' },
      { method: 'GET', path: '/v1/templates/snippets', access: SEND_OR_READ, summary: 'List snippets, newest first' },
      { method: 'GET', path: '/v1/templates/snippets/{id}', access: SEND_OR_READ, summary: 'A snippet' },
      { method: 'PATCH', path: '/v1/templates/snippets/{id}', access: SEND_LIVE, summary: 'Change a snippet; a rename is refused while a template includes it' },
      { method: 'DELETE', path: '/v1/templates/snippets/{id}', access: SEND_LIVE, summary: 'Delete a snippet; refused while a template includes it' },
    ],
    needs: { table: 'readwrite', secrets: ['cursor-signing-key'] },
    memoryMb: 256,
    timeoutSeconds: 10,
  },
  {
    // Contacts and their lists (static and dynamic), with memberships.
    name: 'contacts',
    entry: 'functions/contacts/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/contacts', access: SEND_LIVE, summary: 'Create a contact (addresses unique per account), optionally in static lists' },
      { method: 'GET', path: '/v1/contacts', access: SEND_OR_READ, summary: 'List contacts, newest first; by email, list_id or a prefix q' },
      { method: 'GET', path: '/v1/contacts/{id}', access: SEND_OR_READ, summary: 'A contact' },
      { method: 'PATCH', path: '/v1/contacts/{id}', access: SEND_LIVE, summary: 'Change a contact; only the fields sent change' },
      { method: 'DELETE', path: '/v1/contacts/{id}', access: SEND_LIVE, summary: 'Delete a contact and its memberships' },
      { method: 'POST', path: '/v1/lists', access: SEND_LIVE, summary: 'Create a list: static, or dynamic with a filter' },
      { method: 'GET', path: '/v1/lists', access: SEND_OR_READ, summary: 'List contact lists with their member counts, newest first' },
      { method: 'GET', path: '/v1/lists/{id}', access: SEND_OR_READ, summary: 'A contact list with its member count' },
      { method: 'PATCH', path: '/v1/lists/{id}', access: SEND_LIVE, summary: "Rename a list or change a dynamic list's filter" },
      { method: 'DELETE', path: '/v1/lists/{id}', access: SEND_LIVE, summary: 'Delete a list; its contacts stay' },
      { method: 'POST', path: '/v1/lists/{id}/members', access: SEND_LIVE, summary: 'Add a contact to a static list, by id or by address' },
      { method: 'GET', path: '/v1/lists/{id}/members', access: SEND_OR_READ, summary: "A list's members; a dynamic list's are the contacts its filter matches now" },
      { method: 'DELETE', path: '/v1/lists/{id}/members/{contact_id}', access: SEND_LIVE, summary: 'Take a contact out of a static list' },
    ],
    // The imports queue: a list delete longer than one request's share leaves the rest to a job there.
    needs: { table: 'readwrite', secrets: ['cursor-signing-key'], sendTo: ['imports'] },
    memoryMb: 512,
    timeoutSeconds: 29,
  },
  {
    name: 'uploads',
    entry: 'functions/uploads/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/uploads', access: SEND, body: 'raw', summary: 'Store a file (CSV, text or JSON, at most 2 MiB) for a later import' },
      { method: 'POST', path: '/v1/contacts/import', access: SEND_LIVE, summary: 'Import contacts from an uploaded CSV; runs in the background (202)' },
      { method: 'GET', path: '/v1/contacts/imports/{id}', access: SEND_OR_READ, summary: 'A contact import: status, counts and the first 100 row errors' },
    ],
    // The bucket: uploads are stored there under the account's prefix; an import checks its file is there.
    needs: { table: 'readwrite', bucket: 'readwrite', sendTo: ['imports'] },
    memoryMb: 512,
    timeoutSeconds: 15,
  },
  {
    name: 'contact-import',
    entry: 'functions/uploads/import-contacts.ts',
    handler: 'handler',
    queue: 'imports',
    // The bucket: reads the uploaded CSV. Each job writes up to 20 chunks of 500 rows, then queues the
    // next; a list-removal job removes up to 20,000 memberships of a deleted list, then queues the next.
    needs: { table: 'readwrite', bucket: 'read', sendTo: ['imports'] },
    memoryMb: 1024,
    timeoutSeconds: 120,
  },
  {
    // The one-click unsubscribe link of marketing mail and the tracking links: public, the signed token is the credential.
    name: 'unsubscribe',
    entry: 'functions/unsubscribe/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/unsubscribe/{token}', access: PUBLIC, summary: 'The unsubscribe link: a page whose button unsubscribes; changes nothing (public)' },
      { method: 'POST', path: '/v1/unsubscribe/{token}', access: PUBLIC, body: 'raw', summary: 'One-click unsubscribe (RFC 8058): the recipient stops getting mail on the channel (public)' },
      // The local runtime's open and click tracking (shared/tracking/; SES tracks in AWS): the same
      // kind of signed link, keyed from the same secret, so they share this function.
      { method: 'GET', path: '/v1/t/o/{token}', access: PUBLIC, summary: 'Open tracking pixel of a tracked message: records opened, answers a 1×1 GIF (public)' },
      { method: 'GET', path: '/v1/t/c/{token}', access: PUBLIC, summary: 'Tracked link of a message: records clicked, answers 302 to the link its token signs (public)' },
    ],
    // The table: public routes are limited per client IP. The webhooks queue: opened and clicked fan out.
    needs: { table: 'readwrite', secrets: ['unsubscribe-signing-key'], sendTo: ['webhooks'] },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    // Hosted sign-up forms bound to a static list. The public routes (config, page, submit,
    // confirm) are limited per client IP; a double opt-in sign-up mails its confirmation link.
    name: 'forms',
    entry: 'functions/forms/http.ts',
    handler: 'handler',
    http: [
      { method: 'POST', path: '/v1/forms', access: SEND_LIVE, summary: 'Create a sign-up form bound to a static list' },
      { method: 'GET', path: '/v1/forms', access: SEND_OR_READ, summary: 'List sign-up forms, newest first' },
      { method: 'GET', path: '/v1/forms/{id}', access: SEND_OR_READ, summary: 'A sign-up form' },
      { method: 'PUT', path: '/v1/forms/{id}', access: SEND_LIVE, summary: 'Replace a sign-up form' },
      { method: 'DELETE', path: '/v1/forms/{id}', access: SEND_LIVE, summary: 'Delete a sign-up form; its confirmation links stop working' },
      { method: 'GET', path: '/v1/forms/{id}/config', access: PUBLIC, summary: 'What an embed needs to draw a form (public JSON, any origin)' },
      { method: 'GET', path: '/v1/forms/{id}/page', access: PUBLIC, summary: 'The hosted sign-up page (public HTML)' },
      { method: 'POST', path: '/v1/forms/{id}/submit', access: PUBLIC, body: 'raw', summary: 'Sign up through a form, JSON or form-encoded (public; 202)' },
      { method: 'GET', path: '/v1/forms/confirm', access: PUBLIC, summary: 'The mailed confirmation link: a page with a button (public)' },
      { method: 'POST', path: '/v1/forms/confirm', access: PUBLIC, body: 'raw', summary: 'Confirm a double opt-in sign-up with its one-time token (public)' },
    ],
    needs: { table: 'readwrite', sesSend: true, secrets: ['cursor-signing-key'] },
    memoryMb: 512,
    timeoutSeconds: 10,
  },
  {
    name: 'docs',
    entry: 'functions/docs/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/v1/openapi.json', access: PUBLIC, summary: 'The OpenAPI 3.1 document of this API (public, cacheable)' },
      { method: 'GET', path: '/docs', access: PUBLIC, summary: 'The API reference, rendered from the document (public)' },
    ],
    // The table: public routes are limited per client IP.
    needs: { table: 'readwrite' },
    memoryMb: 256,
    timeoutSeconds: 5,
  },
  {
    // The Mail app's web page (issue 17): one static, public page (script and style inline: every
    // route costs the stack two resources); it reads mail through the Mail API with the key the
    // person signs in with. The table: public routes are limited per client IP.
    name: 'mail-page',
    entry: 'functions/mail-page/http.ts',
    handler: 'handler',
    http: [
      { method: 'GET', path: '/mail', access: PUBLIC, summary: 'The Mail app: a web page to read, search and answer mail (public page; the API needs a key)' },
    ],
    needs: { table: 'readwrite' },
    memoryMb: 256,
    timeoutSeconds: 5,
  },
  {
    // The web console (issue 19): one static, public page at the root (script and style inline);
    // it runs the account through the /v1 API with the dashboard session's cookie. The table:
    // public routes are limited per client IP.
    name: 'console-page',
    entry: 'functions/console-page/http.ts',
    handler: 'handler',
    http: [{ method: 'GET', path: '/', access: PUBLIC, summary: 'The web console: sign up, sign in and run the account in a browser (public page; the API needs a session)' }],
    needs: { table: 'readwrite' },
    memoryMb: 256,
    timeoutSeconds: 5,
  },
  {
    name: 'fallback',
    entry: 'functions/fallback/http.ts',
    handler: 'handler',
    defaultRoute: true,
    needs: {},
    memoryMb: 256,
    timeoutSeconds: 5,
  },
];

export function httpRoutes(): Array<HttpRoute & { fn: FunctionDef }> {
  return functions.flatMap((fn) => (fn.http ?? []).map((route) => ({ ...route, fn })));
}

/** A function of the manifest by name; an entry file names its own. */
export function functionNamed(name: string): FunctionDef {
  const found = functions.find((f) => f.name === name);
  if (!found) throw new Error(`function ${name} is not in the manifest`);
  return found;
}
