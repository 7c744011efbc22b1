// forwardInbound: a received message reaches the route that matches it. Webhook routes: a signed
// POST of the email.received envelope (message_id "") to a real local receiver, through the
// webhooks queue's consumer, retried on the webhook schedule. Email routes: a new outbound message
// through acceptSends, from the address the mail came to, held to suppressions.
import { describe, expect, it } from 'vitest';
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import { hmacSha256 } from '../../shared/crypto/crypto';
import { keys } from '../../shared/db/keys';
import { FORWARDED_FILENAME, forwardInbound, forwardedText, type ForwardableEmail } from '../../shared/inbound-mail/routes/forward';
import { loadContent } from '../../shared/sending/messages/content';
import { MAX_SENT_MESSAGE_BYTES } from '../../shared/sending/messages/extras';
import { readTimeline } from '../../shared/sending/messages/timeline';
import { deliveryIdFor, MAX_ATTEMPTS } from '../../shared/webhooks/deliver';
import { MessageRepository } from '../../shared/sending/messages/repository';
import { suppress } from '../../shared/sending/suppressions/service';
import type { DeliveryItem } from '../../shared/webhooks/repository';
import { TEST_SECRETS } from '../support/container';
import { type Receiver } from '../support/receivers';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { useInboundReceiver } from '../support/inbound-receiver';
import { sendWorker, deliverWebhook, nextWebhookAttempt } from '../support/consumers';

const bed = useTestbed();
let receiver: Receiver;
let n = 0;
useInboundReceiver(bed, () => bed.request({ method: 'POST', path: '/v1/domains/acme.test/inbound', key: bed.account.admin_key, body: { enabled: true } }), (started) => (receiver = started));

async function makeRoute(body: Record<string, unknown>): Promise<{ id: string; signing_secret: string }> {
  const res = await bed.request({ method: 'POST', path: '/v1/inbound/routes', key: bed.account.admin_key, body: { domain: 'acme.test', ...body } });
  expect(res.status).toBe(201);
  return res.body;
}

function inbound(recipient: string, extra: Partial<ForwardableEmail> = {}): ForwardableEmail {
  return {
    id: `inb_01JTESTINBOUND${String(++n).padStart(12, '0')}`,
    account_id: bed.account.account_id,
    domain: 'acme.test',
    recipient,
    from: 'Ada <ada@example.org>',
    to: [recipient],
    subject: 'Question about my order',
    text: 'Where is it?',
    spam_verdict: 'PASS',
    virus_verdict: 'GRAY',
    attachments: [{ filename: 'invoice.pdf', content_type: 'application/pdf', size: 1234 }],
    received_at: '2026-03-01T11:59:00.000Z',
    raw_key: 'inbound/raw/x.eml',
    ...extra,
  };
}

/** Runs the webhook jobs queued so far through the real consumer. */
const drainWebhooks = () => drain(bed.c.sent, 'webhooks', deliverWebhook);

const delivery = (routeId: string, deliveryId: string) => bed.c.store.get<DeliveryItem>(keys.webhookDelivery(routeId, deliveryId));

describe('webhook routes', () => {
  it('POST the email.received envelope with message_id "", signed with the route secret, to the matching route', async () => {
    await makeRoute({ match_prefix: '', destination_type: 'webhook', forward_url: `${receiver.url}/catch-all` });
    const route = await makeRoute({ match_prefix: 'support', destination_type: 'webhook', forward_url: `${receiver.url}/support` });
    const email = inbound('Support-EU@acme.test');
    const out = await forwardInbound(bed.c, email);
    expect(out).toMatchObject({ kind: 'webhook', route_id: route.id, queued: true });
    await drainWebhooks();

    expect(receiver.requests).toHaveLength(1);
    const [req] = receiver.requests;
    expect(req!.path).toBe('/support');
    const timestamp = req!.headers['service-timestamp'] as string;
    const expected = hmacSha256(route.signing_secret, `${timestamp}.${req!.body.toString('utf8')}`).toString('hex');
    expect(req!.headers['service-signature']).toBe(expected);
    expect(req!.headers['service-event-type']).toBe('email.received');
    expect(req!.headers['content-type']).toBe('application/json');
    const body = JSON.parse(req!.body.toString('utf8'));
    expect(req!.headers['service-event-id']).toBe(body.event_id);
    expect(body).toEqual({
      event_id: `evt_${email.id}`,
      event_type: 'email.received',
      message_id: '',
      account_id: bed.account.account_id,
      payload: {
        id: email.id,
        domain: 'acme.test',
        recipient: email.recipient,
        from: email.from,
        to: email.to,
        subject: email.subject,
        text: email.text,
        spam_verdict: 'PASS',
        virus_verdict: 'GRAY',
        attachments: email.attachments,
        received_at: email.received_at,
      },
      occurred_at: email.received_at,
      created_at: email.received_at,
    });
    expect(await delivery(route.id, (out as { delivery_id: string }).delivery_id)).toMatchObject({ status: 'succeeded', attempt_count: 1, response_status: 200 });

    // The same message handed over again is not delivered twice.
    expect(await forwardInbound(bed.c, email)).toMatchObject({ kind: 'webhook', queued: false });
    expect(bed.c.sent.filter((s) => s.queue === 'webhooks')).toEqual([]);
  });

  it('retries a failed forward on the webhook schedule, and a deleted route stops its retries', async () => {
    const route = await makeRoute({ match_prefix: 'help', destination_type: 'webhook', forward_url: `${receiver.url}/help` });
    receiver.reply({ status: 503 });
    const out = await forwardInbound(bed.c, inbound('help@acme.test'));
    const first = bed.c.sent.splice(bed.c.sent.findIndex((s) => s.queue === 'webhooks'), 1)[0]!;
    await deliverWebhook(sqsEvent([sqsRecord(first.body)]));
    expect(receiver.requests).toHaveLength(1);
    const stored = await delivery(route.id, (out as { delivery_id: string }).delivery_id);
    expect(stored).toMatchObject({ status: 'failed', attempt_count: 1, response_status: 503 });
    const retry = bed.c.sent.find((s) => s.queue === 'webhooks')!;
    expect(retry.body).toMatchObject({ kind: 'route_attempt', route_id: route.id, attempt: 2 });
    expect(retry.delaySeconds).toBeGreaterThanOrEqual(22);
    expect(retry.delaySeconds).toBeLessThanOrEqual(38);

    expect((await bed.request({ method: 'DELETE', path: `/v1/inbound/routes/${route.id}`, key: bed.account.admin_key })).status).toBe(204);
    await drainWebhooks();
    expect(receiver.requests).toHaveLength(1);
  });

  it('refuses to POST to a private address at attempt time where the guard forbids it', async () => {
    const route = await makeRoute({ match_prefix: 'ops', destination_type: 'webhook', forward_url: `${receiver.url}/ops` });
    bed.c.http = new GuardedHttp({ allowPrivate: false });
    const out = await forwardInbound(bed.c, inbound('ops@acme.test'));
    await drainWebhooks();
    expect(receiver.requests).toHaveLength(0);
    expect(await delivery(route.id, (out as { delivery_id: string }).delivery_id)).toMatchObject({ status: 'failed', response_status: 0 });
  });

  it('leaves a message no active route matches unrouted', async () => {
    const route = await makeRoute({ match_prefix: 'only', destination_type: 'webhook', forward_url: `${receiver.url}/only` });
    expect(await forwardInbound(bed.c, inbound('other@acme.test'))).toEqual({ kind: 'unrouted' });
    await bed.request({ method: 'PUT', path: `/v1/inbound/routes/${route.id}`, key: bed.account.admin_key, body: { active: false } });
    expect(await forwardInbound(bed.c, inbound('only@acme.test'))).toEqual({ kind: 'unrouted' });
    expect(bed.c.sent).toEqual([]);
  });
});

describe('webhook route retries', () => {
  /** Runs the next due attempt of the route's delivery (see nextWebhookAttempt). */
  const nextAttempt = (routeId: string, deliveryId: string) => nextWebhookAttempt(bed.c, async () => (await delivery(routeId, deliveryId))?.next_retry_at);

  it('gives up after 12 attempts, through the scheduler past 15 minutes, and keeps the route active', async () => {
    const route = await makeRoute({ match_prefix: 'flaky', destination_type: 'webhook', forward_url: `${receiver.url}/flaky` });
    receiver.reply({ status: 500 });
    const out = (await forwardInbound(bed.c, inbound('flaky@acme.test'))) as { delivery_id: string };
    let attempts = 0;
    while (attempts < 40 && (await nextAttempt(route.id, out.delivery_id))) attempts++;
    // The scheduler is the file's: retries other tests left due may fire too, to their own paths.
    expect(receiver.requests.filter((r) => r.path === '/flaky')).toHaveLength(MAX_ATTEMPTS);
    expect(await delivery(route.id, out.delivery_id)).toMatchObject({ status: 'exhausted', attempt_count: MAX_ATTEMPTS, response_status: 500 });
    const stored = await bed.request({ method: 'GET', path: `/v1/inbound/routes/${route.id}`, key: bed.account.admin_key });
    expect(stored.body.active).toBe(true);
  });

  it('holds a paused route\'s attempt without spending it, and delivers once it is active again', async () => {
    const route = await makeRoute({ match_prefix: 'later', destination_type: 'webhook', forward_url: `${receiver.url}/later` });
    const out = (await forwardInbound(bed.c, inbound('later@acme.test'))) as { delivery_id: string };
    await bed.request({ method: 'PUT', path: `/v1/inbound/routes/${route.id}`, key: bed.account.admin_key, body: { active: false } });
    await nextAttempt(route.id, out.delivery_id);
    expect(receiver.requests.filter((r) => r.path === '/later')).toHaveLength(0);
    expect(await delivery(route.id, out.delivery_id)).toMatchObject({ status: 'pending', attempt_count: 0 });
    expect(bed.c.sent.find((s) => s.queue === 'webhooks')?.delaySeconds).toBe(900);
    await bed.request({ method: 'PUT', path: `/v1/inbound/routes/${route.id}`, key: bed.account.admin_key, body: { active: true } });
    await nextAttempt(route.id, out.delivery_id);
    expect(receiver.requests.filter((r) => r.path === '/later')).toHaveLength(1);
    expect(await delivery(route.id, out.delivery_id)).toMatchObject({ status: 'succeeded', attempt_count: 1 });
  });
});

describe('email routes', () => {
  it('sends a new message through the send pipeline from the recipient address, once per message', async () => {
    const route = await makeRoute({ match_prefix: '', destination_type: 'email', forward_address: 'team@example.com' });
    const email = inbound('anyone@acme.test');
    const out = await forwardInbound(bed.c, email);
    expect(out).toMatchObject({ kind: 'email', route_id: route.id, outcome: { kind: 'accepted' } });
    const messageId = (out as { outcome: { message: { id: string } } }).outcome.message.id;
    const message = await new MessageRepository(bed.c.store).get(messageId);
    expect(message).toMatchObject({ recipient: 'team@example.com', channel: 'email', status: 'queued' });
    expect(bed.c.sent.filter((s) => s.queue === 'send').map((s) => (s.body as { message_id: string }).message_id)).toEqual([messageId]);

    const again = await forwardInbound(bed.c, email);
    expect((again as { outcome: { message: { id: string } } }).outcome.message.id).toBe(messageId);
    // The repeat hands a job on again for the same message (the dispatch lease sends it once).
    expect(new Set(bed.c.sent.filter((s) => s.queue === 'send').map((s) => (s.body as { message_id: string }).message_id))).toEqual(new Set([messageId]));
  });

  it('quotes the original in the text and lists attachments it does not carry', () => {
    const text = forwardedText(inbound('a@acme.test'));
    expect(text).toContain('From: Ada <ada@example.org>');
    expect(text).toContain('Subject: Question about my order');
    expect(text).toContain('Attachments (not forwarded): invoice.pdf');
    expect(text.endsWith('Where is it?')).toBe(true);
  });

  it('attaches the original as message/rfc822 with X-Forwarded headers, and the worker mails its exact bytes', async () => {
    await makeRoute({ match_prefix: '', destination_type: 'email', forward_address: 'team@example.com' });
    const raw = Buffer.from('From: Ada <ada@example.org>\r\nSubject: Question about my order\r\n\r\nWhere is it? \u00e9\n', 'latin1');
    const email = inbound('sales@acme.test', { raw_key: `inbound/raw/fwd-${n}` });
    await bed.c.objects.put(email.raw_key!, raw, 'message/rfc822');

    const out = await forwardInbound(bed.c, email);

    const messageId = (out as { outcome: { message: { id: string } } }).outcome.message.id;
    const messages = new MessageRepository(bed.c.store);
    const content = await loadContent({ objects: bed.c.objects, messages }, (await messages.get(messageId))!);
    expect(content.headers).toEqual([
      { name: 'X-Forwarded-For', value: 'Ada <ada@example.org>' },
      { name: 'X-Forwarded-To', value: 'sales@acme.test' },
      { name: 'Auto-Submitted', value: 'auto-generated' },
    ]);
    expect(content.attachments).toEqual([{ filename: FORWARDED_FILENAME, content_type: 'message/rfc822', object_key: email.raw_key, size: raw.length }]);
    expect(content.body_text).toContain('Attachments (in the attached original): invoice.pdf\nOriginal message: attached as forwarded-message.eml\n');

    const job = bed.c.sent.find((s) => s.queue === 'send');
    expect((await sendWorker(sqsEvent([sqsRecord(job?.body)]))).batchItemFailures).toEqual([]);
    expect(bed.c.mailed).toHaveLength(1);
    expect(bed.c.mailed[0]).toMatchObject({ from: 'sales@acme.test', to: 'team@example.com', subject: 'Fwd: Question about my order', headers: content.headers });
    expect(bed.c.mailed[0]?.attachments).toEqual([{ filename: FORWARDED_FILENAME, contentType: 'message/rfc822', content: raw }]);

    // Handed over again: the same message, not a second one.
    expect(await forwardInbound(bed.c, email)).toMatchObject({ outcome: { kind: 'accepted', message: { id: messageId } } });
  });

  it('says in the text where an original too large for SES once encoded is kept, and attaches nothing', async () => {
    await makeRoute({ match_prefix: '', destination_type: 'email', forward_address: 'team@example.com' });
    const size = Math.ceil((MAX_SENT_MESSAGE_BYTES * 3) / 4);
    const email = inbound('big@acme.test', { raw_key: 'inbound/raw/big', raw_size: size });

    const out = await forwardInbound(bed.c, email);

    expect(out).toMatchObject({ kind: 'email', outcome: { kind: 'accepted' } });
    const messageId = (out as { outcome: { message: { id: string } } }).outcome.message.id;
    const messages = new MessageRepository(bed.c.store);
    const content = await loadContent({ objects: bed.c.objects, messages }, (await messages.get(messageId))!);
    expect(content.attachments).toBeUndefined();
    expect(content.headers?.map((h) => h.name)).toEqual(['X-Forwarded-For', 'X-Forwarded-To', 'Auto-Submitted']);
    expect(content.body_text).toContain(`Attachments (not forwarded): invoice.pdf\nOriginal message: ${size} bytes, too large to attach; GET /v1/inbound/${email.id}/raw serves it\n`);
  });

  it('forwards the text alone when the raw message was not kept, and leaves out a header SES could not carry', async () => {
    await makeRoute({ match_prefix: '', destination_type: 'email', forward_address: 'team@example.com' });
    const email = inbound('lost@acme.test', { raw_key: 'inbound/raw/never-written', from: 'jos\u00e9@example.org' });

    const out = await forwardInbound(bed.c, email);

    const messageId = (out as { outcome: { message: { id: string } } }).outcome.message.id;
    const job = bed.c.sent.find((s) => s.queue === 'send');
    await sendWorker(sqsEvent([sqsRecord(job?.body)]));
    expect(bed.c.mailed).toHaveLength(1);
    expect(bed.c.mailed[0]?.attachments).toBeUndefined();
    expect(bed.c.mailed[0]?.headers).toEqual([
      { name: 'X-Forwarded-To', value: 'lost@acme.test' },
      { name: 'Auto-Submitted', value: 'auto-generated' },
    ]);
    expect(bed.c.mailed[0]?.text).toContain('From: jos\u00e9@example.org\n');
    expect(bed.c.mailed[0]?.text).not.toContain('Original message:');
    expect((await readTimeline(bed.c.store, messageId)).message?.status).toBe('sent');
  });

  it('is held to suppressions like any send', async () => {
    await makeRoute({ match_prefix: '', destination_type: 'email', forward_address: 'gone@example.com' });
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'gone@example.com', reason: 'test' });
    const out = await forwardInbound(bed.c, inbound('x@acme.test'));
    expect(out).toMatchObject({ kind: 'email', outcome: { kind: 'suppressed' } });
    expect(bed.c.sent.filter((s) => s.queue === 'send')).toEqual([]);
  });

  it('is held to the account\'s hard spend cap like any send', async () => {
    await makeRoute({ match_prefix: '', destination_type: 'email', forward_address: 'team@example.com' });
    expect((await bed.request({ method: 'PUT', path: '/v1/spend-caps', key: bed.account.admin_key, body: { hard_limit_micros: 0 } })).status).toBe(200);
    const out = await forwardInbound(bed.c, inbound('y@acme.test'));
    expect(out).toMatchObject({ kind: 'email', outcome: { kind: 'rejected', error: { code: 'spend_cap_exceeded' } } });
    expect(bed.c.sent.filter((s) => s.queue === 'send')).toEqual([]);
  });
});

describe('a suspended account', () => {
  let ip = 0;
  const suspend = async () => {
    const path = `/v1/admin/accounts/${bed.account.account_id}/suspend`;
    expect((await bed.request({ method: 'POST', path, key: TEST_SECRETS['staff-token'], sourceIp: `198.51.100.${++ip}` })).status).toBe(200);
  };

  it('gets no email forward: the forward’s message fails at the send worker with the reason, and nothing is mailed', async () => {
    await makeRoute({ match_prefix: '', destination_type: 'email', forward_address: 'team@example.com' });
    await suspend();

    const out = await forwardInbound(bed.c, inbound('sales@acme.test'));
    const job = bed.c.sent.find((s) => s.queue === 'send');
    expect((await sendWorker(sqsEvent([sqsRecord(job?.body)]))).batchItemFailures).toEqual([]);

    expect(bed.c.mailed).toEqual([]);
    const { message, events } = await readTimeline(bed.c.store, (out as { outcome: { message: { id: string } } }).outcome.message.id);
    expect(message).toMatchObject({ status: 'failed', recipient: 'team@example.com' });
    expect(events.map((e) => e.payload)).toEqual([{ error: 'not sent: the account is suspended', reason: 'account_suspended' }]);
  });

  it('gets no webhook forward: the delivery is logged exhausted with the reason and never attempted', async () => {
    const route = await makeRoute({ match_prefix: '', destination_type: 'webhook', forward_url: `${receiver.url}/hook` });
    await suspend();
    const email = inbound('sales@acme.test');

    const out = await forwardInbound(bed.c, email);
    await drainWebhooks();

    expect(out).toEqual({ kind: 'held', route_id: route.id, reason: 'account_suspended' });
    expect(receiver.requests).toEqual([]);
    expect(await delivery(route.id, deliveryIdFor(`evt_${email.id}`))).toMatchObject({ status: 'exhausted', attempt_count: 0, last_error: 'not forwarded: the account is suspended' });
  });

  it('stops a webhook forward already queued for a retry: it ends exhausted with the reason, unsent', async () => {
    const route = await makeRoute({ match_prefix: 'retry', destination_type: 'webhook', forward_url: `${receiver.url}/retry` });
    receiver.reply({ status: 500 });
    const out = (await forwardInbound(bed.c, inbound('retry@acme.test'))) as { delivery_id: string };
    // Only the first attempt runs: it fails and queues its retry.
    const first = bed.c.sent.findIndex((s) => s.queue === 'webhooks');
    const [job] = bed.c.sent.splice(first, 1);
    expect((await deliverWebhook(sqsEvent([sqsRecord(job?.body)]))).batchItemFailures).toEqual([]);
    receiver.reply({ status: 200 });
    expect(await delivery(route.id, out.delivery_id)).toMatchObject({ status: 'failed', attempt_count: 1 });
    await suspend();

    await drainWebhooks();
    while ((await bed.c.scheduler.fireDue(new Date(bed.c.clock.now().getTime() + 3_600_000), bed.c.queue)) > 0) await drainWebhooks();

    expect(receiver.requests.filter((r) => r.path === '/retry')).toHaveLength(1);
    expect(await delivery(route.id, out.delivery_id)).toMatchObject({ status: 'exhausted', attempt_count: 1, last_error: 'not forwarded: the account is suspended' });
  });
});
