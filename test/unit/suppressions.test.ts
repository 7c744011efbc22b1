// The suppression use cases and wire schemas against a real (in-memory) store: import rules,
// batched writes, channel-filtered pages, conditional removal.
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError, NotFoundError } from '../../shared/errors';
import { ManualClock } from '../../shared/ports/clock';
import { createSuppressionBody, importSuppressionsBody } from '../../shared/sending/suppressions/schemas';
import {
  addSuppression,
  checkImportSize,
  findSuppressed,
  findSuppression,
  importSuppressions,
  listSuppressions,
  MAX_IMPORT_ENTRIES,
  removeSuppression,
} from '../../shared/sending/suppressions/service';
import { startTestStore, type TestStore } from '../support/store';

let t: TestStore;
let clock: ManualClock;
let accountCounter = 0;
const deps = () => ({ store: t.store, clock });
const newAccount = () => `acct_unit${++accountCounter}`;

beforeAll(async () => {
  t = await startTestStore();
  clock = new ManualClock('2026-03-01T12:00:00.000Z');
});
afterAll(async () => t.close());
afterEach(() => vi.restoreAllMocks());

describe('importSuppressions', () => {
  it('applies entries in order: the last occurrence of a recipient decides its reason and state', async () => {
    const accountId = newAccount();

    const result = await importSuppressions(deps(), accountId, {
      channel: 'email',
      entries: [
        { email: 'x@example.com', reason: 'old', state: 'suppressed' },
        { email: 'X@Example.com ', reason: 'new', state: 'unsubscribed' },
      ],
    });

    expect(result).toEqual({ imported: 1, skipped: 1 });
    expect(await findSuppression(t.store, accountId, 'email', 'x@example.com')).toMatchObject({ reason: 'new', state: 'unsubscribed' });
  });

  it('writes in batches of 25 and never one item at a time', async () => {
    const accountId = newAccount();
    const send = vi.spyOn(t.store.doc, 'send');
    const entries = Array.from({ length: 60 }, (_, i) => ({ email: `batch${i}@example.com` }));

    const result = await importSuppressions(deps(), accountId, { channel: 'email', entries });

    const commands = send.mock.calls.map(([command]) => command);
    expect(result).toEqual({ imported: 60, skipped: 0 });
    expect(commands.filter((cmd) => cmd instanceof BatchWriteCommand)).toHaveLength(3);
    expect(commands.filter((cmd) => cmd instanceof PutCommand)).toHaveLength(0);
    expect((await findSuppressed(t.store, accountId, 'email', entries.map((e) => e.email))).size).toBe(60);
  });

  it('skips blank recipients on channels other than email and keeps the rest verbatim', async () => {
    const accountId = newAccount();

    const result = await importSuppressions(deps(), accountId, {
      channel: 'push',
      entries: [{ email: ' token-A ' }, { email: '' }, { email: 'token-A' }],
    });

    expect(result).toEqual({ imported: 1, skipped: 2 });
    expect(await findSuppression(t.store, accountId, 'push', 'token-A')).toMatchObject({ recipient: 'token-A', reason: 'import' });
  });

  it('refuses an oversized list itself, whoever calls it, before writing', async () => {
    const accountId = newAccount();
    const entries = Array.from({ length: MAX_IMPORT_ENTRIES + 1 }, (_, i) => ({ email: `u${i}@example.com` }));

    await expect(importSuppressions(deps(), accountId, { channel: 'email', entries })).rejects.toMatchObject({
      code: 'invalid_request',
      status: 422,
    });
    expect(await findSuppression(t.store, accountId, 'email', 'u0@example.com')).toBeUndefined();
  });
});

describe('checkImportSize', () => {
  it.each([undefined, null, 'text', [], { entries: 'x' }, { entries: new Array(MAX_IMPORT_ENTRIES) }])(
    'lets %j through to schema validation',
    (body) => {
      expect(() => checkImportSize(body)).not.toThrow();
    },
  );

  it('throws 422 invalid_request above 10000 entries', () => {
    let thrown: unknown;
    try {
      checkImportSize({ entries: new Array(MAX_IMPORT_ENTRIES + 1).fill({}) });
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).toBody()).toEqual({ code: 'invalid_request', status: 422, message: expect.stringMatching(/^body\.entries: /) });
  });
});

describe('listSuppressions', () => {
  it('fills a filtered page even when most stored entries are of other channels', async () => {
    const accountId = newAccount();
    for (let i = 0; i < 12; i++) {
      clock.advance(1000);
      await addSuppression(deps(), accountId, { channel: i % 4 === 0 ? 'email' : 'sms', recipient: i % 4 === 0 ? `e${i}@example.com` : `+1555000${i}` });
    }

    const first = await listSuppressions({ store: t.store, cursorSecret: 's' }, accountId, { channel: 'email', limit: 2 });
    const rest = await listSuppressions({ store: t.store, cursorSecret: 's' }, accountId, {
      channel: 'email',
      limit: 2,
      cursor: first.nextCursor ?? undefined,
    });

    expect(first.items.map((s) => s.recipient)).toEqual(['e8@example.com', 'e4@example.com']);
    expect(rest.items.map((s) => s.recipient)).toEqual(['e0@example.com']);
    expect(rest.nextCursor).toBeNull();
  });
});

describe('removeSuppression', () => {
  it('throws NotFoundError when nothing is stored, and removes what is', async () => {
    const accountId = newAccount();
    await addSuppression(deps(), accountId, { channel: 'email', recipient: 'here@example.com' });

    await expect(removeSuppression(deps(), accountId, { channel: 'email', recipient: 'absent@example.com' })).rejects.toBeInstanceOf(NotFoundError);
    await removeSuppression(deps(), accountId, { channel: 'email', recipient: 'HERE@example.com' });

    expect(await findSuppression(t.store, accountId, 'email', 'here@example.com')).toBeUndefined();
  });
});

describe('schemas', () => {
  it('check email recipients as addresses only on the email channel', () => {
    const email = createSuppressionBody.safeParse({ channel: 'email', recipient: '+15551234567' });
    const sms = createSuppressionBody.safeParse({ channel: 'sms', recipient: '+15551234567' });

    expect(email.success).toBe(false);
    expect(email.error?.issues[0]?.path).toEqual(['recipient']);
    expect(sms.success).toBe(true);
  });

  it('default the import channel to email', () => {
    expect(importSuppressionsBody.parse({ entries: [] })).toEqual({ channel: 'email', entries: [] });
  });
});
