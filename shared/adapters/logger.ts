// Structured one-line JSON logs; CloudWatch and a terminal both read them. The Logger port it
// implements is shared/ports/logger.ts.
import { sourceMappedStack } from './stack-trace';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

import type { Logger } from '../ports/logger';

export type { Logger };

export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { value: String(error) };
  const described: Record<string, unknown> = { name: error.name, message: error.message, stack: error.stack === undefined ? undefined : sourceMappedStack(error.stack) };
  if (error.cause !== undefined) described.cause = describeError(error.cause);
  return described;
}

/** A line's fields as written: an Error as its name, message, source-mapped stack and cause. */
export function describeFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = v instanceof Error ? describeError(v) : v;
  return out;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Logger {
  const log = (at: Exclude<LogLevel, 'silent'>) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (order[at] < order[level]) return;
    write(JSON.stringify({ level: at, time: new Date().toISOString(), msg, ...describeFields(fields) }));
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}
