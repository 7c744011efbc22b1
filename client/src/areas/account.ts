// The client's calls of usage, spend caps, billing, the account's channels, the staff routes and
// sign-in: each a function of the transport's Requester, which client/src/index.ts makes a
// namespace of Postbox.
import { enc, type Requester } from '../transport';
import type { Body, Ok, PathParams, Query } from '../types';

export const usageCalls = (request: Requester) => ({
  /** Sends and estimated cost of a period, YYYY-MM (default the current one). */
  get: (query?: Query<'/v1/usage', 'get'>) => request<Ok<'/v1/usage', 'get'>>({ method: 'GET', path: '/v1/usage', query }),
});

export const spendCapsCalls = (request: Requester) => ({
  /** Creates or changes the account cap (no key_id) or one key's; the same body again changes nothing. */
  put: (body: Body<'/v1/spend-caps', 'put'>) => request<Ok<'/v1/spend-caps', 'put'>>({ method: 'PUT', path: '/v1/spend-caps', body, resendable: true }),
  list: () => request<Ok<'/v1/spend-caps', 'get'>>({ method: 'GET', path: '/v1/spend-caps' }),
  /** Removes the account cap, or with key_id that key's. */
  remove: (query?: Query<'/v1/spend-caps', 'delete'>) => request<Ok<'/v1/spend-caps', 'delete'>>({ method: 'DELETE', path: '/v1/spend-caps', query }),
});

export const billingCalls = (request: Requester) => ({
  /** The plan in force, its subscription status and the included emails left this cycle. */
  get: () => request<Ok<'/v1/billing', 'get'>>({ method: 'GET', path: '/v1/billing' }),
  /** `{url}` of a Stripe Checkout page, or `{updated: true, plan}` when a live subscription was changed in place. */
  checkout: (body: Body<'/v1/billing/checkout', 'post'>) => request<Ok<'/v1/billing/checkout', 'post'>>({ method: 'POST', path: '/v1/billing/checkout', body }),
  /** `{url}` of a Stripe customer portal session. */
  portal: () => request<Ok<'/v1/billing/portal', 'post'>>({ method: 'POST', path: '/v1/billing/portal' }),
});

export const accountCalls = (request: Requester) => ({
  /** Per-channel sending readiness; any key may ask. */
  verification: () => request<Ok<'/v1/account/verification', 'get'>>({ method: 'GET', path: '/v1/account/verification' }),
  setChannel: (channel: PathParams<'/v1/account/channels/{channel}', 'put'>['channel'], body: Body<'/v1/account/channels/{channel}', 'put'>) =>
    request<Ok<'/v1/account/channels/{channel}', 'put'>>({ method: 'PUT', path: `/v1/account/channels/${enc(channel)}`, body }),
});

export const adminCalls = (request: Requester) => ({
  createAccount: (body: Body<'/v1/admin/accounts', 'post'> = {}) =>
    request<Ok<'/v1/admin/accounts', 'post'>>({ method: 'POST', path: '/v1/admin/accounts', body }),
  /** Newest first; by status, or every account with an address (walk with `paginate`). */
  listAccounts: (query?: Query<'/v1/admin/accounts', 'get'>) =>
    request<Ok<'/v1/admin/accounts', 'get'>>({ method: 'GET', path: '/v1/admin/accounts', query }),
  getAccount: (id: PathParams<'/v1/admin/accounts/{id}', 'get'>['id']) =>
    request<Ok<'/v1/admin/accounts/{id}', 'get'>>({ method: 'GET', path: `/v1/admin/accounts/${enc(id)}` }),
  suspend: (id: PathParams<'/v1/admin/accounts/{id}/suspend', 'post'>['id']) =>
    request<Ok<'/v1/admin/accounts/{id}/suspend', 'post'>>({ method: 'POST', path: `/v1/admin/accounts/${enc(id)}/suspend`, resendable: true }),
  unsuspend: (id: PathParams<'/v1/admin/accounts/{id}/unsuspend', 'post'>['id']) =>
    request<Ok<'/v1/admin/accounts/{id}/unsuspend', 'post'>>({ method: 'POST', path: `/v1/admin/accounts/${enc(id)}/unsuspend`, resendable: true }),
  /** Makes a signed-up user (verified address) staff, or an owner again; ends their sessions. */
  setUserRole: (body: Body<'/v1/admin/users/role', 'post'>) =>
    request<Ok<'/v1/admin/users/role', 'post'>>({ method: 'POST', path: '/v1/admin/users/role', body, resendable: true }),
  /** The staff audit log, newest first (walk with `paginate`). */
  listAudit: (query?: Query<'/v1/admin/audit', 'get'>) =>
    request<Ok<'/v1/admin/audit', 'get'>>({ method: 'GET', path: '/v1/admin/audit', query }),
  /** Each queue's DLQ: its depth and up to 10 messages with why they failed. */
  listDeadLetters: () => request<Ok<'/v1/admin/dead-letters', 'get'>>({ method: 'GET', path: '/v1/admin/dead-letters' }),
  /** Puts DLQ messages back on their queue: `ids`, or all (up to 1,000 a call). Audited. */
  redriveDeadLetters: (queue: PathParams<'/v1/admin/dead-letters/{queue}/redrive', 'post'>['queue'], body: Body<'/v1/admin/dead-letters/{queue}/redrive', 'post'> = {}) =>
    request<Ok<'/v1/admin/dead-letters/{queue}/redrive', 'post'>>({ method: 'POST', path: `/v1/admin/dead-letters/${enc(queue)}/redrive`, body }),
});

export const authCalls = (request: Requester) => ({
  /** A new account and its owner, signed in at once; mails a verification link. */
  signUp: (body: Body<'/v1/auth/signup', 'post'>) => request<Ok<'/v1/auth/signup', 'post'>>({ method: 'POST', path: '/v1/auth/signup', body }),
  /** Redeems the verification link's token. */
  verifyEmail: (body: Body<'/v1/auth/verify-email', 'post'>) =>
    request<Ok<'/v1/auth/verify-email', 'post'>>({ method: 'POST', path: '/v1/auth/verify-email', body }),
  logIn: (body: Body<'/v1/auth/login', 'post'>) => request<Ok<'/v1/auth/login', 'post'>>({ method: 'POST', path: '/v1/auth/login', body }),
  /** `{email}` mails a six-digit code (202); `{email, code}` signs in with it. */
  logInWithCode: (body: Body<'/v1/auth/login-code', 'post'>) =>
    request<Ok<'/v1/auth/login-code', 'post'>>({ method: 'POST', path: '/v1/auth/login-code', body }),
  logOut: () => request<Ok<'/v1/auth/logout', 'post'>>({ method: 'POST', path: '/v1/auth/logout' }),
  /** `{email}` mails a reset link (202); `{token, password}` sets the new password and ends every session. */
  resetPassword: (body: Body<'/v1/auth/password-reset', 'post'>) =>
    request<Ok<'/v1/auth/password-reset', 'post'>>({ method: 'POST', path: '/v1/auth/password-reset', body }),
  /** Who is signed in with the session cookie. */
  session: () => request<Ok<'/v1/auth/session', 'get'>>({ method: 'GET', path: '/v1/auth/session' }),
});
