// The Logger port in Lambda: Powertools Logger, the structured JSON logger AWS keeps for Lambda.
// Each line carries the service, the level, the message and, from `invocation`, the Lambda
// context (function name, its request id, cold start) and the invocation's keys (the API request
// id and route, or the queue); Lambda runs one invocation at a time per environment, so keys set
// at an invocation's start are that invocation's. Errors in fields are written as the local
// logger writes them (name, message, source-mapped stack, cause).
import { Logger as Powertools } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import type { Logger } from '../../ports/logger';
import { describeFields, type LogLevel } from '../logger';

export const SERVICE_NAME = 'postbox';

const LEVELS: Record<LogLevel, 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT'> = { debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR', silent: 'SILENT' };

/** A Logger over Powertools; `options` reach its constructor (tests give a logFormatter or an environment). */
export function powertoolsLogger(level: LogLevel, options: ConstructorParameters<typeof Powertools>[0] = {}): Logger {
  const logger = new Powertools({ serviceName: SERVICE_NAME, logLevel: LEVELS[level], ...options });
  const at = (write: (msg: string, extra: Record<string, unknown>) => void) => (msg: string, fields: Record<string, unknown> = {}) => write(msg, describeFields(fields));
  return {
    debug: at((m, f) => logger.debug(m, f)),
    info: at((m, f) => logger.info(m, f)),
    warn: at((m, f) => logger.warn(m, f)),
    error: at((m, f) => logger.error(m, f)),
    invocation: (keys, lambdaContext) => {
      logger.resetKeys();
      if (lambdaContext?.awsRequestId) logger.addContext(lambdaContext as Context);
      logger.appendKeys(keys);
    },
  };
}
