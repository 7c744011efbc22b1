// The store's commands (DynamoDB document client commands) a piece of code sends, recorded while
// it runs and passed on to the store as they were: for tests that count reads and writes.
import { vi } from 'vitest';
import type { Store } from '../../shared/db/store';

export interface StoreCommand {
  /** The command's class name: GetCommand, UpdateCommand, BatchGetCommand, QueryCommand… */
  name: string;
  input: Record<string, any>;
}

/** Every store command `run` sends, in order. */
export async function storeCommandsDuring(store: Store, run: () => Promise<unknown>): Promise<StoreCommand[]> {
  const seen: StoreCommand[] = [];
  const send = store.doc.send.bind(store.doc);
  const spy = vi.spyOn(store.doc, 'send').mockImplementation(((command: { constructor: { name: string }; input: Record<string, any> }) => {
    seen.push({ name: command.constructor.name, input: command.input });
    return send(command as never);
  }) as never);
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return seen;
}
