// Every code the API returns, with its HTTP status. A new code is added here and to the README.
export const errorStatus = {
  invalid_request: 400,
  unauthorized: 401,
  invalid_signature: 403,
  spend_cap_exceeded: 402,
  forbidden: 403,
  from_not_verified: 422,
  from_required: 422,
  no_verified_domain: 422,
  domain_not_verified: 422,
  domain_limit_reached: 403,
  domain_not_ready: 422,
  cannot_delete_sandbox: 422,
  recipient_not_verified: 403,
  too_many_test_recipients: 422,
  test_send_daily_limit: 429,
  not_found: 404,
  method_not_allowed: 405,
  recipient_suppressed: 409,
  idempotency_key_reused: 409,
  idempotency_key_in_use: 409,
  conflict: 409,
  duplicate_contact: 409,
  duplicate_member: 409,
  invalid_template: 400,
  missing_variable: 400,
  template_not_found: 404,
  template_error: 422,
  invalid_token: 400,
  payload_too_large: 413,
  batch_too_large: 413,
  rate_limit_exceeded: 429,
  billing_not_configured: 503,
  oauth_not_configured: 503,
  test_send_not_configured: 503,
  validation_not_configured: 503,
  service_unavailable: 503,
  internal_error: 500,
  invalid_destination: 422,
  recipient_undeliverable: 422,
  channel_not_enabled: 422,
  invalid_channel_payload: 422,
  invalid_schedule: 422,
  account_suspended: 403,
  sending_paused: 403,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
}

/**
 * The one error type domain code throws. `cause` is kept for logs and never serialized;
 * `headers` carry what a status needs on the wire (Retry-After, Allow).
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: { status?: number; cause?: unknown; headers?: Record<string, string> } = {}) {
    super(message, { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = options.status ?? errorStatus[code];
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return { code: this.code, message: this.message, status: this.status };
  }

  // JSON.stringify(error) must never leak a cause or a stack.
  toJSON(): { error: ErrorBody } {
    return { error: this.toBody() };
  }
}

export class NotFoundError extends ApiError {
  constructor(what: string) {
    super('not_found', `${what} not found`);
    this.name = 'NotFoundError';
  }
}

export class InvalidRequestError extends ApiError {
  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super('invalid_request', message, options);
    this.name = 'InvalidRequestError';
  }
}

/** A store write whose condition did not hold (uniqueness, optimistic locking, idempotency). */
export class ConditionFailedError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'ConditionFailedError';
  }
}

/** A dependency said "try again later" (throttling, timeouts). Queue consumers retry these. */
export class RetryableError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'RetryableError';
  }
}
