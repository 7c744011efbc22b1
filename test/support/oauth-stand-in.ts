// A stand-in for GitHub's and Google's OAuth endpoints on loopback, one real HTTP server for both
// (their paths differ): the authorize page records the request and redirects back with a code (or
// the person's refusal); the token endpoint checks the client id and secret, the code, the
// redirect URI and that SHA-256 of the code_verifier is the code_challenge the authorize page saw;
// the API answers (GitHub's /user and /user/emails, Google's userinfo) are what each test sets.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OAuthProvider } from '../../shared/platform';

export const STAND_IN_CLIENTS: Record<OAuthProvider, { id: string; secret: string }> = {
  github: { id: 'gh-client-id', secret: 'gh-client-secret' },
  google: { id: 'google-client-id.apps.example', secret: 'google-client-secret' },
};

/** The environment of a runtime process whose GitHub sign-in goes to this stand-in (Google stays unconfigured). */
export const githubStandInEnv = (standIn: { url: string }): Record<string, string> => ({
  OAUTH_GITHUB_CLIENT_ID: STAND_IN_CLIENTS.github.id,
  OAUTH_GITHUB_CLIENT_SECRET: STAND_IN_CLIENTS.github.secret,
  OAUTH_GITHUB_BASE_URL: standIn.url,
});

export interface Authorization {
  provider: OAuthProvider;
  params: Record<string, string>;
}

/** A path's answer set by a test: a status and a body (JSON when not a string). */
export interface CannedAnswer {
  status: number;
  body: unknown;
}

export interface OAuthStandIn {
  /** http://127.0.0.1:port: OAUTH_GITHUB_BASE_URL and OAUTH_GOOGLE_BASE_URL. */
  url: string;
  authorizations: Authorization[];
  /** Token requests and whether each was granted. */
  tokenRequests: Array<{ provider: OAuthProvider; params: Record<string, string>; granted: boolean }>;
  /** The person at each provider: GitHub's /user and /user/emails, Google's userinfo. */
  github: { user: Record<string, unknown>; emails: Array<Record<string, unknown>> };
  google: { userinfo: Record<string, unknown> };
  /** Answers that replace the normal one for a path (e.g. `/user/emails` → 500). */
  overrides: Map<string, CannedAnswer>;
  /** Paths that never answer (the caller's deadline is what ends the request). */
  silent: Set<string>;
  /** The person says no at the provider: the authorize page redirects back with error=access_denied. */
  deny: boolean;
  /**
   * Follows an authorize URL as a browser would and answers where the provider sends it back:
   * the callback path and its query.
   */
  authorize(location: string): Promise<{ path: string; query: Record<string, string> }>;
  reset(): void;
  close(): Promise<void>;
}

const PATHS = {
  authorize: { '/login/oauth/authorize': 'github', '/o/oauth2/v2/auth': 'google' } as Record<string, OAuthProvider>,
  token: { '/login/oauth/access_token': 'github', '/token': 'google' } as Record<string, OAuthProvider>,
};

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, answer: CannedAnswer): void {
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': typeof answer.body === 'string' ? 'text/plain' : 'application/json' });
  res.end(text);
}

let people = 0;

/** A new person at each provider (ids and addresses differ after every reset), so tests over one store do not meet. */
function defaults(): Pick<OAuthStandIn, 'github' | 'google'> {
  const n = ++people;
  return {
    github: {
      user: { id: 4200 + n, login: `octo${n}`, name: 'Octo Cat' },
      emails: [
        { email: `octo-old-${n}@example.com`, primary: false, verified: true },
        { email: `Octo-${n}@Example.com`, primary: true, verified: true },
      ],
    },
    google: { userinfo: { sub: `10900${n}`, email: `gina-${n}@example.com`, email_verified: true, name: 'Gina' } },
  };
}

/** What the stand-in handed out: codes not yet used, with what the authorize request said, and access tokens. */
interface Issued {
  codes: Map<string, { provider: OAuthProvider; clientId: string; redirectUri: string; challenge: string }>;
  tokens: Set<string>;
}

/** The authorize page: records the request and redirects back with a code, or with the person's refusal. */
function authorizePage(standIn: OAuthStandIn, issued: Issued, provider: OAuthProvider, url: URL, res: ServerResponse): void {
  const params = Object.fromEntries(url.searchParams);
  standIn.authorizations.push({ provider, params });
  const back = new URL(params.redirect_uri ?? '');
  if (standIn.deny) {
    back.search = new URLSearchParams({ error: 'access_denied', state: params.state ?? '' }).toString();
  } else {
    const code = randomBytes(12).toString('hex');
    issued.codes.set(code, { provider, clientId: params.client_id ?? '', redirectUri: params.redirect_uri ?? '', challenge: params.code_challenge ?? '' });
    back.search = new URLSearchParams({ code, state: params.state ?? '' }).toString();
  }
  res.writeHead(302, { location: back.href });
  res.end();
}

/** The token endpoint: grants a token for a code issued to this client, its redirect URI and its PKCE verifier. */
async function tokenExchange(standIn: OAuthStandIn, issued: Issued, provider: OAuthProvider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const params = Object.fromEntries(new URLSearchParams(await bodyOf(req)));
  const code = issued.codes.get(params.code ?? '');
  const client = STAND_IN_CLIENTS[provider];
  const verifierHash = createHash('sha256').update(params.code_verifier ?? '').digest('base64url');
  const granted =
    code !== undefined &&
    code.provider === provider &&
    params.client_id === client.id &&
    params.client_secret === client.secret &&
    code.clientId === client.id &&
    params.redirect_uri === code.redirectUri &&
    verifierHash === code.challenge;
  standIn.tokenRequests.push({ provider, params, granted });
  issued.codes.delete(params.code ?? '');
  if (!granted) {
    // GitHub answers a refused exchange with 200 and an error field; Google with 400.
    return send(res, { status: provider === 'github' ? 200 : 400, body: { error: provider === 'github' ? 'bad_verification_code' : 'invalid_grant' } });
  }
  const token = `tok_${randomBytes(12).toString('hex')}`;
  issued.tokens.add(token);
  send(res, { status: 200, body: { access_token: token, token_type: 'bearer', scope: params.scope ?? '' } });
}

/** One request to the stand-in: a silent or overridden path, the authorize page, the token endpoint, or the APIs. */
async function answer(standIn: OAuthStandIn, issued: Issued, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://stand-in');
  if (standIn.silent.has(url.pathname)) return;
  const override = standIn.overrides.get(url.pathname);
  if (override) return send(res, override);

  const authorizing = PATHS.authorize[url.pathname];
  if (req.method === 'GET' && authorizing) return authorizePage(standIn, issued, authorizing, url, res);

  const exchanging = PATHS.token[url.pathname];
  if (req.method === 'POST' && exchanging) return tokenExchange(standIn, issued, exchanging, req, res);

  const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  if (req.method === 'GET' && ['/user', '/user/emails', '/v1/userinfo'].includes(url.pathname)) {
    if (!issued.tokens.has(bearer)) return send(res, { status: 401, body: { message: 'Bad credentials' } });
    if (url.pathname === '/user') return send(res, { status: 200, body: standIn.github.user });
    if (url.pathname === '/user/emails') return send(res, { status: 200, body: standIn.github.emails });
    return send(res, { status: 200, body: standIn.google.userinfo });
  }
  send(res, { status: 404, body: { message: 'Not Found' } });
}

export async function startOAuthStandIn(): Promise<OAuthStandIn> {
  const issued: Issued = { codes: new Map(), tokens: new Set() };
  const server = createServer((req, res) => {
    answer(standIn, issued, req, res).catch((error: unknown) => send(res, { status: 500, body: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const standIn: OAuthStandIn = {
    url: `http://127.0.0.1:${port}`,
    authorizations: [],
    tokenRequests: [],
    ...defaults(),
    overrides: new Map(),
    silent: new Set(),
    deny: false,
    async authorize(location) {
      const res = await fetch(location, { redirect: 'manual' });
      const back = new URL(res.headers.get('location') ?? '');
      return { path: back.pathname, query: Object.fromEntries(back.searchParams) };
    },
    reset() {
      standIn.authorizations.length = 0;
      standIn.tokenRequests.length = 0;
      Object.assign(standIn, defaults());
      standIn.overrides.clear();
      standIn.silent.clear();
      standIn.deny = false;
      issued.codes.clear();
      issued.tokens.clear();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
  return standIn;
}
