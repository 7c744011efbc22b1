// The local runtime's timers: the scheduler's tick, and the manifest's timed functions. Each runs
// one pass at a time and waits `periodMs` between passes; stopping waits for the pass under way.
import type { StoreScheduler } from '../shared/adapters/local/store-scheduler';
import type { Clock } from '../shared/ports/clock';
import type { Queue } from '../shared/ports/queue';
import { describeError, type Logger } from '../shared/adapters/logger';

function startLoop(pass: () => Promise<unknown>, periodMs: number, onError: (error: unknown) => void): () => Promise<void> {
  let stopped = false;
  let current: Promise<unknown> = Promise.resolve();
  const tick = (): void => {
    if (stopped) return;
    current = pass()
      .catch(onError)
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

/** Every tick, deliver the schedules that are due. */
export function startSchedulerLoop(deps: { scheduler: StoreScheduler; queue: Queue; clock: Clock; logger: Logger }, tickMs: number): () => Promise<void> {
  return startLoop(() => deps.scheduler.fireDue(deps.clock.now(), deps.queue), tickMs, (error) => deps.logger.warn('scheduler tick failed', { error: describeError(error) }));
}

/**
 * Plays an EventBridge rate rule for a manifest function with `every`: calls its handler each
 * period. A failed run is logged by the handler; the next one repeats the work.
 */
export function startEveryLoop(name: string, handler: (event: unknown) => Promise<unknown>, periodMs: number, logger: Logger): () => Promise<void> {
  const event = { source: 'local.every', 'detail-type': 'Scheduled Event', resources: [name] };
  return startLoop(() => handler(event), periodMs, (error) => logger.warn(`${name} run failed`, { error: describeError(error) }));
}
