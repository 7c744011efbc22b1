// The store round trips of an authenticated GET /v1/keys: a few sequential requests whose
// DynamoDB commands are counted and timed by middleware on the runtime's document client.
import type { CreatedAccount } from '../shared/accounts/service';
import { keys } from '../shared/db/keys';
import type { LocalRuntime } from '../shared/runtime/local/runtime';

export const ROUTE_PATH = '/v1/keys';

export async function getKeys(runtime: LocalRuntime, token: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${runtime.url}${ROUTE_PATH}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* keep the text */
  }
  return { status: res.status, body };
}

export interface RoundTrips {
  requests: number;
  statuses: Record<string, number>;
  /** Command name → count, over all counted requests. */
  commands: Record<string, number>;
  /** HTTP attempts (retries included) seen below the SDK's retry layer. */
  attempts: number;
  /** Command name → attempts, for comparison with `commands`. */
  attemptsByCommand: Record<string, number>;
  /** Failed attempts below the retry layer, as `Command: error` → count (each one was retried or surfaced). */
  failedAttempts: Record<string, number>;
  /** Command name → total ms spent in it (client side, retries included). */
  commandMs: Record<string, number>;
  /** Client-side latency of each counted request, in ms. */
  requestMs: number[];
  /** Most counted commands in flight at once (1: one request's round trips run one after the other). */
  maxInFlight: number;
  /** Store commands of the local scheduler loop seen meanwhile (left out of the counts). */
  excluded: number;
}

/** Counts the store commands a few sequential authenticated GET /v1/keys make, by command name. */
export async function countRoundTrips(runtime: LocalRuntime, accounts: CreatedAccount[], n: number): Promise<RoundTrips> {
  const stack = runtime.container.store.doc.middlewareStack;
  const out: RoundTrips = { requests: 0, statuses: {}, commands: {}, attempts: 0, attemptsByCommand: {}, failedAttempts: {}, commandMs: {}, requestMs: [], maxInFlight: 0, excluded: 0 };
  let active = false;
  // The execution context is shared by every step of one command: it links attempts to commands.
  const counted = new WeakSet<object>();
  let inFlight = 0;
  const isScheduler = (input: unknown): boolean => JSON.stringify(input ?? {}).includes(keys.schedulesPartition);
  stack.add(
    (next, context) => async (args) => {
      if (active) {
        if (isScheduler(args.input)) out.excluded++;
        else {
          out.commands[context.commandName ?? 'unknown'] = (out.commands[context.commandName ?? 'unknown'] ?? 0) + 1;
          counted.add(context);
          inFlight++;
          out.maxInFlight = Math.max(out.maxInFlight, inFlight);
          const t0 = performance.now();
          try {
            return await next(args);
          } finally {
            inFlight--;
            const name = context.commandName ?? 'unknown';
            out.commandMs[name] = (out.commandMs[name] ?? 0) + performance.now() - t0;
          }
        }
      }
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: 'benchCommandCounter' },
  );
  stack.add(
    (next, context) => async (args) => {
      const isCounted = counted.has(context);
      if (isCounted) {
        out.attempts++;
        const name = context.commandName ?? 'unknown';
        out.attemptsByCommand[name] = (out.attemptsByCommand[name] ?? 0) + 1;
      }
      try {
        return await next(args);
      } catch (error) {
        if (isCounted) {
          const e = error as { name?: string; code?: string };
          const label = `${(context.commandName ?? 'unknown').replace(/Command$/, '')}: ${e?.code ?? e?.name ?? 'error'}`;
          out.failedAttempts[label] = (out.failedAttempts[label] ?? 0) + 1;
        }
        throw error;
      }
    },
    { step: 'finalizeRequest', priority: 'low', name: 'benchAttemptCounter' },
  );
  try {
    active = true;
    for (let i = 0; i < n; i++) {
      const account = accounts[i % accounts.length] as CreatedAccount;
      const t0 = performance.now();
      const { status } = await getKeys(runtime, account.admin_key);
      out.requestMs.push(performance.now() - t0);
      out.statuses[status] = (out.statuses[status] ?? 0) + 1;
      out.requests++;
    }
  } finally {
    active = false;
    stack.remove('benchCommandCounter');
    stack.remove('benchAttemptCounter');
  }
  return out;
}
