// The local stand-in for EventBridge Scheduler: schedules live in the store, and a timer loop
// (runtime/local/scheduler-loop.ts) calls fireDue. Claiming a schedule is a conditional delete,
// so two processes sharing one store never fire the same schedule twice.
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

  /** false when another process or a cancel took it first */
  takeDue(dueSortKey: string): Promise<boolean> {
    return wrote(this.store.delete(keys.scheduleDueAt(dueSortKey), { expression: 'attribute_exists(pk)' }));
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
    for (const item of await this.schedules.dueUpTo(now, FIRE_BATCH)) {
      if (!(await this.schedules.takeDue(item.sk))) continue; // another process or a cancel took it
      try {
        await queue.send(item.queue, JSON.parse(item.body));
      } catch (error) {
        await this.schedules.putDue(item); // try again next tick
        throw error;
      }
      await this.schedules.deleteRef(item.schedule_id);
      fired++;
    }
    return fired;
  }
}
