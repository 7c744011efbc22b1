// The stack rehearsed as deployed (issue 30): synthesized with its bundles, its functions run from
// the cloud assembly with the template's environment and handlers, the HTTP API routed from the
// template, the secrets as Secrets Manager generates them, the SQS event source mappings polling.
// The flows go through it over real HTTP, as a client of the deployed API would.
//
// Bundling every function of the manifest takes a while even side by side (rehearsal/assembly.ts);
// this rehearses the stack of the functions these flows reach (each made by the same constructs as
// in the whole stack, with the same environment, role, routes and mappings) plus the $default
// fallback. `npm run rehearse` runs the whole stack.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functions as manifest } from '../../functions/manifest';
import { synthesize, type Assembly } from '../../rehearsal/assembly';
import { startRehearsal, type Rehearsal } from '../../rehearsal/rehearsal';
import type { CfnTemplate } from '../../rehearsal/template';
import { SESSION_COOKIE } from '../../shared/http/cookies';
import { linkTokenIn } from '../support/sessions';
import { broadcastFlow } from './flows-broadcast';
import { deployedFlows } from './flows-deployed';
import { webhookFlow } from './flows-webhooks';
import { waitFor } from '../support/wait';
import { startPublicReceiver, type PublicReceiver } from '../support/webhook-receiver';

// The receiving flows' functions too (flows-deployed.ts): the domain, inbound and route routes, the inbound worker, the staff's admin routes, billing;
// and the broadcast flow's (flows-broadcast.ts): contacts and lists, broadcasts, the fan-out.
// The webhook flow's worker too (flows-webhooks.ts).
const FLOW_FUNCTIONS = ['auth', 'keys', 'webhooks', 'webhook-worker', 'send', 'send-worker', 'ses-events', 'messages', 'acceptance-sweep', 'uploads', 'contact-import', 'domains', 'inbound-routes', 'inbound', 'receive-email', 'admin', 'billing', 'contacts', 'broadcasts', 'broadcast-fan-out'];
const outdir = mkdtempSync(join(tmpdir(), 'postbox-rehearsal-test-'));
let assembly: Assembly;
let rehearsal: Rehearsal;
/** A live key and the message it sent, for the last test: they must outlive Time to Live. */
let survivor: { key: string; messageId: string } | undefined; // a live read key
/** The webhook endpoint on the rehearsal's internet: a public address, served on loopback (undefined without openssl). */
let played: PublicReceiver | undefined;

beforeAll(async () => {
  played = await startPublicReceiver();
  // Prepare: one synth for the file, bundles included, and the rehearsal of it.
  // With inbound (`-c inbound=true`): SES receiving's rule set, topic and bucket policy, a few resources more for every flow.
  assembly = await synthesize({ outdir, props: { inbound: true, functions: manifest.filter((def) => FLOW_FUNCTIONS.includes(def.name) || def.defaultRoute) } });
  rehearsal = await startRehearsal({ assembly, internet: played?.internet });
}, 600_000);

afterAll(async () => {
  await rehearsal?.close();
  await played?.receiver.close();
  rmSync(outdir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** A request to the rehearsed API, as a client of the deployed one makes it. */
async function call(method: string, path: string, options: { body?: unknown; key?: string; session?: Session; on?: Rehearsal } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  if (options.session) {
    headers.cookie = options.session.cookie;
    headers['x-csrf-token'] = options.session.csrf;
  }
  const res = await fetch(`${(options.on ?? rehearsal).url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, headers: res.headers, body };
}

/** A request made again while the account's rate limit (10 a second, sliding) answers 429: the flows' requests come faster than a client's. */
async function pastRateLimit(method: string, path: string, options: Parameters<typeof call>[2]): Promise<Answer> {
  return waitFor(
    async () => {
      const answer = await call(method, path, options);
      return answer.status !== 429 && answer;
    },
    { what: `${method} ${path} answered past the rate limit`, intervalMs: 200 },
  );
}

/** What went wrong inside, for a failed expectation's message: the failed invocations and the functions' last log lines. */
function inside(): string {
  const failed = rehearsal.invocations.filter((i) => !i.ok).map((i) => `${i.label}: ${i.error?.errorType} ${i.error?.errorMessage}`);
  return [...failed, ...rehearsal.logs.slice(-15).map((l) => `[${l.function}] ${l.line}`)].join('\n');
}

interface Session {
  email: string;
  cookie: string;
  csrf: string;
}

/** The mail the SES emulator holds for an address. */
async function mailTo(address: string): Promise<Array<{ subject: string; body: { text?: string } }>> {
  const res = await fetch(`${rehearsal.ses.endpoint}/store`);
  const store = (await res.json()) as { emails: Array<{ subject: string; destination: { to: string[] }; body: { text?: string } }> };
  return store.emails.filter((m) => m.destination.to.some((to) => to.includes(address)));
}

/** A message's status once the ses-events function took its Delivery event (the send worker mailed it, SES published, SNS queued it). */
async function deliveredStatus(messageId: string, session: Session): Promise<string> {
  const ingester = rehearsal.functionNamed('ses-events').spec.logicalId;
  const taken = await waitFor(() => rehearsal.deliveries.find((d) => d.functionLogicalId === ingester && d.bodies.some((b) => b.includes(messageId))), {
    what: () => `the Delivery event of ${messageId} taken by the ses-events function\n${inside()}`,
    timeoutMs: 30_000,
  });
  expect(taken.failed, inside()).toEqual([]);
  const message = await call('GET', `/v1/messages/${messageId}`, { session });
  expect(message.status, JSON.stringify(message.body)).toBe(200);
  return message.body.status as string;
}

describe('the stack, rehearsed', () => {
  let session: Session;
  let liveKey: string;
  let sentId: string;
  let scheduledId: string;

  it('is made from the template: every function with its handler and a bundle of the cloud assembly', () => {
    expect(rehearsal.functions.size).toBe(FLOW_FUNCTIONS.length + 1);
    for (const fn of rehearsal.functions.values()) {
      expect(fn.spec.codeDirectory.startsWith(outdir)).toBe(true);
      expect(fn.spec.handler).toBe('index.handler');
    }
    // Every secret of the template, as Secrets Manager generated it: 64 letters and digits.
    const generated = rehearsal.secrets.filter((s) => s.value !== 'unset');
    expect(generated.length).toBeGreaterThan(0);
    for (const secret of generated) expect(secret.value).toMatch(/^[A-Za-z0-9]{64}$/);
  });

  it('signs a person up from the console (POST /v1/auth/signup) and verifies the address from the mail SES sent', async () => {
    // Act
    const email = `rehearsal-${Date.now()}@example.com`;
    const signup = await call('POST', '/v1/auth/signup', { body: { email, password: 'a long and unusual passphrase' } });
    // Assert
    expect(signup.status, `${JSON.stringify(signup.body)}\n${inside()}`).toBe(201);
    const cookie = signup.headers.getSetCookie().find((c) => c.startsWith('__Host-postbox_session='))?.split(';')[0];
    expect(cookie).toBeDefined();
    const view = await call('GET', '/v1/auth/session', { session: { email, cookie: cookie!, csrf: '' } });
    expect(view.status, JSON.stringify(view.body)).toBe(200);
    session = { email, cookie: cookie!, csrf: view.body.csrf_token };

    const [mail] = await waitFor(async () => ((await mailTo(email)).length ? mailTo(email) : undefined), { what: `the verification mail to ${email}` });
    const verify = await call('POST', '/v1/auth/verify-email', { body: { token: linkTokenIn(mail!.body.text, 'verify-email') } });
    expect(verify.status, `${JSON.stringify(verify.body)}\n${inside()}`).toBe(200);
  });

  it('creates a live API key with the session, shown once', async () => {
    const created = await call('POST', '/v1/keys', { session, body: { test_mode: false } });
    expect(created.status, `${JSON.stringify(created.body)}\n${inside()}`).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body.key).toMatch(/^sk_live_/);
    liveKey = created.body.key;
  });

  it('creates a webhook subscription and rotates its secret: sealed under the data key Secrets Manager generated', async () => {
    // Issue 30: in AWS both answered 500, the secret box refusing the generated key.
    const created = await call('POST', '/v1/webhooks', { key: liveKey, body: { endpoint_url: 'https://93.184.216.34/hook' } });
    expect(created.status, `${JSON.stringify(created.body)}\n${inside()}`).toBe(201);
    expect(created.body.signing_secret).toMatch(/^[0-9a-f]{64}$/);
    const rotated = await call('POST', `/v1/webhooks/${created.body.id}/rotate-secret`, { key: liveKey });
    expect(rotated.status, `${JSON.stringify(rotated.body)}\n${inside()}`).toBe(200);
    expect(rotated.body.signing_secret).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated.body.signing_secret).not.toBe(created.body.signing_secret);
    // Removed: it takes every event type, and the flows' sends would keep the webhook worker busy (the webhook flow subscribes its own).
    const removed = await call('DELETE', `/v1/webhooks/${created.body.id}`, { key: liveKey });
    expect(removed.status, `${JSON.stringify(removed.body)}\n${inside()}`).toBe(200);
  });

  it('accepts a send (201 queued), and the send queue\'s event source mapping hands it to the send worker, which mails it through SES', async () => {
    const sent = await call('POST', '/v1/send', {
      key: liveKey,
      body: { channel: 'email', idempotency_key: 'rehearsal-1', destination: { email: session.email }, payload: { subject: 'Rehearsed', body_text: 'Hello from the rehearsal' } },
    });
    expect(sent.status, `${JSON.stringify(sent.body)}\n${inside()}`).toBe(201);
    expect(sent.body.status).toBe('queued');
    const messageId: string = sent.body.id;

    // The mapping delivered the job to the send worker, which took it (deleted from the queue).
    const worker = rehearsal.functionNamed('send-worker').spec.logicalId;
    const delivery = await waitFor(() => rehearsal.deliveries.find((d) => d.functionLogicalId === worker && d.bodies.some((b) => b.includes(messageId))), {
      what: () => `the send job of ${messageId} delivered to the send worker\n${inside()}`,
      timeoutMs: 30_000,
    });
    expect(delivery.failed, inside()).toEqual([]);
    const mail = await waitFor(async () => (await mailTo(session.email)).find((m) => m.subject === 'Rehearsed'), { what: 'the sent mail in SES' });
    expect(mail.body.text).toContain('Hello from the rehearsal');
    sentId = messageId;
    survivor = { key: (await call('POST', '/v1/keys', { session, body: { test_mode: false, scope: 'read' } })).body.key as string, messageId };
  });

  it('reaches delivered: SES publishes the Delivery event to the configuration set\'s topic, SNS puts it on the ses-events queue in its envelope, the ses-events function records it', async () => {
    // Act: the send of the previous flow, followed through SES event publishing (waiting on the
    // ingester's batch, not on polling the API, which rate limits the key).
    const ingester = rehearsal.functionNamed('ses-events').spec.logicalId;
    const taken = await waitFor(() => rehearsal.deliveries.find((d) => d.functionLogicalId === ingester && d.bodies.some((b) => b.includes(sentId))), {
      what: () => `the Delivery event of ${sentId} taken by the ses-events function\n${inside()}`,
      timeoutMs: 30_000,
    });
    // Assert
    expect(taken.failed, inside()).toEqual([]);
    const note = rehearsal.notifications.find((n) => n.message.includes(sentId));
    expect(note?.error).toBeUndefined();
    expect(JSON.parse(taken.bodies.find((b) => b.includes(sentId))!)).toMatchObject({ Type: 'Notification', TopicArn: note!.topicArn });
    const message = await call('GET', `/v1/messages/${sentId}`, { session });
    expect(message.status, JSON.stringify(message.body)).toBe(200);
    expect(message.body.status).toBe('delivered');
  });

  // Send → sent → delivered with a signed webhook (flows-webhooks.ts).
  webhookFlow({ rehearsal: () => rehearsal, liveKey: () => liveKey, ownAddress: () => session.email, played: () => played!, call: (m, p, o) => call(m, p, o), pastRateLimit, inside, message: (id) => pastRateLimit('GET', `/v1/messages/${id}`, { session }) });

  it('accepts a send scheduled a minute ahead (201 scheduled): the send function made an at() schedule in the template\'s group, for the send queue, as the scheduler role', async () => {
    // Act
    const scheduledAt = new Date(Date.now() + 60_000);
    const sent = await call('POST', '/v1/send', {
      key: liveKey,
      body: { channel: 'email', idempotency_key: 'rehearsal-scheduled', scheduled_at: scheduledAt.toISOString(), destination: { email: session.email }, payload: { subject: 'Rehearsed later', body_text: 'Sent when its schedule fired' } },
    });
    // Assert
    expect(sent.status, `${JSON.stringify(sent.body)}\n${inside()}`).toBe(201);
    expect(sent.body.status).toBe('scheduled');
    scheduledId = sent.body.id;
    const env = rehearsal.functionNamed('send').spec.environment;
    const schedule = rehearsal.scheduler.schedule(scheduledId);
    expect(schedule, inside()).toMatchObject({ groupName: env.SCHEDULER_GROUP_NAME, actionAfterCompletion: 'DELETE', target: { Arn: env.QUEUE_ARN_SEND, RoleArn: env.SCHEDULER_ROLE_ARN } });
    expect(schedule!.due.getTime() - scheduledAt.getTime()).toBeGreaterThanOrEqual(0);
    expect(schedule!.due.getTime() - scheduledAt.getTime()).toBeLessThan(1000);
    expect(JSON.parse(schedule!.target.Input!)).toMatchObject({ message_id: scheduledId });
    // Not fired before its time.
    expect((await rehearsal.scheduler.fireDue(new Date())).filter((f) => f.name === scheduledId)).toEqual([]);
  });

  it('fires the schedule when its time comes: Scheduler assumes its role, puts the job on the send queue, and the message reaches delivered', async () => {
    // Act: the clock moved to the schedule's time (the wall clock's tick would fire it too, a minute on).
    const due = rehearsal.scheduler.schedule(scheduledId)?.due;
    expect(due).toBeDefined();
    await rehearsal.scheduler.fireDue(due);
    // Assert
    const firing = await waitFor(() => rehearsal.scheduler.firings.find((f) => f.name === scheduledId), { what: `the firing of ${scheduledId}` });
    expect(firing.ok, firing.error).toBe(true);
    expect(rehearsal.scheduler.schedule(scheduledId), 'ActionAfterCompletion DELETE').toBeUndefined();
    expect(await deliveredStatus(scheduledId, session)).toBe('delivered');
    expect((await mailTo(session.email)).some((m) => m.subject === 'Rehearsed later')).toBe(true);
  });

  it('cancels a scheduled send (POST /v1/messages/{id}/cancel): the messages function deletes its schedule', async () => {
    // Prepare (the account's limiter may still count the flows before: a 429 is waited out, never the test's subject)
    const sent = await pastRateLimit('POST', '/v1/send', {
      key: liveKey,
      body: { channel: 'email', idempotency_key: 'rehearsal-canceled', scheduled_at: new Date(Date.now() + 60_000).toISOString(), destination: { email: session.email }, payload: { subject: 'Never sent', body_text: 'Canceled' } },
    });
    expect(sent.status, `${JSON.stringify(sent.body)}\n${inside()}`).toBe(201);
    const id: string = sent.body.id;
    expect(rehearsal.scheduler.schedule(id)).toBeDefined();
    // Act
    const canceled = await pastRateLimit('POST', `/v1/messages/${id}/cancel`, { key: liveKey });
    // Assert
    expect(canceled.status, `${JSON.stringify(canceled.body)}\n${inside()}`).toBe(200);
    expect(canceled.body).toEqual({ id, status: 'canceled' });
    expect(rehearsal.scheduler.schedule(id)).toBeUndefined();
    expect(rehearsal.calls.some((c) => c.service === 'scheduler' && c.operation === 'DeleteSchedule' && !c.denied && c.checks[0]!.resource.endsWith(`/${id}`))).toBe(true);
  });

  // SES receiving, dead letters, a Stripe webhook, the EMF metrics (flows-deployed.ts): after the sends, whose metrics the last reads.
  deployedFlows({ rehearsal: () => rehearsal, played: () => played, accountKey: () => liveKeyOn(rehearsal, undefined, 'admin'), call: (m, p, o) => call(m, p, o), pastRateLimit, inside, mailTo });

  it('takes a batch of 1000 sends (POST /v1/send/batch, test mode) and the send worker brings every one to delivered', async () => {
    // Prepare: a test-mode key, since a sandboxed account's live mail reaches only its own address, 50 a day.
    const testKey = (await call('POST', '/v1/keys', { session, body: { test_mode: true } })).body.key as string;
    const items = Array.from({ length: 1000 }, (_, i) => ({ channel: 'email', idempotency_key: `rehearsal-batch-${i}`, destination: { email: session.email }, payload: { subject: `Batch ${i}`, body_text: 'One of a thousand' } }));
    // Act
    const res = await pastRateLimit('POST', '/v1/send/batch', { key: testKey, body: items });
    // Assert: each accepted, each taken by the send worker from the queue, each delivered.
    expect(res.status, `${JSON.stringify(res.body).slice(0, 500)}\n${inside()}`).toBe(200);
    const results = res.body as Array<{ success: boolean; response?: { id: string; status: string }; error?: unknown }>;
    expect(results.filter((r) => !r.success || r.response?.status !== 'queued')).toEqual([]);
    const ids = new Set(results.map((r) => r.response!.id));
    expect(ids.size).toBe(1000);
    const worker = rehearsal.functionNamed('send-worker').spec.logicalId;
    const batches = () => rehearsal.deliveries.filter((d) => d.functionLogicalId === worker && d.bodies.some((b) => ids.has(JSON.parse(b).message_id)));
    const taken = () => new Set(batches().flatMap((d) => d.bodies.map((b) => JSON.parse(b).message_id as string)).filter((id) => ids.has(id)));
    await waitFor(() => taken().size === 1000, { what: () => `the send worker to take all 1000 jobs (took ${taken().size})\n${inside()}`, timeoutMs: 110_000, intervalMs: 200 });
    expect(batches().flatMap((d) => d.failed)).toEqual([]);
    // Read back through the API, page by page, until every one is delivered: a job the worker took
    // before the request stored its message went back on the queue for a second look (a second).
    const deliveredIds = async (): Promise<{ delivered: Set<string>; pages: number }> => {
      const delivered = new Set<string>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        const path = `/v1/messages?status=delivered&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await pastRateLimit('GET', path, { session });
        pages += 1;
        expect(page.status, JSON.stringify(page.body)).toBe(200);
        for (const m of page.body.messages as Array<{ id: string }>) if (ids.has(m.id)) delivered.add(m.id);
        cursor = page.body.next_cursor ?? undefined;
      } while (cursor);
      return { delivered, pages };
    };
    let read = await deliveredIds();
    await waitFor(async () => (read = await deliveredIds()).delivered.size === 1000, { what: () => `all 1000 delivered (${read.delivered.size} in ${read.pages} pages)\n${inside()}`, timeoutMs: 60_000, intervalMs: 500 });
    expect(read.delivered.size).toBe(1000);
    // About eleven AWS calls per message in the send worker, one invocation at a time: 30 to 50 s on two shared cores.
  }, 150_000);

  it('takes a CSV upload (POST /v1/uploads) into the bucket, and imports contacts from it (POST /v1/contacts/import) through the imports queue to completed', async () => {
    // Prepare: a CSV with a header row and two contacts
    const csv = 'email,first_name\nada@rehearsal.test,Ada\ngrace@rehearsal.test,Grace\n';
    // Act: the upload, as a client sends a file
    const uploaded = await waitFor(
      async () => {
        const res = await fetch(`${rehearsal.url}/v1/uploads`, { method: 'POST', headers: { authorization: `Bearer ${liveKey}`, 'content-type': 'text/csv' }, body: csv });
        return res.status !== 429 && { status: res.status, body: (await res.json()) as { key: string; size: number } };
      },
      { what: 'POST /v1/uploads answered past the rate limit', intervalMs: 200 },
    );
    expect(uploaded.status, `${JSON.stringify(uploaded.body)}\n${inside()}`).toBe(201);
    expect(uploaded.body.size).toBe(Buffer.byteLength(csv));
    const started = await pastRateLimit('POST', '/v1/contacts/import', { key: liveKey, body: { object_key: uploaded.body.key } });
    expect(started.status, `${JSON.stringify(started.body)}\n${inside()}`).toBe(202);
    // Assert: the contact-import function read the file from the bucket and finished the import
    const finished = await waitFor(
      async () => {
        const view = await call('GET', `/v1/contacts/imports/${started.body.id}`, { key: liveKey });
        return view.status === 200 && view.body.status !== 'processing' && view.body;
      },
      { what: () => `the import ${started.body.id} to finish\n${inside()}`, timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(finished).toMatchObject({ status: 'completed', total: 2, created: 2, errors: [] });
    // The object went in through the uploads function and came out through contact-import, each call IAM-checked.
    const s3Calls = rehearsal.calls.filter((c) => c.service === 's3' && c.checks.some((k) => k.resource.endsWith(uploaded.body.key)));
    expect(s3Calls.filter((c) => c.denied)).toEqual([]);
    expect(s3Calls.map((c) => c.operation)).toEqual(expect.arrayContaining(['PutObject', 'GetObject']));
  });

  // A broadcast to a static list, through the fan-out (flows-broadcast.ts).
  broadcastFlow({
    rehearsal: () => rehearsal,
    liveKey: () => liveKey,
    testKey: async () => (await pastRateLimit('POST', '/v1/keys', { session, body: { test_mode: true } })).body.key as string,
    call: (m, p, o) => call(m, p, o),
    pastRateLimit,
    inside,
  });

  it('runs the function of a rate rule (AWS::Events::Rule) as EventBridge does, allowed by its Lambda permission', async () => {
    // Prepare: the rule whose target is the acceptance sweep, at its rate from the manifest.
    const sweep = rehearsal.functionNamed('acceptance-sweep').spec.logicalId;
    const rule = rehearsal.rules.find((r) => r.functionLogicalId === sweep);
    expect(rule?.everyMs).toBe(60_000);
    // Act
    const outcome = await rehearsal.fireRule(rule!.logicalId);
    // Assert
    expect(outcome.ok, JSON.stringify(outcome)).toBe(true);
    expect(rehearsal.invocations.some((i) => i.functionLogicalId === sweep && i.trigger === 'schedule' && i.ok)).toBe(true);
  });

  it('answers a path no route takes through the $default route, as API Gateway does', async () => {
    const res = await call('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('the rehearsal, after the flows', () => {
  it('saw every AWS call the flows made allowed by the calling function\'s role in the template', () => {
    expect(rehearsal.calls.filter((c) => c.denied)).toEqual([]);
    // The checks covered the services the flows reach, each with its own role.
    const actions = new Set(rehearsal.calls.flatMap((c) => c.checks.map((k) => k.action)));
    for (const action of ['dynamodb:PutItem', 'dynamodb:GetItem', 'sqs:SendMessage', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'ses:SendEmail', 'secretsmanager:GetSecretValue', 's3:PutObject', 's3:GetObject']) expect(actions).toContain(action);
    for (const action of ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'iam:PassRole']) expect(actions).toContain(action);
    expect(rehearsal.errors).toEqual([]);
  });

  // Last: it deletes what the flows left to expire (sessions, tokens, limiter logs, delivery logs).
  it("loses nothing it keeps when DynamoDB's Time to Live has deleted every item due by a year from now: the live key still lists and reads its message", async () => {
    expect(survivor, 'the send flow ran').toBeDefined();

    const deleted = await rehearsal.expireItems(new Date(Date.now() + 366 * 86_400_000));
    const left = await rehearsal.expireItems(new Date(Date.now() + 366 * 86_400_000));
    const list = await call('GET', '/v1/messages?limit=5', { key: survivor!.key });
    const message = await call('GET', `/v1/messages/${survivor!.messageId}`, { key: survivor!.key });

    expect(deleted).toBeGreaterThan(0);
    expect(left).toBe(0);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(message.status, JSON.stringify(message.body)).toBe(200);
    expect(message.body).toMatchObject({ id: survivor!.messageId, status: 'delivered' });
  });
});

/** The template of the assembly, changed by `change`; the bundles stay as built. */
function mutated(change: (template: CfnTemplate) => void): Assembly {
  const template = structuredClone(assembly.template);
  change(template);
  return { ...assembly, template };
}

const functionId = (template: CfnTemplate, label: string): string =>
  Object.entries(template.Resources).find(([, r]) => r.Type === 'AWS::Lambda::Function' && r.Properties?.Description === `Postbox ${label}`)![0];

/** An account's live key on a rehearsal, made as the staff would not: through sign-up, verification and the console. */
async function liveKeyOn(on: Rehearsal, email = `mutant-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`, scope?: 'admin'): Promise<string> {
  const signup = await call('POST', '/v1/auth/signup', { on, body: { email, password: 'a long and unusual passphrase' } });
  const cookie = signup.headers.getSetCookie().find((c) => c.startsWith('__Host-postbox_session='))!.split(';')[0]!;
  const csrf = (await call('GET', '/v1/auth/session', { on, session: { email, cookie, csrf: '' } })).body.csrf_token;
  const store = async () => ((await (await fetch(`${on.ses.endpoint}/store`)).json()) as { emails: Array<{ destination: { to: string[] }; body: { text?: string } }> }).emails;
  const mail = await waitFor(async () => (await store()).find((m) => m.destination.to.some((to) => to.includes(email))), { what: `the verification mail to ${email}` });
  await call('POST', '/v1/auth/verify-email', { on, body: { token: linkTokenIn(mail.body.text, 'verify-email') } });
  return (await call('POST', '/v1/keys', { on, session: { email, cookie, csrf }, body: { test_mode: false, ...(scope ? { scope } : {}) } })).body.key as string;
}

describe('mutations of the template: the rehearsal fails, naming what broke', () => {
  it('a function without the environment variable of its data key: POST /v1/webhooks answers 500 and the function names the secret', async () => {
    const broken = await startRehearsal({
      assembly: mutated((t) => {
        delete (t.Resources[functionId(t, 'webhooks')]!.Properties!.Environment as { Variables: Record<string, unknown> }).Variables.SECRET_ARN_DATA_ENCRYPTION_KEY;
      }),
    });
    try {
      const key = await liveKeyOn(broken);
      const res = await call('POST', '/v1/webhooks', { on: broken, key, body: { endpoint_url: 'https://93.184.216.34/hook' } });
      expect(res.status).toBe(500);
      expect(broken.logs.filter((l) => l.function.includes('Webhooks')).map((l) => l.line).join('\n')).toContain('secret data-encryption-key is not available to this function');
    } finally {
      await broken.close();
    }
  });

  it('a role without the grant to read its secrets: the read is denied as IAM would, naming the action and the secret', async () => {
    let dataKeyArn = '';
    const broken = await startRehearsal({
      assembly: mutated((t) => {
        const role = (t.Resources[functionId(t, 'webhooks')]!.Properties!.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
        const policy = Object.values(t.Resources).find((r) => r.Type === 'AWS::IAM::Policy' && (r.Properties!.Roles as Array<{ Ref: string }>).some((x) => x.Ref === role))!;
        const document = policy.Properties!.PolicyDocument as { Statement: Array<{ Action: string | string[] }> };
        document.Statement = document.Statement.filter((s) => ![s.Action].flat().includes('secretsmanager:GetSecretValue'));
      }),
    });
    try {
      dataKeyArn = broken.secrets.find((s) => s.name.includes('DataEncryptionKey'))!.arn;
      const key = await liveKeyOn(broken);
      const res = await call('POST', '/v1/webhooks', { on: broken, key, body: { endpoint_url: 'https://93.184.216.34/hook' } });
      expect(res.status).toBe(500);
      const denied = broken.calls.filter((c) => c.denied);
      expect(denied.map((c) => c.checks.map((k) => `${k.action} ${k.resource}`)).flat()).toContain(`secretsmanager:GetSecretValue ${dataKeyArn}`);
    } finally {
      await broken.close();
    }
  });

  it('a webhook worker role without sqs:ReceiveMessage on the webhooks queue: its event source mapping cannot poll, and the rehearsal names the role, the action and the queue', async () => {
    let role = '';
    const broken = await startRehearsal({
      assembly: mutated((t) => {
        role = (t.Resources[functionId(t, 'webhook-worker')]!.Properties!.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
        const policy = Object.values(t.Resources).find((r) => r.Type === 'AWS::IAM::Policy' && (r.Properties!.Roles as Array<{ Ref: string }>).some((x) => x.Ref === role))!;
        for (const statement of (policy.Properties!.PolicyDocument as { Statement: Array<{ Action: string | string[] }> }).Statement) {
          statement.Action = [statement.Action].flat().filter((a) => a !== 'sqs:ReceiveMessage');
        }
      }),
    });
    try {
      // Act: nothing to do; the mapping polls from the start, as its function's role.
      const refused = await waitFor(() => broken.errors.find((e) => e.includes('sqs:ReceiveMessage')), { what: () => `the mapping's refused poll\n${broken.errors.join('\n')}` });
      // Assert
      expect(refused).toMatch(new RegExp(`assumed-role/${role} is not authorized to perform: sqs:ReceiveMessage on resource: arn:aws:sqs:\\S+WebhooksQueue`));
      const worker = broken.functionNamed('webhook-worker');
      const mapping = Object.entries(broken.assembly.template.Resources).find(([, r]) => r.Type === 'AWS::Lambda::EventSourceMapping' && JSON.stringify(r.Properties!.FunctionName).includes(worker.spec.logicalId))![0];
      expect(refused!.startsWith(`${mapping}: `), refused).toBe(true);
      expect(worker.coldStarts, 'the worker never ran').toBe(0);
    } finally {
      await broken.close();
    }
  });

  it('a scheduler role without sqs:SendMessage on the send queue: a scheduled send is accepted, and its firing fails naming the role and the action', async () => {
    let schedulerRole = '';
    const broken = await startRehearsal({
      schedulerTickMs: 0,
      assembly: mutated((t) => {
        const variables = (t.Resources[functionId(t, 'send')]!.Properties!.Environment as { Variables: Record<string, { 'Fn::GetAtt': [string, string] }> }).Variables;
        const sendQueue = variables.QUEUE_ARN_SEND!['Fn::GetAtt'][0];
        schedulerRole = variables.SCHEDULER_ROLE_ARN!['Fn::GetAtt'][0];
        const policy = Object.values(t.Resources).find((r) => r.Type === 'AWS::IAM::Policy' && (r.Properties!.Roles as Array<{ Ref: string }>).some((x) => x.Ref === schedulerRole))!;
        for (const statement of (policy.Properties!.PolicyDocument as { Statement: Array<{ Action: string | string[]; Resource: unknown }> }).Statement) {
          if (JSON.stringify(statement.Resource).includes(sendQueue)) statement.Action = [statement.Action].flat().filter((a) => a !== 'sqs:SendMessage');
        }
      }),
    });
    try {
      const email = `scheduled-${Date.now()}@example.com`;
      const key = await liveKeyOn(broken, email);
      const sent = await call('POST', '/v1/send', {
        on: broken,
        key,
        body: { channel: 'email', idempotency_key: 'mutant-scheduled', scheduled_at: new Date(Date.now() + 60_000).toISOString(), destination: { email }, payload: { subject: 'Later', body_text: 'Never queued' } },
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      // Act
      const firings = await broken.scheduler.fireDue(new Date(Date.now() + 120_000));
      // Assert
      const firing = firings.find((f) => f.name === sent.body.id);
      expect(firing?.ok).toBe(false);
      expect(firing?.error).toMatch(new RegExp(`assumed-role/${schedulerRole} is not authorized to perform: sqs:SendMessage on resource: arn:aws:sqs:\\S+QueuesSendQueue`));
      expect(broken.errors.join('\n')).toContain(`Scheduler could not deliver to ${firing!.targetArn}`);
    } finally {
      await broken.close();
    }
  });

  it('a bucket policy without the SES statement: a received message is refused as S3 would refuse SES, naming the principal and the object, and nothing is notified', async () => {
    const broken = await startRehearsal({
      assembly: mutated((t) => {
        for (const r of Object.values(t.Resources).filter((r) => r.Type === 'AWS::S3::BucketPolicy')) {
          const document = r.Properties!.PolicyDocument as { Statement: Array<{ Principal?: { Service?: string } }> };
          document.Statement = document.Statement.filter((s) => s.Principal?.Service !== 'ses.amazonaws.com');
        }
      }),
    });
    try {
      const received = await broken.receiveMail({ from: 'a@sender.rehearsal.test', to: ['b@inbound.rehearsal.test'], raw: 'Subject: refused\r\n\r\nHello\r\n' });
      expect(received.stored).toEqual([]);
      expect(received.refused.join('\n')).toMatch(new RegExp(`no resource policy lets ses.amazonaws.com s3:PutObject on arn:aws:s3:::\\S+/inbound/raw/${received.sesMessageId}`));
      expect(broken.notifications).toEqual([]);
    } finally {
      await broken.close();
    }
  });

  it('a queue policy that no longer lets the topic send: the rehearsal refuses to start, naming the subscription SQS would refuse', async () => {
    await expect(
      startRehearsal({
        assembly: mutated((t) => {
          for (const r of Object.values(t.Resources).filter((r) => r.Type === 'AWS::SQS::QueuePolicy')) {
            const document = r.Properties!.PolicyDocument as { Statement: Array<{ Principal?: { Service?: string } }> };
            document.Statement = document.Statement.filter((s) => s.Principal?.Service !== 'sns.amazonaws.com');
          }
        }),
      }),
    ).rejects.toThrow(/SesEventsQueue\w*: no queue policy lets arn:aws:sns:[^ ]+ send to arn:aws:sqs:[^ ]+: SQS would refuse every notification/);
  });

  it('a rate rule whose function does not let EventBridge invoke it: the rehearsal refuses to start, naming the rule', async () => {
    await expect(
      startRehearsal({
        assembly: mutated((t) => {
          for (const [id, r] of Object.entries(t.Resources)) if (r.Type === 'AWS::Lambda::Permission' && r.Properties!.Principal === 'events.amazonaws.com') delete t.Resources[id];
        }),
      }),
    ).rejects.toThrow(/AcceptanceSweepEvery\w*: no AWS::Lambda::Permission lets events.amazonaws.com invoke AcceptanceSweep\w* for this rule/);
  });

  it("a data key generated shorter than the product takes: POST /v1/webhooks answers 500 and the function says what the key lacks", async () => {
    const broken = await startRehearsal({
      assembly: mutated((t) => {
        const [, secret] = Object.entries(t.Resources).find(([id, r]) => r.Type === 'AWS::SecretsManager::Secret' && id.includes('DataEncryptionKey'))!;
        (secret.Properties!.GenerateSecretString as { PasswordLength: number }).PasswordLength = 16;
      }),
    });
    try {
      const generated = broken.secrets.find((s) => s.name.includes('DataEncryptionKey'))!;
      const key = await liveKeyOn(broken);
      const res = await call('POST', '/v1/webhooks', { on: broken, key, body: { endpoint_url: 'https://93.184.216.34/hook' } });
      expect(res.status).toBe(500);
      expect(res.body.error.code).toBe('internal_error');
      expect(broken.logs.filter((l) => l.function.includes('Webhooks')).map((l) => l.line).join('\n')).toContain('data encryption key must be at least 32 characters');
      expect(generated.arn).toMatch(/^arn:aws:secretsmanager:/);
    } finally {
      await broken.close();
    }
  });

  it('a route whose integration invokes the wrong function: the request reaches that function, which answers 404 naming the path it does not serve', async () => {
    const broken = await startRehearsal({
      assembly: mutated((t) => {
        const routes = Object.values(t.Resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route');
        const target = (key: string) => routes.find((r) => r.Properties!.RouteKey === key)!.Properties!;
        target('ANY /v1/webhooks').Target = target('ANY /v1/keys').Target;
      }),
    });
    try {
      const key = await liveKeyOn(broken);
      const res = await call('POST', '/v1/webhooks', { on: broken, key, body: { endpoint_url: 'https://93.184.216.34/hook' } });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found', message: 'no route for POST /v1/webhooks' });
      expect(broken.functionNamed('webhooks').coldStarts, 'the webhooks function never ran').toBe(0);
    } finally {
      await broken.close();
    }
  });

  it('an environment variable that names a resource the template does not have: the rehearsal refuses to start, naming the variable', async () => {
    await expect(
      startRehearsal({
        assembly: mutated((t) => {
          (t.Resources[functionId(t, 'send')]!.Properties!.Environment as { Variables: Record<string, unknown> }).Variables.TABLE_NAME = { Ref: 'NoSuchTable' };
        }),
      }),
    ).rejects.toThrow(/Environment\.Variables\.TABLE_NAME: Ref to NoSuchTable, which is not in the template/);
  });
});
