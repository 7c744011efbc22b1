// The logger the domain code writes to: structured lines with fields. In Lambda it is Powertools
// Logger (shared/adapters/aws/powertools-logger.ts); the local runtime's one-line JSON logger is
// shared/adapters/logger.ts (createLogger); tests give their own.
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /**
   * Starts an invocation: `keys` (the API request id and route, the queue) go on every line until
   * the next invocation starts, with the Lambda context's own (its request id, cold start) when
   * one is given. Optional: a logger that serves many invocations at once, as the local runtime's
   * does, cannot scope keys to one, and its callers pass the ids on each line instead.
   */
  invocation?(keys: Record<string, unknown>, lambdaContext?: { awsRequestId?: string }): void;
}
