import { type QueueName } from '../platform';

export interface ScheduleRequest {
  /** Business id; at most one pending schedule per id. */
  id: string;
  at: Date;
  /** The schedule delivers `body` to this queue when it fires. */
  queue: QueueName;
  body: unknown;
}

export interface Scheduler {
  schedule(request: ScheduleRequest): Promise<void>;
  /** True when a pending schedule was removed; false when none was pending. */
  cancel(id: string): Promise<boolean>;
}
