// Signing in with GitHub or Google (issue 19): the start redirects to the provider with a state
// and a PKCE challenge, and binds the browser to the state with a short cookie; the callback
// checks both, signs the person in and redirects to the console. Plugged into the auth function's
// route table (http.ts); no other bundle carries it.
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import { oauthCallbackQuery } from '../../shared/auth/oauth/schemas';
import { finishOAuth, startOAuth, type OAuthDeps } from '../../shared/auth/oauth/service';
import type { OAuthClient } from '../../shared/auth/oauth/providers';
import { ApiError, NotFoundError } from '../../shared/errors';
import { cookieValue, httpOnlyCookie, OAUTH_STATE_COOKIE } from '../../shared/http/cookies';
import type { RouteHandler } from '../../shared/http/pipeline';
import { redirect } from '../../shared/http/respond';
import type { HttpRequest, HttpResult } from '../../shared/http/types';
import { parseInput } from '../../shared/http/validate';
import { oauthProviders, type OAuthProvider } from '../../shared/platform';
import { oauthSettingsOf } from '../../shared/runtime/config';
import { operatorSecret, type Container } from '../../shared/runtime/container';
import { startedSessionCookie } from './session-cookie';

const STATE_PATH = '/v1/auth/oauth';
const STATE_MAX_AGE = 600;
const PROVIDER_TIMEOUT_MS = 10_000;

/** Holds the state for the one redirect back: never readable by script, sent only to the OAuth routes. */
const stateCookie = (state: string, maxAge: number): string => httpOnlyCookie(OAUTH_STATE_COOKIE, state, STATE_PATH, maxAge);

function providerOf(req: HttpRequest): OAuthProvider {
  const provider = req.params.provider;
  if (!oauthProviders.includes(provider as OAuthProvider)) throw new NotFoundError('OAuth provider');
  return provider as OAuthProvider;
}

/** The provider's client in this deployment: its id (settings) and secret (an operator secret); 503 oauth_not_configured without both. */
function clientOf(c: Container, provider: OAuthProvider): OAuthClient {
  const settings = oauthSettingsOf(c.config)[provider];
  const clientSecret = operatorSecret(c.secrets, `oauth-${provider}-client-secret`);
  if (!settings || !clientSecret) throw new ApiError('oauth_not_configured', `signing in with ${provider} is not configured in this deployment`);
  return { provider, clientId: settings.clientId, clientSecret, ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}) };
}

/**
 * The provider's requests go through the guarded HTTP adapter: public addresses and https only,
 * except where a base URL override points at a local stand-in (set in tests and locally only;
 * the override is never read in AWS), as WEBHOOK_ALLOW_PRIVATE does for webhooks locally.
 */
function depsOf(c: Container, client: OAuthClient): OAuthDeps {
  return { ...c, http: new GuardedHttp({ allowPrivate: client.baseUrl !== undefined }) };
}

/** The configured origin's callback: the redirect URI registered with the provider. */
const callbackUri = (req: HttpRequest, provider: OAuthProvider): string => `${req.baseUrl}${STATE_PATH}/${provider}/callback`;

/** Back to the console, with the state cookie cleared. */
const toConsole = (req: HttpRequest, fragment: string, cookies: string[] = []): HttpResult => ({
  ...redirect(302, `${req.baseUrl}/#/${fragment}`),
  cookies: [stateCookie('', 0), ...cookies],
});

export const oauthRoutes = {
  'GET /v1/auth/oauth/{provider}/start': async (req, c) => {
    const provider = providerOf(req);
    const client = clientOf(c, provider);
    const { location, state } = await startOAuth(depsOf(c, client), client, callbackUri(req, provider));
    return { ...redirect(302, location), cookies: [stateCookie(state, STATE_MAX_AGE)] };
  },
  'GET /v1/auth/oauth/{provider}/callback': async (req, c) => {
    const provider = providerOf(req);
    const client = clientOf(c, provider);
    const query = parseInput(oauthCallbackQuery, req.query, 'query');
    const outcome = await finishOAuth(depsOf(c, client), client, {
      ...query,
      cookieState: cookieValue(OAUTH_STATE_COOKIE, req.cookies, req.headers.cookie),
      redirectUri: callbackUri(req, provider),
      timeoutMs: c.config.oauthTimeoutMs ?? PROVIDER_TIMEOUT_MS,
    });
    if (outcome.kind === 'refused') return toConsole(req, `sign-in?error=${outcome.reason}`);
    return toConsole(req, 'overview', [startedSessionCookie(c, outcome.session)]);
  },
} satisfies Record<string, RouteHandler>;
