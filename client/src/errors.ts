import type { KnownErrorCode } from './types';

/**
 * Codes the client itself gives: the request never got an answer (`connection_error`), took longer
 * than timeoutMs (`timeout`), or got one that is not the service's error envelope
 * (`unexpected_response`, e.g. a proxy's HTML page).
 */
export type ClientErrorCode = 'connection_error' | 'timeout' | 'unexpected_response';

/** A code the document lists, one of the client's own, or one newer than this client (branch on its status class then). */
export type ErrorCode = KnownErrorCode | ClientErrorCode | (string & {});

export interface PostboxErrorInit {
  code: ErrorCode;
  message: string;
  /** The HTTP status; 0 when no answer came. */
  status: number;
  requestId?: string;
  retryAfter?: number;
  cause?: unknown;
}

/** Every failure: the service's `{error: {code, message, status}}`, or the client's own codes. */
export class PostboxError extends Error {
  override readonly name = 'PostboxError';
  /** Programs branch on this; the message wording may change. */
  readonly code: ErrorCode;
  readonly status: number;
  /** X-Request-Id of the answer: quote it when asking about a request. */
  readonly requestId: string | undefined;
  /** Seconds the service asked to wait (Retry-After), when it said. */
  readonly retryAfter: number | undefined;

  constructor(init: PostboxErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}
