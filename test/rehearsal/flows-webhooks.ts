// The webhook flow of the shared rehearsal of flows.test.ts (issue 30 item 2, its first flow: send →
// sent → delivered with a signed webhook). The webhook worker runs from its bundle with the
// template's environment, guard on (no WEBHOOK_ALLOW_PRIVATE), fed by the webhooks queue's event
// source mapping; the subscription names a public address, which the rehearsal's internet
// (rehearsal/internet.mjs) carries to the HTTPS receiver in this process. Registered by flows.test.ts.
import { describe, expect, it } from 'vitest';
import type { Rehearsal } from '../../rehearsal/rehearsal';
import type { RecordedRequest } from '../support/receivers';
import { waitFor } from '../support/wait';
import { hasOpenssl, signedEnvelope, type PublicReceiver } from '../support/webhook-receiver';

type Answer = { status: number; headers: Headers; body: any };

export interface WebhookFlowContext {
  rehearsal: () => Rehearsal;
  /** The flows' account's live key, and the address a sandboxed account's live mail may reach (its own). */
  liveKey: () => string;
  ownAddress: () => string;
  /** The receiver the rehearsal's internet plays at a public address. */
  played: () => PublicReceiver;
  call: (method: string, path: string, options?: { body?: unknown; key?: string }) => Promise<Answer>;
  pastRateLimit: (method: string, path: string, options: { body?: unknown; key?: string }) => Promise<Answer>;
  inside: () => string;
  /** GET /v1/messages/{id} as the account's console session (the route takes read keys; the flows' key sends). */
  message: (id: string) => Promise<Answer>;
}

/** The requests the receiver got on `path` that carry `messageId`. */
const requestsFor = (played: PublicReceiver, path: string, messageId: string): RecordedRequest[] =>
  played.receiver.requests.filter((r) => r.path === path && r.body.toString('utf8').includes(messageId));

export function webhookFlow(ctx: WebhookFlowContext): void {
  describe('a signed webhook, delivered by the webhook worker', () => {
    it.skipIf(!hasOpenssl)('sends (POST /v1/send) to a subscription of sent and delivered: the worker POSTs both events, signed with the subscription\'s secret, each once, and the timeline holds sent then delivered (needs openssl)', async () => {
      const rehearsal = ctx.rehearsal();
      const played = ctx.played();
      const key = ctx.liveKey();
      // Prepare: a subscription of the two events, at a public address (the guard refuses any other).
      const path = `/sent-delivered-${Date.now()}`;
      const hook = await ctx.pastRateLimit('POST', '/v1/webhooks', { key, body: { endpoint_url: `${played.url}${path}`, event_types: ['sent', 'delivered'] } });
      expect(hook.status, `${JSON.stringify(hook.body)}\n${ctx.inside()}`).toBe(201);
      try {
        const secret: string = hook.body.signing_secret;
        // Act
        const sent = await ctx.pastRateLimit('POST', '/v1/send', {
          key,
          body: { channel: 'email', idempotency_key: `rehearsal-webhook-${Date.now()}`, destination: { email: ctx.ownAddress() }, payload: { subject: 'Rehearsed with a webhook', body_text: 'Watched by a subscriber' } },
        });
        expect(sent.status, `${JSON.stringify(sent.body)}\n${ctx.inside()}`).toBe(201);
        const messageId: string = sent.body.id;
        // Assert: both events at the receiver, through the guard, over TLS to the public address.
        const arrived = await waitFor(() => requestsFor(played, path, messageId).length >= 2 && requestsFor(played, path, messageId), {
          what: () => `the sent and delivered webhooks of ${messageId} (got ${requestsFor(played, path, messageId).length})\n${ctx.inside()}`,
          timeoutMs: 60_000,
          intervalMs: 200,
        });
        const events = await Promise.all(arrived.map((r) => signedEnvelope(r, secret)));
        expect(events.map((e) => e.verified), 'Service-Signature verifies with the signing secret').toEqual([true, true]);
        expect(arrived.map((r) => [r.method, r.headers['service-event-type'], r.headers['service-event-id']])).toEqual(events.map((e) => ['POST', e.envelope.event_type, e.envelope.event_id]));
        // In lifecycle order: the spec does not promise arrival order (its retries section, 6), so
        // the order asserted is the events' own, occurred_at, which the timeline follows.
        const byOccurrence = [...events].sort((a, b) => a.envelope.occurred_at.localeCompare(b.envelope.occurred_at));
        expect(byOccurrence.map((e) => e.envelope.event_type)).toEqual(['sent', 'delivered']);
        expect(events.every((e) => e.envelope.message_id === messageId)).toBe(true);
        const message = await ctx.message(messageId);
        expect(message.status, JSON.stringify(message.body)).toBe(200);
        expect(message.body.status).toBe('delivered');
        expect((message.body.events as Array<{ id: string; type: string }>).map((e) => [e.type, e.id])).toEqual(byOccurrence.map((e) => [e.envelope.event_type, e.envelope.event_id]));
        // Once each: the delivery log holds one delivery per event, succeeded at its first attempt
        // (the worker records an attempt after the receiver answered it: read until both are).
        type Logged = { event_id: string; status: string; attempt_count: number; response_status: number };
        const logged = async (): Promise<Logged[]> => {
          const log = await ctx.pastRateLimit('GET', `/v1/webhooks/${hook.body.id}/deliveries`, { key });
          expect(log.status, JSON.stringify(log.body)).toBe(200);
          return (log.body.deliveries as Logged[]).filter((d) => events.some((e) => e.envelope.event_id === d.event_id));
        };
        const mine = await waitFor(async () => {
          const found = await logged();
          return found.length === 2 && found.every((d) => d.status !== 'pending') && found;
        }, { what: () => `both deliveries recorded in the log\n${ctx.inside()}`, intervalMs: 300 });
        expect(mine.map((d) => [d.status, d.attempt_count, d.response_status])).toEqual([['succeeded', 1, 200], ['succeeded', 1, 200]]);
        expect(requestsFor(played, path, messageId)).toHaveLength(2);
        // The worker's AWS calls (the table, the data key, the queue) passed its role's IAM check.
        const worker = rehearsal.functionNamed('webhook-worker').spec;
        const calls = rehearsal.calls.filter((c) => c.roleLogicalId === worker.roleLogicalId);
        expect(new Set(calls.flatMap((c) => c.checks.map((k) => k.action)))).toContain('secretsmanager:GetSecretValue');
        expect(calls.filter((c) => c.denied)).toEqual([]);
      } finally {
        // Done, passed or not: the later flows' sends of this account raise no deliveries.
        const removed = await ctx.pastRateLimit('DELETE', `/v1/webhooks/${hook.body.id}`, { key });
        expect(removed.status, JSON.stringify(removed.body)).toBe(200);
      }
    });
  });
}
