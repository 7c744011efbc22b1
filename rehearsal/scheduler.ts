// EventBridge Scheduler as the functions reach it (issue 30): a stand-in speaking the service's
// REST-JSON protocol (CreateSchedule POST /schedules/{Name}, GetSchedule GET, UpdateSchedule PUT,
// DeleteSchedule DELETE, `?groupName=`), so the functions' own adapter
// (shared/adapters/aws/event-bridge-scheduler.ts) and SDK client are what run. Each call is checked
// by the IAM check against the caller's role: the scheduler action on the schedule's ARN, and
// iam:PassRole on the role a schedule names. The groups are the template's
// AWS::Scheduler::ScheduleGroup resources and the account's `default` group.
//
// A one-time `at()` schedule fires when its time comes (`fireDue(now)`, and a tick on the wall
// clock): as Scheduler does, it assumes the schedule's role (whose trust policy must let
// scheduler.amazonaws.com assume it, with aws:SourceAccount and aws:SourceArn, the group's ARN,
// in the context) and sends the target's Input to the target queue with that role's credentials,
// which the SQS front checks against the role's policies. A failed firing is retried no sooner
// than a minute later (by the clock fireDue is given), up to the target's MaximumRetryAttempts
// (185 by default); ActionAfterCompletion DELETE removes the schedule once it completed.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AwsCall } from './aws-front';
import { trustRefusal } from './iam';
import { accessKeyIdOf } from './secrets';
import { REHEARSAL_ACCOUNT, REHEARSAL_REGION } from './template';

export interface ScheduleGroup {
  name: string;
  arn: string;
}

export interface ScheduleTarget {
  Arn: string;
  RoleArn: string;
  Input?: string;
  RetryPolicy?: { MaximumRetryAttempts?: number; MaximumEventAgeInSeconds?: number };
  SqsParameters?: { MessageGroupId?: string };
  [other: string]: unknown;
}

/** A schedule as the service holds it. */
export interface StoredSchedule {
  arn: string;
  name: string;
  groupName: string;
  expression: string;
  timezone: string;
  /** When the at() schedule comes due. */
  due: Date;
  state: 'ENABLED' | 'DISABLED';
  actionAfterCompletion: 'NONE' | 'DELETE';
  flexibleTimeWindow: { Mode: string; MaximumWindowInMinutes?: number };
  target: ScheduleTarget;
  description?: string;
  createdAt: Date;
  modifiedAt: Date;
  /** Fired (or out of retries) and kept, as ActionAfterCompletion NONE keeps it. */
  completed: boolean;
  attempts: number;
  retryAfter?: Date;
}

/** One attempt to invoke a schedule's target. */
export interface Firing {
  scheduleArn: string;
  name: string;
  targetArn: string;
  roleArn: string;
  /** The schedule's time, and the clock's when it fired. */
  due: string;
  firedAt: string;
  attempt: number;
  ok: boolean;
  error?: string;
}

export interface SchedulerStandIn {
  endpoint: string;
  /** The schedules held now (copies). */
  schedules(): StoredSchedule[];
  /** A schedule by name, in the group (the template's only group when not given). */
  schedule(name: string, groupName?: string): StoredSchedule | undefined;
  /** Every firing so far, in order. */
  readonly firings: readonly Firing[];
  /** Fires every enabled schedule due at `now` (the wall clock by default): what Scheduler does when the time comes. */
  fireDue(now?: Date): Promise<Firing[]>;
  close(): Promise<void>;
}

export interface SchedulerOptions {
  groups: readonly ScheduleGroup[];
  /** The IAM check of a call (and its record); a denial's message, or undefined. */
  authorize: (call: AwsCall) => string | undefined;
  /** Assumes the schedule's role and invokes its target; throws, saying why, when Scheduler could not. */
  invokeTarget: (schedule: StoredSchedule, group: ScheduleGroup) => Promise<void>;
  onFailure?: (firing: Firing) => void;
  /** How often the wall clock fires due schedules; 0 for never (fireDue only). */
  tickMs?: number;
}

const RETRY_AFTER_MS = 60_000;
const DEFAULT_RETRIES = 185;

class SchedulerError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

const scheduleArn = (group: string, name: string): string => `arn:aws:scheduler:${REHEARSAL_REGION}:${REHEARSAL_ACCOUNT}:schedule/${group}/${name}`;

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, as a Date; undefined when it is not one. */
export function atTime(expression: string): Date | undefined {
  const m = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$/.exec(expression);
  if (!m) return undefined;
  const date = new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 19) !== `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}` ? undefined : date;
}

type Body = Record<string, unknown>;

/** What CreateSchedule and UpdateSchedule take, checked as the service checks it (and what the rehearsal cannot play, refused as such). */
function readInput(body: Body, name: string, groupName: string, now: Date, previous?: StoredSchedule): StoredSchedule {
  const invalid = (message: string): SchedulerError => new SchedulerError(400, 'ValidationException', message);
  if (!/^[0-9a-zA-Z._-]{1,64}$/.test(name)) throw invalid(`Name ${name} must be 1 to 64 letters, digits, '.', '_' or '-'`);
  const expression = String(body.ScheduleExpression ?? '');
  if (!expression) throw invalid('ScheduleExpression is required');
  const due = atTime(expression);
  if (!due) {
    if (/^(rate|cron)\(/.test(expression)) throw new SchedulerError(501, 'NotRehearsed', `the rehearsal fires one-time at() schedules only, not ${expression}`);
    throw invalid(`Invalid Schedule Expression ${expression}`);
  }
  const timezone = String(body.ScheduleExpressionTimezone ?? 'UTC');
  if (timezone !== 'UTC') throw new SchedulerError(501, 'NotRehearsed', `the rehearsal reads at() in UTC only, not ${timezone}`);
  const window = body.FlexibleTimeWindow as { Mode?: unknown; MaximumWindowInMinutes?: number } | undefined;
  if (window?.Mode !== 'OFF' && window?.Mode !== 'FLEXIBLE') throw invalid('FlexibleTimeWindow.Mode must be OFF or FLEXIBLE');
  const target = body.Target as ScheduleTarget | undefined;
  if (typeof target?.Arn !== 'string' || typeof target.RoleArn !== 'string') throw invalid('Target.Arn and Target.RoleArn are required');
  const state = body.State ?? 'ENABLED';
  const after = body.ActionAfterCompletion ?? 'NONE';
  if (state !== 'ENABLED' && state !== 'DISABLED') throw invalid(`State must be ENABLED or DISABLED`);
  if (after !== 'NONE' && after !== 'DELETE') throw invalid(`ActionAfterCompletion must be NONE or DELETE`);
  return {
    arn: scheduleArn(groupName, name),
    name,
    groupName,
    expression,
    timezone,
    due,
    state,
    actionAfterCompletion: after,
    flexibleTimeWindow: { Mode: window.Mode, ...(window.MaximumWindowInMinutes !== undefined ? { MaximumWindowInMinutes: window.MaximumWindowInMinutes } : {}) },
    target,
    ...(typeof body.Description === 'string' ? { description: body.Description } : {}),
    createdAt: previous?.createdAt ?? now,
    modifiedAt: now,
    completed: false,
    attempts: 0,
  };
}

/** GetSchedule's answer. */
function view(s: StoredSchedule): Body {
  return {
    Arn: s.arn,
    Name: s.name,
    GroupName: s.groupName,
    ScheduleExpression: s.expression,
    ScheduleExpressionTimezone: s.timezone,
    State: s.state,
    ActionAfterCompletion: s.actionAfterCompletion,
    FlexibleTimeWindow: s.flexibleTimeWindow,
    Target: s.target,
    ...(s.description !== undefined ? { Description: s.description } : {}),
    CreationDate: s.createdAt.getTime() / 1000,
    LastModificationDate: s.modifiedAt.getTime() / 1000,
  };
}

const OPERATIONS: Record<string, string> = { POST: 'CreateSchedule', GET: 'GetSchedule', PUT: 'UpdateSchedule', DELETE: 'DeleteSchedule' };

/** What the stand-in holds: the groups, the schedules by ARN, the firings, and the schedules being fired. */
interface SchedulerState {
  groups: Map<string, ScheduleGroup>;
  store: Map<string, StoredSchedule>;
  firings: Firing[];
  inFlight: Set<string>;
}

/** One call: the operation by method, the IAM check, then the service's own rules. */
function handleCall(state: SchedulerState, authorize: SchedulerOptions['authorize'], method: string, url: URL, headers: IncomingMessage['headers'], body: Body): Body {
  const { groups, store } = state;
  const match = /^\/schedules\/([^/]+)$/.exec(url.pathname);
  const operation = OPERATIONS[method];
  if (!match || !operation) throw new SchedulerError(501, 'NotRehearsed', `the rehearsal's Scheduler plays Create, Get, Update and DeleteSchedule only, not ${method} ${url.pathname}`);
  const name = decodeURIComponent(match[1]!);
  const groupName = (method === 'POST' || method === 'PUT' ? (body.GroupName as string | undefined) : url.searchParams.get('groupName')) ?? 'default';
  const arn = scheduleArn(groupName, name);
  const checks = [{ action: `scheduler:${operation}`, resource: arn }];
  const roleArn = (body.Target as { RoleArn?: unknown } | undefined)?.RoleArn;
  if ((method === 'POST' || method === 'PUT') && typeof roleArn === 'string') checks.push({ action: 'iam:PassRole', resource: roleArn });
  const denied = authorize({ service: 'scheduler', operation, checks, accessKeyId: accessKeyIdOf(headers.authorization) });
  if (denied) throw new SchedulerError(403, 'AccessDeniedException', denied);
  if (!groups.has(groupName)) throw new SchedulerError(404, 'ResourceNotFoundException', `Schedule group ${groupName} does not exist.`);
  const existing = store.get(arn);
  if (method === 'POST' && existing) throw new SchedulerError(409, 'ConflictException', `Schedule ${name} already exists.`);
  if (method !== 'POST' && !existing) throw new SchedulerError(404, 'ResourceNotFoundException', `Schedule ${name} does not exist.`);
  if (method === 'GET') return view(existing!);
  if (method === 'DELETE') {
    store.delete(arn);
    return {};
  }
  store.set(arn, readInput(body, name, groupName, new Date(), existing));
  return { ScheduleArn: arn };
}

/** The service's endpoint on loopback: each request's JSON body to `handle`, its answer or its SchedulerError as the service answers them. */
async function serve(handle: (method: string, url: URL, headers: IncomingMessage['headers'], body: Body) => Body): Promise<Server> {
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reply = (status: number, payload: Body, type?: string): void => {
        res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-requestid': randomUUID(), ...(type ? { 'x-amzn-errortype': type } : {}) });
        res.end(JSON.stringify(payload));
      };
      try {
        let body: Body = {};
        const raw = Buffer.concat(chunks).toString('utf8');
        try {
          body = raw ? (JSON.parse(raw) as Body) : {};
        } catch {
          throw new SchedulerError(400, 'ValidationException', 'the body is not JSON');
        }
        reply(200, handle(req.method ?? 'GET', new URL(req.url ?? '/', 'http://scheduler'), req.headers, body));
      } catch (error) {
        const known = error instanceof SchedulerError ? error : new SchedulerError(500, 'InternalServerException', String(error));
        reply(known.status, { Message: known.message, message: known.message }, known.type);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** One attempt at a due schedule: its target invoked, or the failure recorded and a retry (or the end) set. */
async function fire(state: SchedulerState, options: SchedulerOptions, schedule: StoredSchedule, now: Date): Promise<Firing> {
  schedule.attempts += 1;
  const firing: Firing = { scheduleArn: schedule.arn, name: schedule.name, targetArn: schedule.target.Arn, roleArn: schedule.target.RoleArn, due: schedule.due.toISOString(), firedAt: now.toISOString(), attempt: schedule.attempts, ok: true };
  try {
    await options.invokeTarget(schedule, state.groups.get(schedule.groupName)!);
  } catch (error) {
    firing.ok = false;
    firing.error = error instanceof Error ? error.message : String(error);
    options.onFailure?.(firing);
  }
  state.firings.push(firing);
  const retries = schedule.target.RetryPolicy?.MaximumRetryAttempts ?? DEFAULT_RETRIES;
  if (!firing.ok && schedule.attempts <= retries) schedule.retryAfter = new Date(now.getTime() + RETRY_AFTER_MS);
  else if (state.store.get(schedule.arn) === schedule) {
    if (schedule.actionAfterCompletion === 'DELETE') state.store.delete(schedule.arn);
    else schedule.completed = true;
  }
  return firing;
}

/** Fires every enabled schedule due by `now` that is not being fired already. */
async function fireDue(state: SchedulerState, options: SchedulerOptions, now: Date): Promise<Firing[]> {
  const due = [...state.store.values()].filter(
    (s) => s.state === 'ENABLED' && !s.completed && !state.inFlight.has(s.arn) && s.due.getTime() <= now.getTime() && (!s.retryAfter || s.retryAfter.getTime() <= now.getTime()),
  );
  for (const s of due) state.inFlight.add(s.arn);
  try {
    return await Promise.all(due.map((s) => fire(state, options, s, now)));
  } finally {
    for (const s of due) state.inFlight.delete(s.arn);
  }
}

export async function startScheduler(options: SchedulerOptions): Promise<SchedulerStandIn> {
  const groups = new Map(options.groups.map((g) => [g.name, g]));
  if (!groups.has('default')) groups.set('default', { name: 'default', arn: `arn:aws:scheduler:${REHEARSAL_REGION}:${REHEARSAL_ACCOUNT}:schedule-group/default` });
  const state: SchedulerState = { groups, store: new Map(), firings: [], inFlight: new Set() };
  const server = await serve((method, url, headers, body) => handleCall(state, options.authorize, method, url, headers, body));
  const fireDueNow = (now: Date = new Date()): Promise<Firing[]> => fireDue(state, options, now);

  const tickMs = options.tickMs ?? 1000;
  const timer = tickMs > 0 ? setInterval(() => void fireDueNow().catch(() => undefined), tickMs) : undefined;
  timer?.unref();
  const onlyGroup = options.groups.length === 1 ? options.groups[0]!.name : 'default';
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    schedules: () => [...state.store.values()].map((s) => structuredClone(s)),
    schedule: (name, groupName = onlyGroup) => {
      const found = state.store.get(scheduleArn(groupName, name));
      return found && structuredClone(found);
    },
    firings: state.firings,
    fireDue: fireDueNow,
    close: () =>
      new Promise((resolve) => {
        if (timer) clearInterval(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface SqsTargetDeps {
  /** The template's role with this ARN: its logical id and its trust policy, resolved. */
  role(arn: string): { logicalId: string; trustPolicy: unknown } | undefined;
  /** The URL of the template's queue with this ARN. */
  queueUrl(arn: string): string | undefined;
  /** SendMessage with the role's credentials, through the SQS front (whose IAM check reads the role's policies). */
  send(roleLogicalId: string, queueUrl: string, body: string, messageGroupId?: string): Promise<void>;
  /** Whether the trust policy is evaluated (the rehearsal's IAM check is on); default true. */
  checkTrust?: boolean;
}

/**
 * What Scheduler does for a templated SQS target: assume the schedule's role, as
 * scheduler.amazonaws.com for this account and group, then send the Input to the queue as it.
 */
export function sqsTarget(deps: SqsTargetDeps): SchedulerOptions['invokeTarget'] {
  return async (schedule, group) => {
    const { Arn: targetArn, RoleArn: roleArn, Input } = schedule.target;
    const role = deps.role(roleArn);
    if (!role) throw new Error(`Scheduler cannot assume ${roleArn}: no role of the template has that ARN`);
    const refusal = deps.checkTrust === false ? undefined : trustRefusal(role.trustPolicy, 'scheduler.amazonaws.com', { 'aws:SourceAccount': REHEARSAL_ACCOUNT, 'aws:SourceArn': group.arn });
    if (refusal) throw new Error(`Scheduler cannot assume ${roleArn} (${role.logicalId}) for ${schedule.arn}: ${refusal}`);
    if (!targetArn.startsWith('arn:aws:sqs:')) throw new Error(`the rehearsal invokes SQS targets only, not ${targetArn}`);
    const url = deps.queueUrl(targetArn);
    if (!url) throw new Error(`the target ${targetArn} is no queue of the template`);
    if (Input === undefined) throw new Error(`${schedule.arn} has no Input: the rehearsal does not play the context Scheduler would send instead`);
    await deps.send(role.logicalId, url, Input, schedule.target.SqsParameters?.MessageGroupId);
  };
}
