// GitHub's and Google's side of an OAuth sign-in: where the browser is sent, the code exchanged for
// an access token (with the PKCE verifier and the client secret), and the person's id, name and
// verified address read with it. Every request goes through the HttpExchange port, with a
// deadline; anything but a well-formed 2xx JSON answer is a ProviderFailure.
import * as z from 'zod';
import type { OAuthProvider } from '../../platform';
import type { HttpExchange } from '../../ports/http-client';

/** One provider as this deployment is configured for it. */
export interface OAuthClient {
  provider: OAuthProvider;
  clientId: string;
  clientSecret: string;
  /** Tests and local stand-ins only: replaces every host of the provider. */
  baseUrl?: string;
}

/** What the sign-in needs of the person: the provider's id, a name, and the address only if the provider verified it. */
export interface ProviderProfile {
  id: string;
  name: string | null;
  verifiedEmail?: string;
}

/** The provider did not answer as it should (a timeout, non-2xx, not JSON, no token): logged, answered oauth_failed. */
export class ProviderFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderFailure';
  }
}

interface ProviderSpec {
  /** Host, then path, of each endpoint: a base URL override keeps the paths. */
  authorize: readonly [string, string];
  token: readonly [string, string];
  scope: string;
  profile(get: (host: string, path: string) => Promise<unknown>): Promise<ProviderProfile>;
}

const githubUser = z.looseObject({ id: z.union([z.number().int(), z.string().min(1)]), login: z.string().optional(), name: z.string().nullish() });
const githubEmails = z.array(z.looseObject({ email: z.string(), primary: z.boolean().optional(), verified: z.boolean().optional() }));
const googleUser = z.looseObject({ sub: z.string().min(1), email: z.string().optional(), email_verified: z.union([z.boolean(), z.string()]).optional(), name: z.string().nullish() });
const tokenAnswer = z.looseObject({ access_token: z.string().min(1) });

const GITHUB_API = 'https://api.github.com';
const GOOGLE_USERINFO = 'https://openidconnect.googleapis.com';

const specs: Record<OAuthProvider, ProviderSpec> = {
  github: {
    authorize: ['https://github.com', '/login/oauth/authorize'],
    token: ['https://github.com', '/login/oauth/access_token'],
    scope: 'read:user user:email',
    profile: async (get) => {
      const user = parse(githubUser, await get(GITHUB_API, '/user'), 'GitHub /user');
      const emails = parse(githubEmails, await get(GITHUB_API, '/user/emails'), 'GitHub /user/emails');
      const primary = emails.find((e) => e.primary === true && e.verified === true);
      return { id: String(user.id), name: user.name ?? user.login ?? null, ...(primary ? { verifiedEmail: primary.email } : {}) };
    },
  },
  google: {
    authorize: ['https://accounts.google.com', '/o/oauth2/v2/auth'],
    token: ['https://oauth2.googleapis.com', '/token'],
    scope: 'openid email profile',
    profile: async (get) => {
      const user = parse(googleUser, await get(GOOGLE_USERINFO, '/v1/userinfo'), 'Google userinfo');
      // OpenID Connect says boolean; some of Google's answers have said "true".
      const verified = user.email_verified === true || user.email_verified === 'true';
      return { id: user.sub, name: user.name ?? null, ...(verified && user.email ? { verifiedEmail: user.email } : {}) };
    },
  },
};

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ProviderFailure(`${what} answered an unexpected shape`);
  return parsed.data;
}

const urlOf = (client: OAuthClient, [host, path]: readonly [string, string]): string => `${client.baseUrl ?? host}${path}`;

export const scopeOf = (provider: OAuthProvider): string => specs[provider].scope;

/** Where the browser goes to sign in at the provider: the authorization code flow with PKCE (S256). */
export function authorizeUrl(client: OAuthClient, input: { redirectUri: string; state: string; codeChallenge: string }): string {
  const url = new URL(urlOf(client, specs[client.provider].authorize));
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: input.redirectUri,
    scope: specs[client.provider].scope,
    state: input.state,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
  }).toString();
  return url.href;
}

/** Reads a 2xx JSON answer, or throws a ProviderFailure saying what came instead. */
async function answerOf(http: HttpExchange, url: string, what: string, request: Parameters<HttpExchange['request']>[1]): Promise<unknown> {
  const answer = await http.request(url, request);
  if (!answer.ok) throw new ProviderFailure(`${what} answered ${answer.status || 'nothing'}${answer.error ? ` (${answer.error})` : ''}`);
  try {
    return JSON.parse(answer.body) as unknown;
  } catch {
    throw new ProviderFailure(`${what} answered ${answer.status} without JSON`);
  }
}

/** Exchanges the code (with the verifier and the client secret) and reads the person with the token. */
export async function fetchProfile(
  http: HttpExchange,
  client: OAuthClient,
  input: { code: string; codeVerifier: string; redirectUri: string; timeoutMs: number },
): Promise<ProviderProfile> {
  const spec = specs[client.provider];
  const token = await answerOf(http, urlOf(client, spec.token), `${client.provider} token endpoint`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      code: input.code,
      code_verifier: input.codeVerifier,
      redirect_uri: input.redirectUri,
    }).toString(),
    timeoutMs: input.timeoutMs,
  });
  // GitHub answers a refused exchange with 200 and {error}: no access token is the failure.
  const accessToken = parse(tokenAnswer, token, `${client.provider} token endpoint`).access_token;
  const headers = { accept: 'application/json', authorization: `Bearer ${accessToken}`, 'user-agent': 'Postbox' };
  return spec.profile((host, path) => answerOf(http, `${client.baseUrl ?? host}${path}`, `${client.provider} ${path}`, { method: 'GET', headers, timeoutMs: input.timeoutMs }));
}
