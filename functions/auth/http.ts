// Sign-up, sign-in and the session (issue 19). Every route is public (limited per client IP); the
// session travels in the __Host-postbox_session cookie, set and cleared here, read by the pipeline.
// Every POST changes who is signed in, so each takes JSON from this service's own pages or from no
// browser at all (shared/http/first-party.ts): no login CSRF, no cross-site sign-out.
import { functionNamed } from '../manifest';
import { auth } from './definition';
import { passwordResetBody, loginBody, loginCodeBody, signUpBody, verifyEmailBody } from '../../shared/auth/schemas';
import { logIn, logInWithCode, logOut, requestLoginCode, requestPasswordReset, resetPassword, sessionView, signUp, verifyEmail, type SignedIn } from '../../shared/auth/service';
import { findSession } from '../../shared/auth/session-lookup';
import { ApiError } from '../../shared/errors';
import { clearedSessionCookie } from '../../shared/http/cookies';
import { firstPartyPosts } from '../../shared/http/first-party';
import { createHttpHandler } from '../../shared/http/pipeline';
import { json, noContent, shownOnce } from '../../shared/http/respond';
import type { HttpResult } from '../../shared/http/types';
import { parseInput } from '../../shared/http/validate';
import type { Container } from '../../shared/runtime/container';
import { oauthRoutes } from './oauth';
import { startedSessionCookie } from './session-cookie';

/** An answer that starts a session: the cookie, and nothing a cache may keep. */
function signedIn(c: Container, status: number, body: unknown, started: SignedIn['session']): HttpResult {
  return { ...shownOnce(status, body), cookies: [startedSessionCookie(c, started)] };
}

async function withSessionView(c: Container, status: number, done: SignedIn): Promise<HttpResult> {
  const view = await sessionView(c, { user_id: done.user.id, account_id: done.user.account_id, expires_at: Math.floor(done.session.expiresAt.getTime() / 1000) }, done.session.id);
  return signedIn(c, status, view, done.session);
}

const accepted = (): HttpResult => json(202, {});

export const handler = createHttpHandler(auth, firstPartyPosts({
  'POST /v1/auth/signup': async (req, c) => {
    const done = await signUp(c, parseInput(signUpBody, req.body));
    return signedIn(c, 201, { account_id: done.user.account_id }, done.session);
  },
  'POST /v1/auth/verify-email': async (req, c) => json(200, await verifyEmail(c, parseInput(verifyEmailBody, req.body).token)),
  'POST /v1/auth/login': async (req, c) => withSessionView(c, 200, await logIn(c, parseInput(loginBody, req.body), req.sourceIp)),
  'POST /v1/auth/login-code': async (req, c) => {
    const body = parseInput(loginCodeBody, req.body);
    if (body.code === undefined) {
      await requestLoginCode(c, body.email);
      return accepted();
    }
    return withSessionView(c, 200, await logInWithCode(c, body.email, body.code, req.sourceIp));
  },
  'POST /v1/auth/logout': async (req, c) => {
    await logOut(c, req.sessionId);
    return { ...noContent(), cookies: [clearedSessionCookie()] };
  },
  'POST /v1/auth/password-reset': async (req, c) => {
    const body = parseInput(passwordResetBody, req.body);
    if ('token' in body) {
      await resetPassword(c, body.token, body.password);
      return json(200, {});
    }
    await requestPasswordReset(c, body.email);
    return accepted();
  },
  'GET /v1/auth/session': async (req, c) => {
    const session = req.sessionId === undefined ? undefined : await findSession(c, req.sessionId);
    if (!session || req.sessionId === undefined) throw new ApiError('unauthorized', 'not signed in');
    return shownOnce(200, await sessionView(c, session, req.sessionId));
  },
  ...oauthRoutes,
}));
