// Transitional: the webhook channel of shared/messages (send.ts, dispatch.ts) still calls these.
// The guard itself lives in shared/adapters/guarded-http.ts behind the HttpClient port
// (`deps.http`); once the messages area uses that port this file is deleted, and with it the
// domain → adapter edge the architecture test lists as being removed.
import { GuardedHttp } from '../adapters/guarded-http';
import { InvalidRequestError } from '../errors';
import type { HttpResult } from '../ports/http-client';

export interface OutboundPolicy {
  allowPrivate: boolean;
}

/** A URL the service will not send to. An ApiError (400 invalid_request) when it escapes a handler. */
export class UnsafeUrlError extends InvalidRequestError {
  constructor(
    readonly reason: string,
    options: { field?: string; cause?: unknown } = {},
  ) {
    super(`${options.field ?? 'endpoint_url'}: ${reason}`, { cause: options.cause });
    this.name = 'UnsafeUrlError';
  }
}

/** @deprecated use `deps.http.check`. Throws UnsafeUrlError when the URL is refused. */
export async function checkUrl(raw: string, policy: OutboundPolicy): Promise<{ url: URL }> {
  const checked = await new GuardedHttp(policy).check(raw);
  if (!checked.ok) throw new UnsafeUrlError(checked.reason);
  return { url: new URL(checked.url) };
}

/** @deprecated use `deps.http.post`. */
export function postSigned(raw: string, body: string, headers: Record<string, string>, policy: OutboundPolicy): Promise<HttpResult> {
  return new GuardedHttp(policy).post(raw, { headers, body });
}
