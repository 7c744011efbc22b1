// An account changed in this process (its status, its owner's verification, its channels): what
// keeps a copy of it here drops that copy at once. The verified-keys cache of the request pipeline
// (shared/accounts/api-keys/cache.ts) listens; the accounts area does not know who does.
type Listener = (accountId: string) => void;

const listeners = new Set<Listener>();

/** Registers a listener for the life of the process. */
export function onAccountChange(listener: Listener): void {
  listeners.add(listener);
}

export function accountChanged(accountId: string): void {
  for (const listener of listeners) listener(accountId);
}
