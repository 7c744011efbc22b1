// The service's own counts (EMF lines, shared/adapters/emf-metrics.ts) where the work happens:
// accepted at acceptance, sent/delivered/bounced/complained where a timeline event is first stored
// (live mail only), webhook deliveries where an attempt's outcome is recorded. A repeat of any of
// them (a replayed request, a redelivered job, a duplicate SES notification) counts nothing.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { emfMetrics } from '../../shared/adapters/emf-metrics';
import type { CountMetric } from '../../shared/platform';
import type { HttpClient } from '../../shared/ports/http-client';
import { call } from '../support/api';
import { bounceNotification, complaintNotification, deliveryNotification, seedSentMessage, snsWrap } from '../support/ses-events';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker, ingestSesEvent as ingest, deliverWebhook } from '../support/consumers';

const bed = useTestbed();
let lines: Array<Record<string, unknown>>;
let http: HttpClient;

beforeEach(() => {
  lines = [];
  bed.c.metrics = emfMetrics({ write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>), now: () => bed.c.clock.now().getTime(), stage: 'test' });
  http = bed.c.http;
});
afterEach(() => {
  bed.c.http = http;
});

/** The lines that carry `name`, and the sum of their values. */
const linesOf = (name: CountMetric) => lines.filter((line) => name in line);
const total = (name: CountMetric): number => linesOf(name).reduce((sum, line) => sum + (line[name] as number), 0);

let n = 0;
const sendBody = (to: string, key = `m-${++n}`) => ({ channel: 'email', idempotency_key: key, destination: { email: to }, payload: { subject: 's', body_text: 't' }, metadata: { from_email: 'hi@acme.test' } });

/** Accepts a send with `key` (the account's live admin key unless given); answers its id and send job. */
async function accept(key = bed.account.admin_key, body: Record<string, unknown> = sendBody('ada@example.com')): Promise<{ id: string; job: unknown }> {
  const res = await bed.request({ method: 'POST', path: '/v1/send', key, body });
  expect(res.status).toBe(201);
  const job = bed.c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === res.body.id)?.body;
  return { id: res.body.id, job };
}

describe('MessagesAccepted', () => {
  it('counts a live send once, and not again when its request is repeated', async () => {
    // Prepare
    const body = sendBody('ada@example.com');

    // Act
    await accept(bed.account.admin_key, body);
    await accept(bed.account.admin_key, body);

    // Assess
    expect(linesOf('MessagesAccepted')).toHaveLength(1);
    expect(total('MessagesAccepted')).toBe(1);
    expect(linesOf('MessagesAccepted')[0]).toMatchObject({ Stage: 'test', _aws: { CloudWatchMetrics: [{ Namespace: 'Postbox' }] } });
  });

  it('counts every message of a batch in one line', async () => {
    // Act
    const res = await bed.request({ method: 'POST', path: '/v1/send/batch', key: bed.account.admin_key, body: [sendBody('a@example.com'), sendBody('b@example.com')] });

    // Assess
    expect(res.status).toBeLessThan(300);
    expect(linesOf('MessagesAccepted')).toHaveLength(1);
    expect(total('MessagesAccepted')).toBe(2);
  });
});

describe('MessagesSent', () => {
  it('is one line for a recorded live sent event, and none when the send job is delivered again', async () => {
    // Prepare
    const { job } = await accept();

    // Act
    await sendWorker(sqsEvent([sqsRecord(job)]));
    const once = linesOf('MessagesSent').length;
    await sendWorker(sqsEvent([sqsRecord(job, 2)]));

    // Assess
    expect(once).toBe(1);
    expect(linesOf('MessagesSent')).toHaveLength(1);
    expect(linesOf('MessagesSent')[0]).toMatchObject({ MessagesSent: 1, Stage: 'test' });
  });

  it('counts nothing of a test-mode send: not its acceptance, nor its simulated sent and delivered', async () => {
    // Prepare
    const { id, job } = await accept(bed.account.test_admin_key);

    // Act
    await sendWorker(sqsEvent([sqsRecord(job)]));

    // Assess
    const status = await bed.request({ method: 'GET', path: `/v1/messages/${id}`, key: bed.account.test_admin_key });
    expect(status.body.status).toBe('delivered');
    expect(lines).toEqual([]);
  });
});

describe('what SES reports', () => {
  it.each([
    ['MessagesDelivered', deliveryNotification],
    ['MessagesBounced', bounceNotification],
    ['MessagesComplained', complaintNotification],
  ] as const)('counts %s once, however often SQS hands the notification over', async (name, notification) => {
    // Prepare
    const sent = await seedSentMessage(bed.c, { accountId: bed.account.account_id });
    lines.length = 0;
    const envelope = snsWrap(notification(sent.target, { at: new Date(bed.c.clock.now().getTime() + 3000).toISOString() }));

    // Act
    await ingest(sqsEvent([sqsRecord(envelope)]));
    await ingest(sqsEvent([sqsRecord(envelope, 2)]));

    // Assess
    expect(linesOf(name)).toHaveLength(1);
    expect(lines).toHaveLength(1);
  });
});

describe('webhook deliveries', () => {
  /** An endpoint that answers `status` to every POST, and is allowed by the URL check. */
  function endpointAnswering(status: number): void {
    bed.c.http = { check: async (url) => ({ ok: true, url }), post: async () => ({ ok: status < 300, status, durationMs: 1 }) };
  }
  /** Runs the queued webhook jobs: the fan-outs and the first attempts they queue (a retry waits on its delay). */
  // A retry waits on the queue's delay; only first attempts are run here.
  const drainWebhooks = () => drain(bed.c.sent, 'webhooks', deliverWebhook, { firstAttemptsOnly: true });
  async function subscribeAndSend(): Promise<void> {
    const res = await bed.request({ method: 'POST', path: '/v1/webhooks', key: bed.account.admin_key, body: { endpoint_url: 'https://hooks.example.com/postbox', event_types: ['sent'] } });
    expect(res.status).toBe(201);
    const { job } = await accept();
    await sendWorker(sqsEvent([sqsRecord(job)]));
  }

  it('counts a 2xx answer as WebhooksDelivered', async () => {
    // Prepare
    endpointAnswering(204);
    await subscribeAndSend();

    // Act
    await drainWebhooks();

    // Assess
    expect(total('WebhooksDelivered')).toBe(1);
    expect(total('WebhooksFailed')).toBe(0);
  });

  it('counts a failed attempt as WebhooksFailed', async () => {
    // Prepare
    endpointAnswering(500);
    await subscribeAndSend();

    // Act
    await drainWebhooks();

    // Assess
    expect(total('WebhooksFailed')).toBe(1);
    expect(total('WebhooksDelivered')).toBe(0);
  });
});
