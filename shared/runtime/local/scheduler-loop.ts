// The local scheduler's timer: every tick, deliver the schedules that are due.
import type { StoreScheduler } from '../../adapters/local/store-scheduler';
import type { Clock } from '../../ports/clock';
import type { Queue } from '../../ports/queue';
import { describeError, type Logger } from '../logger';

export function startSchedulerLoop(deps: { scheduler: StoreScheduler; queue: Queue; clock: Clock; logger: Logger }, tickMs: number): () => Promise<void> {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  const tick = (): void => {
    if (stopped) return;
    current = deps.scheduler
      .fireDue(deps.clock.now(), deps.queue)
      .catch((error: unknown) => deps.logger.warn('scheduler tick failed', { error: describeError(error) }))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, tickMs);
      });
  };
  let timer = setTimeout(tick, tickMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await current;
  };
}

/**
 * Plays an EventBridge rate rule for a manifest function with `every`: calls its handler each
 * period, one run at a time. A failed run is logged by the handler; the next one repeats the work.
 */
export function startEveryLoop(name: string, handler: (event: unknown) => Promise<unknown>, periodMs: number, logger: Logger): () => Promise<void> {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  const tick = (): void => {
    if (stopped) return;
    current = handler({ source: 'local.every', 'detail-type': 'Scheduled Event', resources: [name] })
      .catch((error: unknown) => logger.warn(`${name} run failed`, { error: describeError(error) }))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, periodMs);
      });
  };
  let timer = setTimeout(tick, periodMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await current;
  };
}
