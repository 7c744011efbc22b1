// The local runtime as a user meets it: `npm start` in its own process, HTTP on a free port,
// data in a temporary DATA_DIR.
import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRoutes } from '../../functions/manifest';
import { FUNCTIONS_NICE } from '../../local/thread-priority';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { bounceNotification, snsWrap } from '../support/ses-events';
import { needsTool } from '../support/system-tools';
import { waitFor } from '../support/wait';

const curl = needsTool('curl', 'apt-get update && apt-get install -y curl');

/** The commands under "Try" in what `npm start` printed, as a user would paste them. */
function tryCommands(output: string): string {
  const block = /^Try.*\n((?:  .*\n)+)/m.exec(output)?.[1] ?? '';
  return block
    .split('\n')
    .filter((line) => line.startsWith('  ') && !line.startsWith('  then open'))
    .map((line) => line.slice(2))
    .join('\n');
}

/** The README's first send and its follow-up, pointed at this runtime and its data directory. */
function readmeQuickStart(url: string, dir: string): string {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /Send a message and watch it arrive[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  return block.replaceAll('localhost:3000', url).replaceAll('./.data/', `${dir}/`);
}

async function mailSubjects(sesUrl: string): Promise<string[]> {
  const store = (await (await fetch(`${sesUrl}/store`)).json()) as { emails: Array<{ subject: string }> };
  return store.emails.map((email) => email.subject);
}

let dataDir: string;
let runtime: RuntimeProcess;
let bootstrap: { account_id: string; admin_key: string; test_admin_key: string; staff_token: string };

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-e2e-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir });
  bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
});
afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('first start', () => {
  it('writes bootstrap.json with exactly the documented fields and prints the keys', () => {
    expect(Object.keys(bootstrap).sort()).toEqual(['account_id', 'admin_key', 'staff_token', 'test_admin_key']);
    expect(bootstrap.admin_key).toMatch(/^sk_live_/);
    expect(bootstrap.test_admin_key).toMatch(/^sk_test_/);
    expect(runtime.output()).toContain(bootstrap.admin_key);
    expect(runtime.output()).toContain(bootstrap.staff_token);
  });

  it('prints where the store and the data live', () => {
    expect(runtime.output()).toMatch(/^  store \(DynamoDB endpoint\): +http:\/\/127\.0\.0\.1:\d+ \(embedded, kept in .*dynamodb\)$/m);
    expect(runtime.output()).toContain(`data directory:             ${dataDir}`);
  });

  it('serves the SES emulator page where the user can see sent mail', async () => {
    const page = await fetch(`${runtime.sesUrl}/`);
    const store = await fetch(`${runtime.sesUrl}/store`);

    expect(page.status).toBe(200);
    expect(await store.json()).toMatchObject({ emails: [] });
  });
});

curl.describe(curl.name('what npm start prints'), () => {
  it('runs as printed: the send keeps the new id in $ID and the next command reads that message', async () => {
    const script = tryCommands(runtime.output());

    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script]);

    const [id = '', answer = '{}'] = stdout.trim().split('\n');
    expect(script).toContain('/v1/messages/$ID');
    expect(id).toMatch(/^msg_[0-9a-z]+$/);
    expect(JSON.parse(answer)).toMatchObject({ id, channel: 'email', idempotency_key: 'hello-1' });
  });
});

curl.describe(curl.name("the README's Quick start"), () => {
  it('runs as written: the first send keeps its id in $ID and the next command reads that message', async () => {
    const script = readmeQuickStart(runtime.url, dataDir);

    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script]);

    const [id = '', answer = '{}'] = stdout.trim().split('\n');
    expect(script).toContain(`${runtime.url}/v1/messages/$ID`);
    expect(id).toMatch(/^msg_[0-9a-z]+$/);
    expect(JSON.parse(answer)).toMatchObject({ id, channel: 'email', idempotency_key: 'welcome-1' });
  });
});

describe('routes', () => {
  it('answers every manifest route locally (no route falls through to the catch-all)', async () => {
    for (const route of httpRoutes()) {
      const path = route.path.replace(/\{(\w+)\}/g, 'x');
      const res = await api(runtime.url, route.method, path);
      const name = `${route.method} ${route.path}`;
      if (route.access.kind === 'public') {
        // No credentials needed: the route's own answer, never the catch-all's.
        expect({ name, message: res.body?.error?.message ?? '' }).not.toEqual({ name, message: expect.stringMatching(/^no route for/) });
        expect(res.status).not.toBe(405);
      } else {
        expect({ name, status: res.status }).toEqual({ name, status: 401 });
      }
    }
  });

  it('answers unknown routes with 404 and wrong methods with 405, in the envelope', async () => {
    const unknown = await api(runtime.url, 'GET', '/v2/keys');
    const wrong = await api(runtime.url, 'PUT', '/v1/keys', bootstrap.admin_key);

    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('creates, lists, rotates and revokes keys over HTTP', async () => {
    const created = await api(runtime.url, 'POST', '/v1/keys', bootstrap.admin_key, { scope: 'read', name: 'e2e' });
    const list = await api(runtime.url, 'GET', '/v1/keys?limit=1', bootstrap.admin_key);
    const rotated = await api(runtime.url, 'POST', `/v1/keys/${created.body.id}/rotate`, bootstrap.admin_key);
    const oldSecret = await api(runtime.url, 'GET', '/v1/account/verification', created.body.key);
    const revoked = await api(runtime.url, 'DELETE', `/v1/keys/${created.body.id}`, bootstrap.admin_key);
    const newSecret = await api(runtime.url, 'GET', '/v1/account/verification', rotated.body.key);

    expect(created.status).toBe(201);
    expect(list.body.keys).toHaveLength(1);
    expect(list.body.keys[0].id).toBe(created.body.id);
    expect(list.body.next_cursor).toEqual(expect.any(String));
    expect(list.headers.get('x-ratelimit-limit')).toBe('10');
    expect(list.headers.get('x-request-id')).toBeTruthy();
    expect(rotated.status).toBe(200);
    expect(oldSecret.status).toBe(401);
    expect(revoked.status).toBe(204);
    expect(newSecret.status).toBe(401);
  });

  it('creates further accounts with the staff token', async () => {
    const res = await api(runtime.url, 'POST', '/v1/admin/accounts', bootstrap.staff_token, { name: 'second' });

    expect(res.status).toBe(201);
    expect(res.body.account_id).not.toBe(bootstrap.account_id);
    expect((await api(runtime.url, 'GET', '/v1/account/verification', res.body.admin_key)).body.account_id).toBe(res.body.account_id);
  });
});

/** Each thread of `pid` with its nice value, from /proc/<pid>/task/<tid>/stat (field 19). */
function nicesOf(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return out;
}

describe.skipIf(process.platform !== 'linux')('threads', () => {
  it('runs the functions thread (consumers, scheduler, SMTP listener) at a lower CPU priority than the API thread', () => {
    const pid = runtime.child.pid as number;
    const nices = nicesOf(pid);
    const base = nices.get(pid);
    expect([...nices.values()].filter((n) => n === Math.min(19, (base as number) + FUNCTIONS_NICE))).toHaveLength(1);
  });
});

describe('restart', () => {
  it('keeps the mail the SES emulator page lists', async () => {
    const sent = await api(runtime.url, 'POST', '/v1/send', bootstrap.admin_key, {
      channel: 'email',
      idempotency_key: 'kept-across-restart',
      destination: { email: 'you@example.com' },
      payload: { subject: 'Kept across restart', body_text: 'still here' },
    });
    await waitFor(async () => (await mailSubjects(runtime.sesUrl)).includes('Kept across restart'), { what: 'the mail to reach the SES emulator' });

    await runtime.stop('SIGINT');
    runtime = await startRuntimeProcess({ DATA_DIR: dataDir });
    const listed = await mailSubjects(runtime.sesUrl);

    expect(sent.status).toBe(201);
    expect(listed.filter((subject) => subject === 'Kept across restart')).toHaveLength(1);
    expect((await fetch(`${runtime.sesUrl}/`)).status).toBe(200);
  });

  it('stops cleanly on Ctrl-C and comes back with all data', async () => {
    const created = await api(runtime.url, 'POST', '/v1/keys', bootstrap.admin_key, { name: 'survivor' });

    const code = await runtime.stop('SIGINT');
    runtime = await startRuntimeProcess({ DATA_DIR: dataDir });
    const after = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    const list = await api(runtime.url, 'GET', '/v1/keys', bootstrap.admin_key);
    const use = await api(runtime.url, 'GET', '/v1/account/verification', created.body.key);

    expect(code).toBe(0);
    expect(after).toEqual(bootstrap);
    expect(runtime.output()).not.toContain(bootstrap.admin_key);
    expect(list.body.keys.map((k: { id: string }) => k.id)).toContain(created.body.id);
    expect(use.status).toBe(200);
  });

  it('delivers at start what its queue journal holds from the last run', async () => {
    // Prepare: a delivered message, and, while the runtime is down, a soft bounce of it left
    // waiting in the ses-events queue's journal, as a kill would leave it.
    const sent = await api(runtime.url, 'POST', '/v1/send', bootstrap.admin_key, {
      channel: 'email',
      idempotency_key: 'journal-replay',
      destination: { email: 'you@example.com' },
      payload: { subject: 'Bounced after a restart', body_text: 'hi' },
    });
    const delivered = await waitFor(
      async () => {
        const message = (await api(runtime.url, 'GET', `/v1/messages/${sent.body.id}`, bootstrap.admin_key)).body;
        return message.status === 'delivered' && message;
      },
      { what: 'the message to be delivered' },
    );
    await runtime.stop('SIGINT');
    const bounce = bounceNotification(
      { providerMessageId: delivered.provider_message_id, recipient: 'you@example.com', messageId: delivered.id, accountId: bootstrap.account_id },
      { at: new Date().toISOString(), bounceType: 'Transient' },
    );
    const entry = { op: 'send', queue: 'ses-events', at: Date.now(), delay: 0, bodies: [JSON.stringify(snsWrap(bounce))] };
    appendFileSync(join(dataDir, 'queue-journal.jsonl'), `${JSON.stringify(entry)}\n`);

    // Act
    runtime = await startRuntimeProcess({ DATA_DIR: dataDir });

    // Assess
    const types = await waitFor(
      async () => {
        const message = (await api(runtime.url, 'GET', `/v1/messages/${sent.body.id}`, bootstrap.admin_key)).body;
        const seen: string[] = message.events.map((e: { type: string }) => e.type);
        return seen.includes('bounced') && seen;
      },
      { what: 'the journaled bounce to reach the timeline' },
    );
    expect([...types].sort()).toEqual(['bounced', 'delivered', 'sent']);
  });
});
