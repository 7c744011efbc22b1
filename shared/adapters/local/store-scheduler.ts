// The local stand-in for EventBridge Scheduler: schedules live in the store, and a timer loop
// (runtime/local/scheduler-loop.ts) calls fireDue. Claiming a schedule is a conditional delete,
// so two processes sharing one store never fire the same schedule twice.
import { type QueueName } from '../../platform';
import { keys } from '../../db/keys';
import type { Store } from '../../db/store';
import { ConditionFailedError } from '../../errors';
import type { Queue } from '../../ports/queue';
import type { ScheduleRequest, Scheduler } from '../../ports/scheduler';

interface DueItem {
  pk: string;
  sk: string;
  schedule_id: string;
  queue: QueueName;
  body: string;
}

export class StoreScheduler implements Scheduler {
  constructor(private readonly store: Store) {}

  async schedule(request: ScheduleRequest): Promise<void> {
    const due = keys.scheduleDue(request.at.toISOString(), request.id);
    try {
      await this.store.create({ ...keys.scheduleRef(request.id), entity: 'schedule_ref', due_sk: due.sk });
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      // A ref without its due item is what a crash between the two writes leaves: take it over.
      const ref = await this.store.get<{ due_sk: string }>(keys.scheduleRef(request.id));
      const pending = ref && (await this.store.get({ pk: keys.schedulesPartition, sk: ref.due_sk }));
      if (pending || !ref) throw error;
      await this.store.put({ ...keys.scheduleRef(request.id), entity: 'schedule_ref', due_sk: due.sk });
    }
    await this.store.put({ ...due, entity: 'schedule', schedule_id: request.id, queue: request.queue, body: JSON.stringify(request.body) });
  }

  async cancel(id: string): Promise<boolean> {
    const ref = await this.store.get<{ due_sk: string }>(keys.scheduleRef(id));
    if (!ref) return false;
    try {
      await this.store.delete({ pk: keys.schedulesPartition, sk: ref.due_sk }, { expression: 'attribute_exists(pk)' });
    } catch (error) {
      if (error instanceof ConditionFailedError) return false; // already fired
      throw error;
    }
    await this.store.delete(keys.scheduleRef(id));
    return true;
  }

  /** Delivers every schedule due at or before `now`; returns how many fired. */
  async fireDue(now: Date, queue: Queue): Promise<number> {
    const { items } = await this.store.query({
      keyCondition: 'pk = :pk AND sk <= :upTo',
      values: { ':pk': keys.schedulesPartition, ':upTo': `${now.toISOString()}#~` },
      ascending: true,
      limit: 100,
    });
    let fired = 0;
    for (const item of items as unknown as DueItem[]) {
      try {
        await this.store.delete({ pk: item.pk, sk: item.sk }, { expression: 'attribute_exists(pk)' });
      } catch (error) {
        if (error instanceof ConditionFailedError) continue; // another process or a cancel took it
        throw error;
      }
      try {
        await queue.send(item.queue, JSON.parse(item.body));
      } catch (error) {
        await this.store.put(item); // try again next tick
        throw error;
      }
      await this.store.delete(keys.scheduleRef(item.schedule_id));
      fired++;
    }
    return fired;
  }
}
