// The local stand-in for EventBridge Scheduler: schedules live in the store, and a timer loop
// (local/scheduler-loop.ts) calls fireDue. Firing takes a lease on the due item first (a
// conditional update), sends, then deletes it: two processes sharing one store never fire the same
// schedule twice, and a process killed between the send and the delete leaves a schedule that
// fires again once the lease is over (at least once, like EventBridge).
import { type QueueName } from '../../platform';
import { keys, type ItemKey, keyQueries } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import type { Queue } from '../../ports/queue';
import type { ScheduleRequest, Scheduler } from '../../ports/scheduler';

/** A pending schedule, in the one partition where schedules sort by due time. */
interface DueItem extends ItemKey {
  entity: 'schedule';
  schedule_id: string;
  queue: QueueName;
  body: string;
}

/** From a schedule's id to its due item: at most one pending schedule per id. */
interface RefItem extends ItemKey {
  entity: 'schedule_ref';
  due_sk: string;
}

const FIRE_BATCH = 100;
/** How long a process holds a due schedule it is firing. */
export const FIRE_LEASE_MS = 30_000;

const dueItemOf = (request: ScheduleRequest): DueItem => ({
  ...keys.scheduleDue(request.at.toISOString(), request.id),
  entity: 'schedule',
  schedule_id: request.id,
  queue: request.queue,
  body: JSON.stringify(request.body),
});

class ScheduleRepository {
  constructor(private readonly store: Store) {}

  /** Rejects with the store's conflict error when the id has a ref already. */
  createRef(scheduleId: string, dueSortKey: string): Promise<void> {
    const ref: RefItem = { ...keys.scheduleRef(scheduleId), entity: 'schedule_ref', due_sk: dueSortKey };
    return this.store.create(ref);
  }

  putRef(scheduleId: string, dueSortKey: string): Promise<void> {
    const ref: RefItem = { ...keys.scheduleRef(scheduleId), entity: 'schedule_ref', due_sk: dueSortKey };
    return this.store.put(ref);
  }

  getRef(scheduleId: string): Promise<RefItem | undefined> {
    return this.store.get<RefItem>(keys.scheduleRef(scheduleId));
  }

  deleteRef(scheduleId: string): Promise<void> {
    return this.store.delete(keys.scheduleRef(scheduleId));
  }

  getDue(dueSortKey: string): Promise<DueItem | undefined> {
    return this.store.get<DueItem>(keys.scheduleDueAt(dueSortKey));
  }

  putDue(item: DueItem): Promise<void> {
    return this.store.put(item);
  }

  /** Takes a due schedule for firing until `untilMs`; false when another process holds it or it is gone. */
  leaseDue(dueSortKey: string, nowMs: number, untilMs: number): Promise<boolean> {
    return wrote(
      this.store.update(keys.scheduleDueAt(dueSortKey), {
        expression: 'SET firing_until = :until',
        condition: 'attribute_exists(pk) AND (attribute_not_exists(firing_until) OR firing_until < :now)',
        values: { ':until': untilMs, ':now': nowMs },
      }),
    );
  }

  /** Gives a lease back after a failed send, so the next tick tries again. */
  async releaseDue(dueSortKey: string, untilMs: number): Promise<void> {
    await wrote(this.store.update(keys.scheduleDueAt(dueSortKey), { expression: 'REMOVE firing_until', condition: 'firing_until = :until', values: { ':until': untilMs } }));
  }

  /** Deletes a fired schedule, unless its lease lapsed and another process took it meanwhile. */
  firedDue(dueSortKey: string, untilMs: number): Promise<boolean> {
    return wrote(this.store.delete(keys.scheduleDueAt(dueSortKey), { expression: 'firing_until = :until', values: { ':until': untilMs } }));
  }

  /** false when another process or a cancel took it first, or it is being fired */
  takeDue(dueSortKey: string): Promise<boolean> {
    return wrote(this.store.delete(keys.scheduleDueAt(dueSortKey), { expression: 'attribute_exists(pk) AND attribute_not_exists(firing_until)' }));
  }

  /** The earliest schedules due at or before `now`. */
  async dueUpTo(now: Date, limit: number): Promise<DueItem[]> {
    const { items } = await this.store.query<DueItem>({
      ...keyQueries.dueUpTo(now.toISOString()),
      ascending: true,
      limit,
    });
    return items;
  }
}

export class StoreScheduler implements Scheduler {
  private readonly schedules: ScheduleRepository;

  constructor(store: Store) {
    this.schedules = new ScheduleRepository(store);
  }

  async schedule(request: ScheduleRequest): Promise<void> {
    const due = dueItemOf(request);
    const claim = this.schedules.createRef(request.id, due.sk);
    if (!(await wrote(claim))) {
      // A ref without its due item is what a crash between the two writes leaves: take it over.
      const ref = await this.schedules.getRef(request.id);
      const pending = ref && (await this.schedules.getDue(ref.due_sk));
      // Still rejected with the store's conflict error: the port's "already scheduled".
      if (pending || !ref) return claim;
      await this.schedules.putRef(request.id, due.sk);
    }
    await this.schedules.putDue(due);
  }

  async cancel(id: string): Promise<boolean> {
    const ref = await this.schedules.getRef(id);
    if (!ref) return false;
    if (!(await this.schedules.takeDue(ref.due_sk))) return false; // already fired
    await this.schedules.deleteRef(id);
    return true;
  }

  /** Delivers every schedule due at or before `now`; returns how many fired. */
  async fireDue(now: Date, queue: Queue): Promise<number> {
    let fired = 0;
    const nowMs = now.getTime();
    const until = nowMs + FIRE_LEASE_MS;
    for (const item of await this.schedules.dueUpTo(now, FIRE_BATCH)) {
      if (!(await this.schedules.leaseDue(item.sk, nowMs, until))) continue; // another process holds it, or a cancel took it
      try {
        await queue.send(item.queue, JSON.parse(item.body));
      } catch (error) {
        await this.schedules.releaseDue(item.sk, until); // try again next tick
        throw error;
      }
      if (await this.schedules.firedDue(item.sk, until)) await this.schedules.deleteRef(item.schedule_id);
      fired++;
    }
    return fired;
  }
}
