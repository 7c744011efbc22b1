// The broadcast flow of the shared rehearsal of flows.test.ts (issue 30 item 2): contacts and a
// static list made through the API, a broadcast to the list created as a draft and sent, the
// fanout queue's mapping running the fan-out function (the list's walk, then its chunk) and the
// send queue's mapping the send worker, until every member was sent. Registered by flows.test.ts.
import { describe, expect, it } from 'vitest';
import type { Rehearsal } from '../../rehearsal/rehearsal';
import { DEFAULT_SHARED_EMAIL_SENDER } from '../../shared/runtime/env-names';
import { waitFor } from '../support/wait';

type Answer = { status: number; headers: Headers; body: any };

export interface BroadcastFlowContext {
  rehearsal: () => Rehearsal;
  /** The flows' account's live key: contacts and lists are live-only. */
  liveKey: () => string;
  /** A test-mode key of the same account. */
  testKey: () => Promise<string>;
  call: (method: string, path: string, options?: { body?: unknown; key?: string }) => Promise<Answer>;
  pastRateLimit: (method: string, path: string, options: { body?: unknown; key?: string }) => Promise<Answer>;
  inside: () => string;
}

const MEMBERS = 5;

/** A static list of the account with `count` new contacts in it, made through the API. */
async function listWithMembers(ctx: BroadcastFlowContext, count: number): Promise<{ listId: string }> {
  const key = ctx.liveKey();
  const list = await ctx.pastRateLimit('POST', '/v1/lists', { key, body: { name: `Rehearsal ${Date.now()}`, type: 'static' } });
  expect(list.status, `${JSON.stringify(list.body)}\n${ctx.inside()}`).toBe(201);
  const emails = Array.from({ length: count }, (_, i) => `member-${i}-${Date.now()}@rehearsal.test`);
  for (const [i, email] of emails.entries()) {
    // Half made with their list, half added to it afterwards: both ways a static list gets members.
    if (i % 2 === 0) {
      const made = await ctx.pastRateLimit('POST', '/v1/contacts', { key, body: { email, first_name: `Member ${i}`, list_ids: [list.body.id] } });
      expect(made.status, `${JSON.stringify(made.body)}\n${ctx.inside()}`).toBe(201);
    } else {
      const made = await ctx.pastRateLimit('POST', '/v1/contacts', { key, body: { email, first_name: `Member ${i}` } });
      expect(made.status, `${JSON.stringify(made.body)}\n${ctx.inside()}`).toBe(201);
      const added = await ctx.pastRateLimit('POST', `/v1/lists/${list.body.id}/members`, { key, body: { contact_id: made.body.id } });
      expect(added.status, `${JSON.stringify(added.body)}\n${ctx.inside()}`).toBe(201);
    }
  }
  const view = await ctx.pastRateLimit('GET', `/v1/lists/${list.body.id}`, { key });
  expect(view.body.member_count).toBe(count);
  return { listId: list.body.id as string };
}

export function broadcastFlow(ctx: BroadcastFlowContext): void {
  describe('a broadcast to a list', () => {
    it('sends a broadcast to a static list (POST /v1/broadcasts, then …/send, test mode): the fanout queue\'s mapping runs the fan-out function, the send queue\'s the send worker, and the broadcast reaches sent with every member counted', async () => {
      const rehearsal = ctx.rehearsal();
      // Prepare: five contacts in a static list; a test-mode key, since a sandboxed account's live mail reaches only its own address.
      const { listId } = await listWithMembers(ctx, MEMBERS);
      const testKey = await ctx.testKey();
      const draft = await ctx.pastRateLimit('POST', '/v1/broadcasts', {
        key: testKey,
        body: { from_email: DEFAULT_SHARED_EMAIL_SENDER, name: 'Rehearsed broadcast', subject: 'To the list', body_text: 'Hello, members', audience_list_id: listId },
      });
      expect(draft.status, `${JSON.stringify(draft.body)}\n${ctx.inside()}`).toBe(201);
      expect(draft.body).toMatchObject({ status: 'draft', audience_list_id: listId });
      const id: string = draft.body.id;
      // Act
      const sending = await ctx.pastRateLimit('POST', `/v1/broadcasts/${id}/send`, { key: testKey });
      // Assert: sending at once; then sent, each member accepted and sent, none failed.
      expect(sending.status, `${JSON.stringify(sending.body)}\n${ctx.inside()}`).toBe(202);
      expect(sending.body.status).toBe('sending');
      const done = await waitFor(
        async () => {
          const view = await ctx.call('GET', `/v1/broadcasts/${id}`, { key: testKey });
          return view.status === 200 && view.body.broadcast.status !== 'sending' && view.body.stats.sent === MEMBERS && view.body;
        },
        { what: () => `the broadcast ${id} sent to its ${MEMBERS} members\n${ctx.inside()}`, timeoutMs: 60_000, intervalMs: 500 },
      );
      expect(done.broadcast).toMatchObject({ status: 'sent', total_recipients: MEMBERS, sent_count: MEMBERS, failed_count: 0, failure_reason: null });
      // stats.sent counts the `sent` events on the members' timelines: the send worker's, after SES took each.
      expect(done.stats).toMatchObject({ total: MEMBERS, sent: MEMBERS, failed: 0 });
      // The fan-out function took its jobs from the fanout queue, through its mapping, without a failure.
      const fanOut = rehearsal.functionNamed('broadcast-fan-out').spec;
      const jobs = rehearsal.deliveries.filter((d) => d.functionLogicalId === fanOut.logicalId && d.bodies.some((b) => b.includes(id)));
      expect(jobs.length, ctx.inside()).toBeGreaterThan(0);
      expect(jobs.flatMap((d) => d.failed)).toEqual([]);
      // Its AWS calls (the table, the send and fanout queues) passed the IAM check of its role.
      const calls = rehearsal.calls.filter((c) => c.roleLogicalId === fanOut.roleLogicalId);
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.filter((c) => c.denied)).toEqual([]);
      expect(new Set(calls.flatMap((c) => c.checks.map((k) => k.action)))).toContain('sqs:SendMessage');
    });
  });
}
