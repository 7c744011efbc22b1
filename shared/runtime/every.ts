// The one shape of a function that runs on a timer (`every` in the manifest): a middy handler with
// the container middleware. A failure is logged and thrown: EventBridge records the failed
// invocation, and the next tick runs the same work again (timed work is safe to repeat).
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { type Container } from './container';
import { withContainer } from './consume';
import { describeError } from '../adapters/logger';

type TimedContext = Context & { container: Container };

export function every(name: string, work: (container: Container) => Promise<void>): (event?: unknown) => Promise<void> {
  const handler = middy<unknown, void, Error, TimedContext>()
    .use(withContainer<unknown, void>())
    .handler(async (_event, context) => {
      try {
        await work(context.container);
      } catch (error) {
        context.container.logger.error(`${name} failed; the next run repeats it`, { error: describeError(error) });
        throw error;
      }
    });
  return async (event) => {
    await handler(event ?? {}, {} as TimedContext);
  };
}
