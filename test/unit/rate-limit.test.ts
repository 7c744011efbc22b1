import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { keys } from '../../shared/db/keys';
import { Store } from '../../shared/db/store';
import { ManualClock } from '../../shared/ports/clock';
import { clientNetworkOf } from '../../shared/accounts/rate-limit/client-network';
import { admit, ipSubject } from '../../shared/accounts/rate-limit/service';
import { signInBudgets } from '../../shared/auth/throttle';
import { startTestStore, type TestStore } from '../support/store';

let t: TestStore;
/** A second process's store client over the same table. */
let other: { store: Store; client: DynamoDBClient };
beforeAll(async () => {
  t = await startTestStore();
  const client = new DynamoDBClient({ endpoint: t.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  other = { client, store: new Store(client, t.store.tableName) };
});
afterAll(async () => {
  other.client.destroy();
  await t.close();
});

describe('admit', () => {
  it('lets exactly 10 of 30 concurrent requests through in one window', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');

    const decisions = await Promise.all(Array.from({ length: 30 }, () => admit({ store: t.store, clock }, keys.accountRateSubject('acct_concurrent'), 10)));

    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 1)).toBe(true);
    // Remaining is a snapshot taken at admission; under concurrency it is an estimate.
    expect(decisions.filter((d) => d.allowed).every((d) => d.remaining >= 0 && d.remaining <= 9)).toBe(true);
  });

  it('slides: capacity returns as each admission ages past one second', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const deps = { store: t.store, clock };
    const slide = keys.accountRateSubject('acct_slide');
    for (let i = 0; i < 10; i++) {
      expect((await admit(deps, slide, 10)).allowed).toBe(true);
      clock.advance(100); // admissions at 0, 100, ..., 900 ms
    }

    clock.set('2026-01-01T00:00:00.999Z');
    const early = await admit(deps, slide, 10);
    clock.set('2026-01-01T00:00:01.000Z');
    const first = await admit(deps, slide, 10);
    const second = await admit(deps, slide, 10);
    clock.set('2026-01-01T00:00:01.100Z');
    const third = await admit(deps, slide, 10);

    expect(early).toMatchObject({ allowed: false, retryAfterSeconds: 1, resetEpochSeconds: Math.ceil(Date.parse('2026-01-01T00:00:01.000Z') / 1000) });
    expect(first.allowed).toBe(true);
    expect(second.allowed).toBe(false);
    expect(third.allowed).toBe(true);
  });

  it('admits with one conditional write and reads nothing', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const original = t.store.doc.send.bind(t.store.doc);
    const commands: Array<{ name: string; condition?: string }> = [];
    const spy = vi.spyOn(t.store.doc, 'send').mockImplementation(((command: { constructor: { name: string }; input: { ConditionExpression?: string } }) => {
      commands.push({ name: command.constructor.name, condition: command.input.ConditionExpression });
      return original(command as never);
    }) as never);

    try {
      await admit({ store: t.store, clock }, keys.accountRateSubject('acct_one_write'), 10);
    } finally {
      spy.mockRestore();
    }

    expect(commands).toEqual([{ name: 'UpdateCommand', condition: expect.any(String) }]);
  });

  it('holds across processes: 30 concurrent requests through two store clients admit exactly 10', async () => {
    const subject = keys.accountRateSubject('acct_two_processes');
    const here = { store: t.store, clock: new ManualClock('2026-01-01T00:00:00.000Z') };
    const there = { store: other.store, clock: new ManualClock('2026-01-01T00:00:00.000Z') };

    const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => admit(i % 2 ? here : there, subject, 10)));

    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    expect(decisions.filter((d) => d.allowed).map((d) => d.remaining).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('counts down what remains and resets when the oldest admission leaves the window', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.400Z');
    const deps = { store: t.store, clock };
    const decisions = [];
    for (let i = 0; i < 10; i++) {
      decisions.push(await admit(deps, keys.accountRateSubject('acct_countdown'), 10));
      clock.advance(50);
    }

    expect(decisions.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    // The oldest admission (at .400) leaves at 01.400, so the window resets within Unix second 2.
    expect(decisions.every((d) => d.resetEpochSeconds === Math.ceil(Date.parse('2026-01-01T00:00:01.400Z') / 1000))).toBe(true);
  });

  it('a refused request takes no place: capacity returns when the admitted ones age out', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const deps = { store: t.store, clock };
    const subject = keys.accountRateSubject('acct_refusals');
    for (let i = 0; i < 10; i++) await admit(deps, subject, 10);
    for (let i = 0; i < 5; i++) {
      clock.advance(100);
      expect((await admit(deps, subject, 10)).allowed).toBe(false);
    }

    clock.set('2026-01-01T00:00:01.000Z');
    const after = await admit(deps, subject, 10);

    // Had the refusals (at .100 … .500) been logged, they would still fill the window.
    expect(after).toMatchObject({ allowed: true, remaining: 9 });
  });

  it('serves longer windows too: 3 in a sliding hour, Retry-After until the oldest leaves', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const deps = { store: t.store, clock };
    const hour = 3_600_000;
    const subject = keys.testRecipientLinkMails('acct_hour', 'someone@example.com');
    for (let i = 0; i < 3; i++) {
      expect((await admit(deps, subject, 3, hour)).allowed).toBe(true);
      clock.advance(600_000); // at 0, 10 and 20 minutes
    }

    const refused = await admit(deps, subject, 3, hour); // at 30 minutes
    clock.set('2026-01-01T01:00:00.000Z');
    const again = await admit(deps, subject, 3, hour);

    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1800 });
    expect(again.allowed).toBe(true);
  });

  it('keeps subjects apart', async () => {
    const clock = new ManualClock();
    for (let i = 0; i < 10; i++) await admit({ store: t.store, clock }, ipSubject('192.0.2.1'), 10);
    expect((await admit({ store: t.store, clock }, ipSubject('192.0.2.2'), 10)).allowed).toBe(true);
    expect((await admit({ store: t.store, clock }, ipSubject('192.0.2.1'), 10)).allowed).toBe(false);
  });
});

describe('per-IP subjects (ipSubject)', () => {
  it('shares one budget among the addresses of one IPv6 /64, however they are written', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const deps = { store: t.store, clock };
    const sameSlash64 = ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:fffe', '2001:0DB8:0001:0002:0:0:0:abcd', '2001:db8:1:2:aaaa::9%eth0'];
    for (let i = 0; i < 10; i++) expect((await admit(deps, ipSubject(sameSlash64[i % sameSlash64.length] as string), 10)).allowed).toBe(true);

    for (const address of sameSlash64) expect((await admit(deps, ipSubject(address), 10)).allowed).toBe(false);
    expect((await admit(deps, ipSubject('2001:db8:1:3::1'), 10)).allowed).toBe(true);
    expect((await admit(deps, ipSubject('2001:db8:2:2::1'), 10)).allowed).toBe(true);
  });

  it('limits an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const deps = { store: t.store, clock };
    for (let i = 0; i < 10; i++) expect((await admit(deps, ipSubject(i % 2 ? '203.0.113.9' : '::ffff:203.0.113.9'), 10)).allowed).toBe(true);

    expect((await admit(deps, ipSubject('::FFFF:cb00:7109'), 10)).allowed).toBe(false);
    expect((await admit(deps, ipSubject('203.0.113.10'), 10)).allowed).toBe(true);
  });

  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::ffff:c000:201', '192.0.2.1'],
    ['2001:db8::1', '2001:db8::/64'],
    ['2001:DB8:0:0:1:2:3:4', '2001:db8::/64'],
    ['2001:db8:0:1::', '2001:db8:0:1::/64'],
    ['2001:db8:aa:bb:cc:dd:ee:ff', '2001:db8:aa:bb::/64'],
    ['fe80::1%en0', 'fe80::/64'],
    ['::1', '::/64'],
    ['not an ip', 'not an ip'],
  ])('keys %s as %s', (ip, network) => {
    expect(clientNetworkOf(ip)).toBe(network);
    expect(ipSubject(ip)).toBe(`ip#${network}`);
    expect(signInBudgets('a@example.com', ip).map((b) => b.subject)).toContain(`auth#fail-ip#${network}`);
  });
});
