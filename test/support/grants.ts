// Holds handler tests to the manifest's least-privilege `needs`: while a function's handler runs
// (see ./api.ts), the test container refuses what its needs do not grant, as IAM would in AWS.
import { AsyncLocalStorage } from 'node:async_hooks';
import { functions } from '../../functions/manifest';
import { type FunctionDef, type Needs, type QueueName, type SecretName } from '../../shared/platform';

export const runningAs = new AsyncLocalStorage<FunctionDef>();

export class NotGrantedError extends Error {
  constructor(fn: FunctionDef, what: string) {
    super(`function ${fn.name} used ${what}, which its manifest needs do not grant`);
    this.name = 'NotGrantedError';
  }
}

function check(what: string, granted: (needs: Needs) => boolean): void {
  const fn = runningAs.getStore();
  if (fn && !granted(fn.needs)) throw new NotGrantedError(fn, what);
}

/** Wraps an adapter so each listed method first checks the running function's grant. */
export function guarded<T extends object>(target: T, rules: Record<string, (args: unknown[]) => [string, (needs: Needs) => boolean]>): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      const rule = typeof property === 'string' ? rules[property] : undefined;
      if (!rule || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const [what, granted] = rule(args);
        check(what, granted);
        return (value as (...a: unknown[]) => unknown).apply(receiver, args);
      };
    },
  });
}

const read = (): [string, (n: Needs) => boolean] => ['the table', (n) => Boolean(n.table)];
const write = (): [string, (n: Needs) => boolean] => ['table writes', (n) => n.table === 'readwrite'];

export const storeRules = {
  get: read,
  query: read,
  batchGet: read,
  put: write,
  create: write,
  update: write,
  delete: write,
  take: write,
  batchPut: write,
};

const toQueue = (args: unknown[]): [string, (n: Needs) => boolean] => {
  const queue = args[0] as QueueName;
  return [`the ${queue} queue`, (n) => (n.sendTo ?? []).includes(queue)];
};
export const queueRules = { send: toQueue, sendBatch: toQueue };

const scheduling = (): [string, (n: Needs) => boolean] => ['the scheduler', (n) => Boolean(n.scheduler)];
export const schedulerRules = { schedule: scheduling, cancel: scheduling };

const bucket = (mode: 'read' | 'write') => (): [string, (n: Needs) => boolean] => [
  `the bucket (${mode})`,
  (n) => (mode === 'read' ? Boolean(n.bucket) : n.bucket === 'readwrite'),
];
export const objectRules = { get: bucket('read'), getStream: bucket('read'), downloadUrl: bucket('read'), put: bucket('write'), putFile: bucket('write'), delete: bucket('write') };

const deadLetters = (): [string, (n: Needs) => boolean] => ['the DLQs', (n) => Boolean(n.deadLetters)];
export const deadLetterRules = { peek: deadLetters, redrive: deadLetters };

export const mailerRules = { send: (): [string, (n: Needs) => boolean] => ['SES sending', (n) => Boolean(n.sesSend)] };

const identities = (): [string, (n: Needs) => boolean] => ['SES identities', (n) => Boolean(n.sesIdentities)];
export const identityRules = { create: identities, remove: identities };

export const secretRules = {
  get: (args: unknown[]): [string, (n: Needs) => boolean] => {
    const name = args[0] as SecretName;
    return [`the ${name} secret`, (n) => (n.secrets ?? []).includes(name)];
  },
};

/** A queue consumer's handler that runs under its manifest needs, as `call()` runs HTTP routes. */
export function underNeeds<E, R>(entry: string, handler: (event: E) => Promise<R>): (event: E) => Promise<R> {
  const fn = functions.find((f) => f.entry === entry);
  if (!fn) throw new Error(`no manifest function with entry ${entry}`);
  return (event) => runningAs.run(fn, () => handler(event));
}
