import type { ContractsOf } from '../../shared/http/contract';
import type { auth } from './definition';
import {
  acceptedView,
  loginBody,
  loginCodeBody,
  passwordResetBody,
  sessionView,
  signedUpView,
  signUpBody,
  verifiedEmailView,
  verifyEmailBody,
} from '../../shared/auth/schemas';
import { oauthCallbackQuery, oauthProviderParams } from '../../shared/auth/oauth/schemas';

const COOKIE =
  'Sets the session cookie `__Host-postbox_session` (`HttpOnly; Secure; SameSite=Lax; Path=/`, 14 days). With it, every `/v1` route answers as with an admin key of the account; ' +
  'a request that is not a GET or HEAD must also send the session\'s `csrf_token` as `X-CSRF-Token` (403 `forbidden` otherwise). An `Authorization` header wins over the cookie.';
/** Every POST of the sign-in routes (shared/http/first-party.ts). */
const FIRST_PARTY =
  'The body must be `application/json` (400 `invalid_request` otherwise). A browser request from another site (`Sec-Fetch-Site` other than `same-origin` or `none`, or an `Origin` that is not the public base URL\'s) is 403 `forbidden`; a request with neither header (curl, the SDKs) is not a browser\'s and is taken.';
/** What a sign-in by another proof of the address than the sign-up's link does to an unverified user. */
const CLAIMS =
  'If the address was not verified yet, whoever signed up with it never proved it: the password chosen at sign-up is removed and every session of the user ends first, so the session started here is the only one.';
const THROTTLED =
  'Failed sign-ins (a wrong password or a wrong code) are limited to 5 per address and 30 per client IP in 15 minutes: past that, 429 `rate_limit_exceeded` with Retry-After, before any password is checked.';

export const contracts: ContractsOf<typeof auth> = {
  'POST /v1/auth/signup': {
    operationId: 'signUp',
    description:
      'Creates an account and its owner and mails a verification link (`<public base URL>/#/verify-email/<token>`, 24 hours) from the shared sender. ' +
      `The person is signed in at once, unverified: the account stays in sandbox mode and may hold test-mode keys only until the address is verified. No API key is created. ${COOKIE} ` +
      'A password must have 10 to 256 characters and not be a common or breached password, one repeated character, the address or the service\'s name (400 `invalid_request`). ' +
      `An address that has signed up already is 409 \`conflict\`. ${FIRST_PARTY}`,
    body: signUpBody,
    responses: { 201: { description: 'Signed up and signed in', schema: signedUpView, secret: true } },
    errors: ['conflict', 'forbidden', 'service_unavailable'],
    examples: [
      { name: 'sign up', body: { email: 'newcomer-{{unique}}@example.com', password: 'correct horse battery {{unique}}', name: 'Ada' }, status: 201, as: 'none' },
      { name: 'a common password', body: { email: 'newcomer-{{unique}}@example.com', password: 'password123' }, status: 400, as: 'none' },
      { name: 'a short password', body: { email: 'newcomer-{{unique}}@example.com', password: 'short' }, status: 400, as: 'none' },
    ],
  },
  'POST /v1/auth/verify-email': {
    operationId: 'verifyEmail',
    description:
      'Redeems the mailed verification token: the address is verified and the account may leave sandbox mode. A token works once, for 24 hours, and only the newest one mailed works. ' +
      `Opening the sign-up's own link agrees to that sign-up: the password and the sessions stay. ${FIRST_PARTY}`,
    body: verifyEmailBody,
    responses: { 200: { description: 'Verified', schema: verifiedEmailView } },
    errors: ['invalid_token', 'forbidden'],
    examples: [{ name: 'an unknown token', body: { token: '0123456789abcdefghijABCDEFGHIJ0123456789' }, status: 400, as: 'none' }],
  },
  'POST /v1/auth/login': {
    operationId: 'logIn',
    description: `Signs in with email and password and answers the session view. ${COOKIE} An unknown address and a wrong password get the same 401 \`unauthorized\` after the same work; the right password of a suspended account gets 403 \`account_suspended\` and no session. ${THROTTLED} ${FIRST_PARTY}`,
    body: loginBody,
    responses: { 200: { description: 'Signed in', schema: sessionView, secret: true } },
    errors: ['unauthorized', 'forbidden', 'account_suspended', 'rate_limit_exceeded'],
    examples: [{ name: 'wrong credentials', body: { email: 'nobody-{{unique}}@example.com', password: 'not the password' }, status: 401, as: 'none' }],
  },
  'POST /v1/auth/login-code': {
    operationId: 'logInWithCode',
    description:
      'With `{email}`: mails a six-digit code (10 minutes) if the address has a user, and answers 202 either way (at most 5 mails per address an hour, sign-up and reset mails included; past that no code is made or sent, ' +
      'the code mailed before keeps working, and the answer is the same). ' +
      `With \`{email, code}\`: signs in and answers the session view (the code also verifies the address). ${CLAIMS} ${COOKIE} ` +
      `A wrong, used or expired code is 400 \`invalid_token\`; the fifth wrong code uses the code up. ${THROTTLED} ${FIRST_PARTY}`,
    body: loginCodeBody,
    responses: {
      200: { description: 'Signed in', schema: sessionView, secret: true },
      202: { description: 'A code is mailed if the address has a user', schema: acceptedView },
    },
    errors: ['invalid_token', 'forbidden', 'account_suspended', 'rate_limit_exceeded'],
    examples: [
      { name: 'ask for a code', body: { email: 'nobody-{{unique}}@example.com' }, status: 202, as: 'none' },
      { name: 'a code that was never sent', body: { email: 'nobody-{{unique}}@example.com', code: '123456' }, status: 400, as: 'none' },
    ],
  },
  'POST /v1/auth/logout': {
    operationId: 'logOut',
    description: `Ends the session and clears its cookie (\`Max-Age=0\`). Without a session, or with one that has ended, the answer is the same. It takes no body; sent without one, it needs no Content-Type. ${FIRST_PARTY}`,
    responses: { 204: { description: 'Signed out' } },
    errors: ['forbidden'],
    examples: [{ name: 'sign out', status: 204, as: 'none' }],
  },
  'POST /v1/auth/password-reset': {
    operationId: 'resetPassword',
    description:
      'With `{email}`: mails a reset link (`<public base URL>/#/reset-password/<token>`, one hour) if the address has a user, and answers 202 either way (past the 5 auth mails per address an hour none is made, and the link mailed before keeps working). ' +
      'With `{token, password}`: sets the new password (the same rules as at sign-up), verifies the address, and ends every session of the user. ' +
      `A used, expired or unknown token is 400 \`invalid_token\`. ${FIRST_PARTY}`,
    body: passwordResetBody,
    responses: {
      200: { description: 'The password is set; every session has ended', schema: acceptedView },
      202: { description: 'A link is mailed if the address has a user', schema: acceptedView },
    },
    errors: ['invalid_token', 'forbidden'],
    examples: [
      { name: 'ask for a link', body: { email: 'nobody-{{unique}}@example.com' }, status: 202, as: 'none' },
      { name: 'an unknown token', body: { token: '0123456789abcdefghijABCDEFGHIJ0123456789', password: 'a fine new passphrase' }, status: 400, as: 'none' },
    ],
  },
  'GET /v1/auth/session': {
    operationId: 'getSession',
    description: 'Who is signed in with the session cookie: the user, the account, whether it is in sandbox mode, and the CSRF token to send as `X-CSRF-Token`. No valid session is 401 `unauthorized`; a session of a suspended account is 403 `account_suspended`.',
    responses: { 200: { description: 'The session', schema: sessionView, secret: true } },
    errors: ['unauthorized', 'account_suspended'],
    examples: [{ name: 'not signed in', status: 401, as: 'none' }],
  },
  'GET /v1/auth/oauth/{provider}/start': {
    operationId: 'startOAuth',
    description:
      "A browser navigation, not an API call: 302 to the provider's authorize page (the authorization code flow with PKCE, `S256`) with `client_id`, " +
      '`redirect_uri` (`<public base URL>/v1/auth/oauth/<provider>/callback`), `scope` (GitHub `read:user user:email`; Google `openid email profile`), `state` and `code_challenge`. ' +
      'The state works once, for 10 minutes, and only in the browser that started: it is also set as the cookie `postbox_oauth_state` ' +
      '(`HttpOnly; Secure; SameSite=Lax; Path=/v1/auth/oauth; Max-Age=600`). 503 `oauth_not_configured` when this deployment has no client id and secret for the provider.',
    params: oauthProviderParams,
    responses: { 302: { description: "To the provider's authorize page; sets the state cookie" } },
    errors: ['not_found', 'oauth_not_configured'],
    examples: [
      { name: 'an unknown provider', params: { provider: 'gitlab' }, status: 404, as: 'none' },
      { name: 'a provider without a client here', params: { provider: 'github' }, status: 503, as: 'none' },
    ],
  },
  'GET /v1/auth/oauth/{provider}/callback': {
    operationId: 'finishOAuth',
    description:
      "Where the provider sends the browser back. The `state` must equal the state cookie's and is used up (a used, expired, unknown or mismatched state is 400 `invalid_token`); " +
      "the code is exchanged with the PKCE verifier, and the person's verified address read (GitHub: the primary verified address; Google: `email_verified`). " +
      'The user is the one the provider account was linked to, else the one with that address (now verified, and linked), else a new account and owner as at sign-up, verified, without a password. ' +
      `${CLAIMS} ` +
      `Then 302 to \`<public base URL>/#/overview\` with the session cookie. ${COOKIE} ` +
      'Otherwise 302 to `<public base URL>/#/sign-in?error=<reason>`: `oauth_denied` (the person said no at the provider), `oauth_email_unverified` (no verified address), ' +
      '`oauth_failed` (the provider failed, timed out or refused the code), `account_suspended`. Every 302 clears the state cookie.',
    params: oauthProviderParams,
    query: oauthCallbackQuery,
    responses: { 302: { description: 'To the console: signed in, or the sign-in view with the reason' } },
    errors: ['not_found', 'invalid_token', 'oauth_not_configured'],
    examples: [{ name: 'a provider without a client here', params: { provider: 'google' }, query: { code: 'abc', state: 'def' }, status: 503, as: 'none' }],
  },
};
