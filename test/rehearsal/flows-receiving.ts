// Flows of the shared rehearsal of flows.test.ts (issue 30 items 1–2, issue 32 item 6), kept apart
// so that file stays readable: SES receiving as the receipt rule does it, a consumer job dead-lettered
// through the template's RedrivePolicy and redriven by the staff, a signed Stripe webhook, and the
// EMF lines the dashboard and alarms read. Registered by flows.test.ts on its rehearsal.
import { DynamoDBClient, GetItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import type { Rehearsal } from '../../rehearsal/rehearsal';
import { REHEARSAL_REGION } from '../../rehearsal/template';
import { keys } from '../../shared/db/keys';
import { asSnsEnvelope } from '../../shared/inbound/messages';
import { receivedNotification } from '../../shared/runtime/local/smtp-listener';
import { waitFor } from '../support/wait';

export interface FlowContext {
  rehearsal: () => Rehearsal;
  liveKey: () => string;
  /** A live key of the given scope, made with the console session. */
  newKey: (scope: 'admin' | 'send') => Promise<string>;
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

interface WebhookJob {
  kind?: string;
  envelope?: { event_type?: string; data?: { id?: string } };
}

/** Reads the webhooks queue (no function consumes it in this rehearsal), taking what it reads off, until a job matches. */
async function webhookJob(rehearsal: Rehearsal, matches: (job: WebhookJob) => boolean): Promise<WebhookJob | undefined> {
  const sqs = new SQSClient({ region: REHEARSAL_REGION, endpoint: rehearsal.sqs.endpoint, credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' } });
  try {
    const queueUrl = rehearsal.functionNamed('receive-email').spec.environment.QUEUE_URL_WEBHOOKS!;
    for (;;) {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
      if (!Messages.length) return undefined;
      for (const m of Messages) await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle! }));
      const found = Messages.map((m) => JSON.parse(m.Body!) as WebhookJob).find(matches);
      if (found) return found;
    }
  } finally {
    sqs.destroy();
  }
}

export function receivingFlows(ctx: FlowContext): void {
  describe('SES receiving, as the receipt rule does it', () => {
    it('stores a message SES received for an inbound domain: raw in the bucket as SES, notified through the topic, listed by GET /v1/inbound, its email.received logged for the webhook, and forwarded by a route through SES', async () => {
      const rehearsal = ctx.rehearsal();
      const key = await ctx.newKey('admin');
      // Prepare: a domain of the account, verified, with inbound on; a route forwarding fwd-*; a webhook for email.received.
      const domain = await ctx.pastRateLimit('POST', '/v1/domains', { key, body: { domain: DOMAIN } });
      expect(domain.status, `${JSON.stringify(domain.body)}\n${ctx.inside()}`).toBe(201);
      await markVerified(rehearsal, DOMAIN);
      const enabled = await ctx.pastRateLimit('POST', `/v1/domains/${DOMAIN}/inbound`, { key, body: { enabled: true } });
      expect(enabled.status, `${JSON.stringify(enabled.body)}\n${ctx.inside()}`).toBe(200);
      const route = await ctx.pastRateLimit('POST', '/v1/inbound/routes', { key, body: { domain: DOMAIN, match_prefix: 'fwd', destination_type: 'email', forward_address: 'team@example.org' } });
      expect(route.status, `${JSON.stringify(route.body)}\n${ctx.inside()}`).toBe(201);
      // The functions may reach no private address (no WEBHOOK_ALLOW_PRIVATE in the template), so no
      // receiver on loopback: the webhook names a public address, and its worker is not rehearsed
      // here (its attempts would leave loopback): the job the inbound worker queued for it is asserted.
      const hook = await ctx.pastRateLimit('POST', '/v1/webhooks', { key, body: { endpoint_url: 'https://93.184.216.34/inbound', event_types: ['email.received'] } });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);
      const raw = [`From: Alice <alice@sender.rehearsal.test>`, `To: fwd-sales@${DOMAIN}`, 'Subject: Received in the rehearsal', `Message-ID: <${Date.now()}@sender.rehearsal.test>`, '', 'Hello, inbound.', ''].join('\r\n');
      // Act
      const received = await rehearsal.receiveMail({ from: 'alice@sender.rehearsal.test', to: [`fwd-sales@${DOMAIN}`], raw });
      // Assert: SES wrote under the rule's prefix, admitted by the bucket policy, and notified the topic.
      expect(received.refused).toEqual([]);
      expect(received.stored).toEqual([expect.objectContaining({ objectKey: `inbound/raw/${received.sesMessageId}` })]);
      const write = rehearsal.calls.find((c) => c.service === 's3' && c.operation === 'PutObject' && c.checks[0]!.resource.endsWith(received.sesMessageId));
      expect(write?.denied).toBeUndefined();
      const listed = await waitFor(
        async () => {
          const page = await ctx.call('GET', '/v1/inbound', { key });
          return page.status === 200 && (page.body.data ?? page.body.emails ?? page.body.inbound ?? []).find((e: { subject: string }) => e.subject === 'Received in the rehearsal');
        },
        { what: () => `the received mail listed by GET /v1/inbound\n${ctx.inside()}`, timeoutMs: 30_000, intervalMs: 300 },
      );
      expect(listed).toMatchObject({ recipient: `fwd-sales@${DOMAIN}`, from: 'alice@sender.rehearsal.test' });
      const queued = await waitFor(() => webhookJob(rehearsal, (job) => job.envelope?.event_type === 'email.received' && JSON.stringify(job).includes(listed.id)), {
        what: () => `the email.received job on the webhooks queue\n${ctx.inside()}`,
        intervalMs: 200,
      });
      expect(queued.envelope).toMatchObject({ event_type: 'email.received' });
      const forward = await waitFor(async () => (await ctx.mailTo('team@example.org')).find((m) => m.subject === 'Fwd: Received in the rehearsal'), {
        what: () => `the forward in SES\n${ctx.inside()}`,
        timeoutMs: 30_000,
        intervalMs: 300,
      });
      expect(forward.body.text).toContain('Hello, inbound.');
    });
  });

  describe('dead letters, through the queues\' RedrivePolicy', () => {
    it('moves a job the inbound worker keeps failing to its DLQ after maxReceiveCount; the staff list it with its reason (GET /v1/admin/dead-letters) and put it back (POST …/inbound/redrive)', async () => {
      const rehearsal = ctx.rehearsal();
      const staff = rehearsal.secrets.find((s) => s.name.includes('StaffToken'))!.value;
      const queueUrl = rehearsal.functionNamed('admin').spec.environment.QUEUE_URL_INBOUND!;
      // Prepare: SES's notification of a message whose raw object is not in the bucket (deleted, say): the worker fails it every time.
      const objectKey = `inbound/raw/missing-${Date.now()}`;
      const notification = receivedNotification({ timestamp: new Date().toISOString(), source: 'a@sender.rehearsal.test', sesMessageId: `missing${Date.now()}`, recipients: [`x@${DOMAIN}`], verdicts: { spf: 'GRAY', dkim: 'GRAY', dmarc: 'GRAY' }, bucketName: 'b', objectKey });
      const sqs = new SQSClient({ region: REHEARSAL_REGION, endpoint: rehearsal.sqs.endpoint, credentials: { accessKeyId: 'AKIATEST', secretAccessKey: 'test' } });
      try {
        await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(asSnsEnvelope(notification, `sns-${Date.now()}`)) }));
      } finally {
        sqs.destroy();
      }
      // Act: each failed receive waits out the visibility timeout (ended early here), until SQS moves it to the DLQ.
      const dead = await waitFor(
        async () => {
          await rehearsal.elapseVisibility();
          const listing = await ctx.call('GET', '/v1/admin/dead-letters', { key: staff });
          expect(listing.status, JSON.stringify(listing.body)).toBe(200);
          const inbound = (listing.body.queues as Array<{ queue: string; items: Array<{ id: string; body_preview: string; reason: string | null; receive_count: number | null }> }>).find((q) => q.queue === 'inbound');
          return inbound?.items.find((item) => item.body_preview.includes(notification.mail.messageId));
        },
        { what: () => `the failing inbound job in the DLQ\n${ctx.inside()}`, timeoutMs: 60_000, intervalMs: 300 },
      );
      // Assert: the reason the worker noted on its last receive, after the template's maxReceiveCount.
      expect(dead.reason).toContain(`the raw message ${objectKey} is not in the object store`);
      const redrive = Object.entries(rehearsal.assembly.template.Resources).find(([id, r]) => r.Type === 'AWS::SQS::Queue' && /InboundQueue/.test(id) && r.Properties?.RedrivePolicy)![1].Properties!.RedrivePolicy as { maxReceiveCount: number };
      expect(dead.receive_count).toBe(redrive.maxReceiveCount);
      const worker = rehearsal.functionNamed('receive-email').spec.logicalId;
      const tries = () => rehearsal.deliveries.filter((d) => d.functionLogicalId === worker && d.bodies.some((b) => b.includes(notification.mail.messageId))).length;
      const before = tries();
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
