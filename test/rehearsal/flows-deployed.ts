// Flows of the shared rehearsal of flows.test.ts (issue 30 items 1–2, issue 32 item 6), kept apart
// so that file stays readable: SES receiving as the receipt rule does it, a consumer job dead-lettered
// through the template's RedrivePolicy and redriven by the staff, a signed Stripe webhook, and the
// EMF lines the dashboard and alarms read. Registered by flows.test.ts on its rehearsal.
import { DynamoDBClient, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import type { Rehearsal } from '../../rehearsal/rehearsal';
import { REHEARSAL_REGION } from '../../rehearsal/template';
import { keys } from '../../shared/db/keys';
import { asSnsEnvelope } from '../../shared/inbound-mail/receipt/messages';
import { receivedNotification } from '../../local/smtp-listener';
import { waitFor } from '../support/wait';
import { hasOpenssl, signedEnvelope, type PublicReceiver } from '../support/webhook-receiver';

export interface FlowContext {
  rehearsal: () => Rehearsal;
  /** The webhook endpoint the rehearsal's internet plays at a public address (undefined without openssl). */
  played: () => PublicReceiver | undefined;
  /** An admin live key of an account of its own (signed up and verified): its verified domain changes no other flow's sends. */
  accountKey: () => Promise<string>;
  call: (method: string, path: string, options?: { body?: unknown; key?: string }) => Promise<{ status: number; headers: Headers; body: any }>;
  pastRateLimit: (method: string, path: string, options: { body?: unknown; key?: string }) => Promise<{ status: number; headers: Headers; body: any }>;
  inside: () => string;
  mailTo: (address: string) => Promise<Array<{ subject: string; body: { text?: string } }>>;
}

const DOMAIN = `inbound-${Date.now()}.rehearsal.test`;

/** What DNS verification leaves on a domain: the rehearsal has no DNS to verify against, so its table item is set as the check would set it. */
async function markVerified(rehearsal: Rehearsal, domain: string): Promise<void> {
  const db = new DynamoDBClient({ region: REHEARSAL_REGION, endpoint: rehearsal.dynamodb.endpoint, credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' } });
  try {
    const table = rehearsal.functionNamed('domains').spec.environment.TABLE_NAME!;
    const claim = keys.domainClaim(domain);
    const { Item } = await db.send(new GetItemCommand({ TableName: table, Key: { pk: { S: claim.pk }, sk: { S: claim.sk } } }));
    const key = keys.domain(Item!.account_id!.S!, domain);
    await db.send(
      new UpdateItemCommand({
        TableName: table,
        Key: { pk: { S: key.pk }, sk: { S: key.sk } },
        UpdateExpression: 'SET dkim_status = :v, spf_status = :v, dmarc_status = :v',
        ExpressionAttributeValues: { ':v': { S: 'verified' } },
      }),
    );
  } finally {
    db.destroy();
  }
}

export function deployedFlows(ctx: FlowContext): void {
  sesReceivingFlow(ctx);
  deadLetterFlow(ctx);
  stripeWebhookFlow(ctx);
  metricsFlow(ctx);
}

/** SES receiving as the receipt rule does it: stored, listed, delivered by webhook, forwarded by email and webhook routes. */
function sesReceivingFlow(ctx: FlowContext): void {
  describe('SES receiving, as the receipt rule does it', () => {
    it.skipIf(!hasOpenssl)('stores a message SES received for an inbound domain: raw in the bucket as SES, notified through the topic, listed by GET /v1/inbound, its email.received delivered signed to the subscriber by the webhook worker, forwarded by an email route through SES, and by a webhook route signed with its rotated secret (needs openssl)', async () => {
      const rehearsal = ctx.rehearsal();
      const key = await ctx.accountKey();
      // Prepare: a domain of the account, verified, with inbound on; a route forwarding fwd-*; a webhook for email.received.
      const domain = await ctx.pastRateLimit('POST', '/v1/domains', { key, body: { domain: DOMAIN } });
      expect(domain.status, `${JSON.stringify(domain.body)}\n${ctx.inside()}`).toBe(201);
      await markVerified(rehearsal, DOMAIN);
      const enabled = await ctx.pastRateLimit('POST', `/v1/domains/${DOMAIN}/inbound`, { key, body: { enabled: true } });
      expect(enabled.status, `${JSON.stringify(enabled.body)}\n${ctx.inside()}`).toBe(200);
      const route = await ctx.pastRateLimit('POST', '/v1/inbound/routes', { key, body: { domain: DOMAIN, match_prefix: 'fwd', destination_type: 'email', forward_address: 'team@example.org' } });
      expect(route.status, `${JSON.stringify(route.body)}\n${ctx.inside()}`).toBe(201);
      // The functions may reach no private address (no WEBHOOK_ALLOW_PRIVATE in the template): the
      // webhook names the public address the rehearsal's internet plays (flows-webhooks.ts).
      const played = ctx.played()!;
      const hookPath = `/inbound-${Date.now()}`;
      const hook = await ctx.pastRateLimit('POST', '/v1/webhooks', { key, body: { endpoint_url: `${played.url}${hookPath}`, event_types: ['email.received'] } });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      // A webhook route for hook-*, its secret rotated (issue 30: create and rotate sealed under the data key Secrets Manager generated).
      const routePath = `/route-${Date.now()}`;
      const hookRoute = await ctx.pastRateLimit('POST', '/v1/inbound/routes', { key, body: { domain: DOMAIN, match_prefix: 'hook', destination_type: 'webhook', forward_url: `${played.url}${routePath}` } });
      expect(hookRoute.status, `${JSON.stringify(hookRoute.body)}\n${ctx.inside()}`).toBe(201);
      const rotated = await ctx.pastRateLimit('POST', `/v1/inbound/routes/${hookRoute.body.id}/rotate-secret`, { key });
      expect(rotated.status, `${JSON.stringify(rotated.body)}\n${ctx.inside()}`).toBe(200);
      expect(rotated.headers.get('cache-control')).toBe('no-store');
      expect(rotated.body.signing_secret).toMatch(/^[0-9a-f]{64}$/);
      expect(rotated.body.signing_secret).not.toBe(hookRoute.body.signing_secret);
      const recipients = [`fwd-sales@${DOMAIN}`, `hook-desk@${DOMAIN}`];
      const raw = [`From: Alice <alice@sender.rehearsal.test>`, `To: ${recipients.join(', ')}`, 'Subject: Received in the rehearsal', `Message-ID: <${Date.now()}@sender.rehearsal.test>`, '', 'Hello, inbound.', ''].join('\r\n');
      // Act
      const received = await rehearsal.receiveMail({ from: 'alice@sender.rehearsal.test', to: recipients, raw });
      // Assert: SES wrote under the rule's prefix, admitted by the bucket policy, and notified the topic.
      expect(received.refused).toEqual([]);
      expect(received.stored).toEqual([expect.objectContaining({ objectKey: `inbound/raw/${received.sesMessageId}` })]);
      const write = rehearsal.calls.find((c) => c.service === 's3' && c.operation === 'PutObject' && c.checks[0]!.resource.endsWith(received.sesMessageId));
      expect(write?.denied).toBeUndefined();
      const listed = await waitFor(
        async () => {
          const page = await ctx.call('GET', '/v1/inbound', { key });
          return page.status === 200 && (page.body.data ?? page.body.emails ?? page.body.inbound ?? []).find((e: { subject: string; recipient: string }) => e.subject === 'Received in the rehearsal' && e.recipient === recipients[0]);
        },
        { what: () => `the received mail listed by GET /v1/inbound\n${ctx.inside()}`, timeoutMs: 30_000, intervalMs: 300 },
      );
      expect(listed).toMatchObject({ recipient: `fwd-sales@${DOMAIN}`, from: 'alice@sender.rehearsal.test' });
      const request = await waitFor(() => played.receiver.requests.find((r) => r.path === hookPath && r.body.toString('utf8').includes(listed.id)), {
        what: () => `the email.received webhook of ${listed.id}\n${ctx.inside()}`,
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      const { verified, envelope } = await signedEnvelope(request, hook.body.signing_secret);
      expect(verified, 'Service-Signature verifies with the signing secret').toBe(true);
      expect(request.headers['service-event-type']).toBe('email.received');
      expect(envelope).toMatchObject({ event_type: 'email.received', message_id: listed.id, payload: { id: listed.id, recipient: `fwd-sales@${DOMAIN}`, subject: 'Received in the rehearsal' } });
      const forward = await waitFor(async () => (await ctx.mailTo('team@example.org')).find((m) => m.subject === 'Fwd: Received in the rehearsal'), {
        what: () => `the forward in SES\n${ctx.inside()}`,
        timeoutMs: 30_000,
        intervalMs: 300,
      });
      expect(forward.body.text).toContain('Hello, inbound.');
      // The webhook route's forward, by the webhook worker: signed with the rotated secret, not the first one.
      const routed = await waitFor(() => played.receiver.requests.find((r) => r.path === routePath), {
        what: () => `the hook route's forward\n${ctx.inside()}`,
        timeoutMs: 30_000,
        intervalMs: 200,
      });
      const byRoute = await signedEnvelope(routed, rotated.body.signing_secret);
      expect(byRoute.verified, 'the forward verifies with the rotated secret').toBe(true);
      expect((await signedEnvelope(routed, hookRoute.body.signing_secret)).verified, 'and not with the secret it replaced').toBe(false);
      expect(byRoute.envelope).toMatchObject({ event_type: 'email.received', message_id: '', payload: { recipient: recipients[1], subject: 'Received in the rehearsal' } });
    });
  });
}

/** A consumer job dead-lettered through the template's RedrivePolicy, listed and redriven by the staff. */
function deadLetterFlow(ctx: FlowContext): void {
  describe('dead letters, through the queues\' RedrivePolicy', () => {
    it('moves a job the inbound worker keeps failing to its DLQ after maxReceiveCount; the staff list it with its reason (GET /v1/admin/dead-letters) and put it back (POST …/inbound/redrive)', async () => {
      const rehearsal = ctx.rehearsal();
      const staff = rehearsal.secrets.find((s) => s.name.includes('StaffToken'))!.value;
      const queueUrl = rehearsal.functionNamed('admin').spec.environment.QUEUE_URL_INBOUND!;
      // Prepare: SES's notification of a message whose raw object is not in the bucket (deleted, say): the worker fails it every time.
      const objectKey = `inbound/raw/missing-${Date.now()}`;
      const notification = receivedNotification({ timestamp: new Date().toISOString(), source: 'a@sender.rehearsal.test', sesMessageId: `missing${Date.now()}`, recipients: [`x@${DOMAIN}`], verdicts: { spf: 'GRAY', dkim: 'GRAY', dmarc: 'GRAY' }, bucketName: 'b', objectKey });
      // Act: the queue's visibility timeout (minutes in the template) is a second here, so each failed receive comes round again soon, until SQS moves it to the DLQ.
      const sqs = new SQSClient({ region: REHEARSAL_REGION, endpoint: rehearsal.sqs.endpoint, credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' } });
      const inDlq = async () => {
        const listing = await ctx.call('GET', '/v1/admin/dead-letters', { key: staff });
        expect(listing.status, JSON.stringify(listing.body)).toBe(200);
        const inbound = (listing.body.queues as Array<{ queue: string; items: Array<{ id: string; body_preview: string; reason: string | null; receive_count: number | null }> }>).find((q) => q.queue === 'inbound');
        return inbound?.items.find((item) => item.body_preview.includes(notification.mail.messageId));
      };
      const dead = await rehearsal.withVisibilityTimeout(queueUrl, 1, async () => {
        try {
          await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(asSnsEnvelope(notification, `sns-${Date.now()}`)) }));
        } finally {
          sqs.destroy();
        }
        return waitFor(inDlq, { what: () => `the failing inbound job in the DLQ\n${ctx.inside()}`, timeoutMs: 60_000, intervalMs: 500 });
      });
      // Assert: the reason the worker noted on its last receive, after the template's maxReceiveCount.
      expect(dead.reason).toContain(`the raw message ${objectKey} is not in the object store`);
      const redrive = Object.entries(rehearsal.assembly.template.Resources).find(([id, r]) => r.Type === 'AWS::SQS::Queue' && /InboundQueue/.test(id) && r.Properties?.RedrivePolicy)![1].Properties!.RedrivePolicy as { maxReceiveCount: number };
      expect(dead.receive_count).toBe(redrive.maxReceiveCount);
      const worker = rehearsal.functionNamed('receive-email').spec.logicalId;
      const tries = () => rehearsal.deliveries.filter((d) => d.functionLogicalId === worker && d.bodies.some((b) => b.includes(notification.mail.messageId))).length;
      const before = tries();
      expect(before, 'one receive by the worker per count').toBe(redrive.maxReceiveCount);
      const redriven = await ctx.call('POST', '/v1/admin/dead-letters/inbound/redrive', { key: staff, body: { ids: [dead.id] } });
      expect(redriven.status, `${JSON.stringify(redriven.body)}\n${ctx.inside()}`).toBe(200);
      expect(redriven.body).toEqual({ queue: 'inbound', redriven: [dead.id] });
      await waitFor(() => tries() > before, { what: () => `the redriven job received by the inbound worker again\n${ctx.inside()}` });
      // The admin function's SQS calls (the DLQ's receive and delete, the queue's send) passed the IAM check.
      const admin = rehearsal.calls.filter((c) => c.service === 'sqs' && c.checks.some((k) => /DeadLetter|Dlq|DLQ/i.test(k.resource)));
      expect(admin.length).toBeGreaterThan(0);
      expect(admin.filter((c) => c.denied)).toEqual([]);
    });
  });
}

/** A signed Stripe webhook: verified with the operator's secret and remembered. */
function stripeWebhookFlow(ctx: FlowContext): void {
  describe('a Stripe webhook, as Stripe sends it', () => {
    it('answers 200 to an event signed with the webhook secret the operator put in Secrets Manager, and remembers it; a bad signature is 403', async () => {
      const rehearsal = ctx.rehearsal();
      // Prepare: the operator's put-secret-value of both Stripe keys (the template holds placeholders).
      const webhookSecret = `whsec_rehearsal${Date.now()}`;
      rehearsal.putSecretValue(rehearsal.secrets.find((s) => s.name.includes('StripeWebhookSecret'))!.name, webhookSecret);
      rehearsal.putSecretValue(rehearsal.secrets.find((s) => s.name.includes('StripeSecretKey'))!.name, 'sk_test_rehearsal');
      const eventId = `evt_rehearsal${Date.now()}`;
      const payload = JSON.stringify({ id: eventId, object: 'event', type: 'customer.created', created: Math.floor(Date.now() / 1000), data: { object: { id: 'cus_rehearsal', object: 'customer' } } });
      const post = (signature: string) => fetch(`${rehearsal.url}/v1/billing/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });
      // Act
      const forged = await post(new Stripe('sk_test_x').webhooks.generateTestHeaderString({ payload, secret: 'whsec_not_it' }));
      const signed = await post(new Stripe('sk_test_x').webhooks.generateTestHeaderString({ payload, secret: webhookSecret }));
      // Assert
      expect(forged.status).toBe(403);
      expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('invalid_signature');
      expect(signed.status, `${await signed.clone().text()}\n${ctx.inside()}`).toBe(200);
      expect(await signed.json()).toEqual({ received: true });
      // Recorded as the billing code records a verified event: remembered by its id, so a redelivery is a duplicate.
      const db = new DynamoDBClient({ region: REHEARSAL_REGION, endpoint: rehearsal.dynamodb.endpoint, credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' } });
      try {
        const key = keys.billingEvent(eventId);
        const { Item } = await db.send(new GetItemCommand({ TableName: rehearsal.functionNamed('billing').spec.environment.TABLE_NAME!, Key: { pk: { S: key.pk }, sk: { S: key.sk } } }));
        expect(Item?.entity?.S).toBe('billing_event');
      } finally {
        db.destroy();
      }
    });
  });
}

/** The EMF lines the functions write match the metrics the dashboard and alarms read. */
function metricsFlow(ctx: FlowContext): void {
  describe('the metrics the dashboard and alarms read', () => {
    it('are the ones the functions write: the send flow left MessagesAccepted and MessagesSent EMF lines whose namespace, name and dimensions a dashboard widget or alarm of the template reads', () => {
      const rehearsal = ctx.rehearsal();
      const read = metricsRead(rehearsal.assembly.template.Resources);
      const written = emfMetrics(rehearsal.logs.map((l) => l.line));
      for (const name of ['MessagesAccepted', 'MessagesSent']) {
        const lines = written.filter((m) => m.name === name);
        expect(lines.length, `no EMF line for ${name} in the functions' output`).toBeGreaterThan(0);
        expect(lines.some((m) => read.includes(m.key)), `${name}: written as ${lines.map((m) => m.key).join(', ')}; read as ${read.filter((k) => k.includes(name)).join(', ') || 'nothing'}`).toBe(true);
      }
    });
  });
}

/** A metric as CloudWatch keys it: namespace, name and dimensions (sorted). */
const metricKey = (namespace: string, name: string, dimensions: Record<string, string>): string =>
  `${namespace}/${name}{${Object.entries(dimensions).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => `${k}=${v}`).join(',')}}`;

/** The metrics the template's alarms and dashboard widgets read. */
function metricsRead(resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>): string[] {
  const keys: string[] = [];
  for (const r of Object.values(resources)) {
    const p = r.Properties ?? {};
    if (r.Type === 'AWS::CloudWatch::Alarm' && typeof p.MetricName === 'string') {
      const dims = Object.fromEntries(((p.Dimensions as Array<{ Name: string; Value: unknown }> | undefined) ?? []).map((d) => [d.Name, String(d.Value)]));
      keys.push(metricKey(String(p.Namespace), p.MetricName, dims));
    }
    if (r.Type === 'AWS::CloudWatch::Dashboard') {
      // The body is a Fn::Join of strings and the region's Ref: joined with a stand-in region.
      const parts = (p.DashboardBody as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
      const body = JSON.parse(parts.map((x) => (typeof x === 'string' ? x : 'region')).join('')) as { widgets: Array<{ properties?: { metrics?: unknown[][] } }> };
      for (const widget of body.widgets) {
        for (const metric of widget.properties?.metrics ?? []) {
          const plain = metric.filter((x): x is string => typeof x === 'string');
          if (plain.length < 2 || plain[0] === '.' || plain[0]!.startsWith('AWS/')) continue;
          const dims: Record<string, string> = {};
          for (let i = 2; i + 1 < plain.length; i += 2) dims[plain[i]!] = plain[i + 1]!;
          keys.push(metricKey(plain[0]!, plain[1]!, dims));
        }
      }
    }
  }
  return keys;
}

/** The metrics of the EMF lines among the functions' output (one key per metric and dimension set). */
function emfMetrics(lines: string[]): Array<{ name: string; key: string }> {
  const found: Array<{ name: string; key: string }> = [];
  for (const line of lines) {
    if (!line.includes('"_aws"')) continue;
    let doc: { _aws?: { CloudWatchMetrics?: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }> } } & Record<string, unknown>;
    try {
      doc = JSON.parse(line);
    } catch {
      continue;
    }
    for (const directive of doc._aws?.CloudWatchMetrics ?? []) {
      for (const metric of directive.Metrics) {
        for (const set of directive.Dimensions) found.push({ name: metric.Name, key: metricKey(directive.Namespace, metric.Name, Object.fromEntries(set.map((d) => [d, String(doc[d])]))) });
      }
    }
  }
  return found;
}
