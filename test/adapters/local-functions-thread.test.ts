// The local runtime's functions thread ends the runtime when it fails: a start that cannot load a
// consumer rejects, and an uncaught error once it runs reaches the runtime's failure handler
// (which exits the process, as an emulator's failure does).
import { describe, expect, it } from 'vitest';
import { loadFunctionsThread } from '../../local/functions-thread';
import { waitFor } from '../support/wait';

describe('the functions thread', () => {
  it('rejects its start when a consumer module cannot be loaded', async () => {
    const failures: Error[] = [];
    const start = loadFunctionsThread([{ name: 'missing', entry: 'functions/no-such-consumer.ts', handler: 'handler', queue: 'send' }], (e) => failures.push(e));
    await expect(start).rejects.toThrow(/no-such-consumer/);
    expect(failures).toEqual([]);
  }, 30_000);

  it('reports an uncaught error of the running thread to the runtime', async () => {
    const failures: Error[] = [];
    const loaded = await loadFunctionsThread([{ name: 'failing', entry: 'test/support/failing-consumer.ts', handler: 'handler', queue: 'send' }], (e) => failures.push(e), { eager: true });
    try {
      await waitFor(() => failures.length > 0, { what: 'the thread failure to be reported' });
      expect(failures[0]?.message).toMatch(/a consumer failed outside its handler/);
    } finally {
      await loaded.stop();
    }
  }, 30_000);
});
