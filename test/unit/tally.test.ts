// Counter adds (shared/db/tally.ts): written at once, or summed per item (or group) and written
// once at a batch's end, each sum at most once.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BatchTally, storeTally } from '../../shared/db/tally';
import { createTestContainer, type TestContainer } from '../support/container';

let c: TestContainer;
beforeAll(async () => {
  c = await createTestContainer();
});
afterAll(async () => c.testStore.close());

const key = (pk: string) => ({ pk, sk: 'T' });
const read = (pk: string) => c.store.get<Record<string, unknown>>(key(pk));

describe('counter adds', () => {
  it('are written at once outside a batch, with the item’s identity', async () => {
    const tally = storeTally(c.store);
    await tally.add({ key: key('TALLY#now'), set: { entity: 'tally_test' }, add: { sends: 1 } });
    await tally.add({ key: key('TALLY#now'), add: { sends: 2, other: 1 } });
    expect(await read('TALLY#now')).toEqual({ pk: 'TALLY#now', sk: 'T', entity: 'tally_test', sends: 3, other: 1 });
  });

  it('in a batch: summed per item, the last value set kept, and each sum written once', async () => {
    const tally = new BatchTally();
    await tally.add({ key: key('TALLY#a'), set: { entity: 'tally_test', expiry: 1 }, add: { sends: 1 } });
    await tally.add({ key: key('TALLY#a'), set: { entity: 'tally_test', expiry: 2 }, add: { sends: 1, bounces: 1 } });
    await tally.add({ key: key('TALLY#shard01'), add: { sent: 1 } });
    await tally.add({ key: key('TALLY#shard01'), add: { sent: 1 } });
    const send = vi.spyOn(c.store, 'update');
    expect(await read('TALLY#a')).toBeUndefined();

    expect(await tally.flush(c.store)).toEqual([]);
    expect(await tally.flush(c.store)).toEqual([]);

    expect(send).toHaveBeenCalledTimes(2);
    send.mockRestore();
    expect(await read('TALLY#a')).toEqual({ pk: 'TALLY#a', sk: 'T', entity: 'tally_test', expiry: 2, sends: 2, bounces: 1 });
    expect(await read('TALLY#shard01')).toMatchObject({ sent: 2 });
  });

  it('in a batch: a sum whose write fails is answered with its error and never written again; the others are written', async () => {
    const tally = new BatchTally();
    await tally.add({ key: key('TALLY#ok'), add: { n: 1 } });
    await tally.add({ key: key('TALLY#down'), add: { n: 1 } });
    const update = c.store.update.bind(c.store);
    const spy = vi.spyOn(c.store, 'update').mockImplementation((k, u) => (k.pk === 'TALLY#down' ? Promise.reject(new Error('connection reset')) : update(k, u)));

    const failed = await tally.flush(c.store);
    const again = await tally.flush(c.store);
    spy.mockRestore();

    expect(failed.map((f) => [f.counter.key.pk, String(f.error)])).toEqual([['TALLY#down', 'Error: connection reset']]);
    expect(again).toEqual([]);
    expect(await read('TALLY#ok')).toMatchObject({ n: 1 });
    expect(await read('TALLY#down')).toBeUndefined();
  });
});
