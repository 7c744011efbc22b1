// The logger the domain code writes to: structured lines with fields. The runtime's one-line JSON
// implementation is shared/runtime/logger.ts (createLogger); tests give their own.
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}
