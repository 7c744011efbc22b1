// One of the processes of test/e2e/spend-caps-processes.test.ts: connects to the parent's store,
// says READY, waits for GO on stdin, then accepts its sends all at once and prints their outcomes
// as one JSON line.
import { createInterface } from 'node:readline';
import { acceptSends } from '../../shared/sending/messages/send';
import { createTestContainer } from './container';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`spend-race-child: ${name} is not set`);
  return value;
};

const c = await createTestContainer({ start: env('RACE_CLOCK'), store: { endpoint: env('RACE_ENDPOINT'), tableName: env('RACE_TABLE') } });
const sender = { accountId: env('RACE_ACCOUNT'), keyId: env('RACE_KEY'), testMode: false };
const count = Number(env('RACE_COUNT'));
const prefix = env('RACE_PREFIX');
const lines = createInterface({ input: process.stdin });
process.stdout.write('READY\n');
for await (const line of lines) {
  if (line.trim() !== 'GO') continue;
  const outcomes = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      acceptSends(
        c,
        sender,
        [{ channel: 'email', idempotency_key: `${prefix}-${i}`, destination: { email: 'reader@example.com' }, payload: { subject: 'Race', body_text: 'Race' }, metadata: { from_email: 'hello@acme.test' } }],
        { batch: false },
      ),
    ),
  );
  process.stdout.write(`${JSON.stringify(outcomes.flat().map((o) => (o.kind === 'rejected' ? o.error.code : o.kind)))}\n`);
  break;
}
lines.close();
await c.testStore.close();
