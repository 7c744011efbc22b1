// The access rules routes are declared with (shared/platform.ts `Access`).
import type { Access } from '../shared/platform';

// Test-mode keys, and the sessions of people who have not verified their address yet, may call
// every key route except the `…_LIVE` ones, which change what live mail reads or does: who it goes
// to (contacts, lists, suppressions), what it says (templates, snippets), where it comes from
// (domains, inboxes) and whether it goes at all (docs/api-decisions.md, "Test-mode keys"). The
// pipeline enforces it from this table; docs/threat-model.md is the table of powers it makes.
// A `live_and_test` route that moves a stored live thing (a broadcast, a scheduled message, a
// key) answers a test-mode caller 404 for a live one, in its use case.
export const ADMIN: Access = { kind: 'key', scopes: ['admin'], modes: 'live_and_test' };
export const ADMIN_LIVE: Access = { kind: 'key', scopes: ['admin'], modes: 'live_only' };
export const READ: Access = { kind: 'key', scopes: ['read'], modes: 'live_and_test' };
export const SEND_OR_READ: Access = { kind: 'key', scopes: ['send', 'read'], modes: 'live_and_test' };
export const ANY_KEY: Access = { kind: 'any_key', modes: 'live_and_test' };
export const STAFF: Access = { kind: 'staff' };
export const SEND: Access = { kind: 'key', scopes: ['send'], modes: 'live_and_test' };
export const SEND_LIVE: Access = { kind: 'key', scopes: ['send'], modes: 'live_only' };
export const PUBLIC: Access = { kind: 'public' };
