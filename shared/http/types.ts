import { type Scope } from '../platform';
import type { AccountItem } from '../accounts/service';
import type { UserRole } from '../auth/users-repository';

export interface AuthContext {
  accountId: string;
  keyId: string;
  scope: Scope;
  testMode: boolean;
  /** The account as read while authenticating, so routes need not read it again. */
  account: AccountItem;
  /**
   * Set when a signed-in person (the console's session cookie) made the request: they act as the
   * account's admin, and `keyId` holds their user id. Until their address is verified
   * (`verified: false`) they act in test mode (`testMode: true`).
   */
  session?: { userId: string; role: UserRole; verified: boolean };
}

export interface HttpRequest {
  requestId: string;
  method: string;
  path: string;
  routeKey: string;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  headers: Record<string, string | undefined>;
  /** Parsed JSON body; undefined when the request had none or it was not JSON. */
  body: unknown;
  /** The body's bytes, whatever its type (multipart uploads read this). */
  rawBody: Buffer;
  /**
   * The configured public origin (PUBLIC_BASE_URL), e.g. https://mail.example.com, for links the
   * service publishes; never taken from the request's Host or X-Forwarded-* headers.
   */
  baseUrl: string;
  sourceIp: string;
  /** The session cookie's value, if the request carried one (checked only where it is used). */
  sessionId?: string;
  /** API Gateway's `event.cookies` (it drops the Cookie header); read other cookies with cookieValue. */
  cookies?: readonly string[];
  /** Set on every route that takes an API key. */
  auth?: AuthContext;
}

export interface HttpResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Set-Cookie values, answered through API Gateway's `cookies` array. */
  cookies?: string[];
}
