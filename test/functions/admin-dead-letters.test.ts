// The staff dead-letter routes (issue 32) over the test container's in-memory DLQs (the SQS
// adapter and the local journal are tested on the real emulator in
// test/adapters/journaled-queue.test.ts): a consumer notes why a message goes to the DLQ on its
// last receive, the listing shows it with that reason, a redrive puts it back and is audited.
import { beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { TEST_SECRETS } from '../support/container';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { deliverWebhook } from '../support/consumers';

const bed = useTestbed();
const asStaff = { key: TEST_SECRETS['staff-token'], sourceIp: '192.0.2.44' };

beforeEach(() => {
  bed.c.dlq.length = 0;
});

/** Runs the webhook worker on one record at this receive count; answers whether it failed. */
async function receive(body: string, receiveCount: number): Promise<boolean> {
  const record = sqsRecord(body, receiveCount);
  const out = await deliverWebhook(sqsEvent([record]));
  // What SQS does after the last failed receive: the redrive policy moves it to the DLQ.
  if (out.batchItemFailures.length > 0 && receiveCount >= 5) bed.c.dlq.push({ queue: 'webhooks', id: record.messageId, body });
  return out.batchItemFailures.length > 0;
}

describe('GET /v1/admin/dead-letters', () => {
  it('lists each DLQ with its messages and the reason the consumer noted on the last receive', async () => {
    const poison = '{"kind":"attempt","account_id":"acct_x"}';
    for (let n = 1; n <= 5; n++) expect(await receive(poison, n)).toBe(true);
    const failedAt = bed.c.clock.now().toISOString();

    const res = await bed.request({ method: 'GET', path: '/v1/admin/dead-letters', ...asStaff });

    expect(res.status).toBe(200);
    expect(res.body.queues.map((q: { queue: string }) => q.queue)).toEqual(['send', 'fanout', 'webhooks', 'ses-events', 'imports', 'inbound']);
    const webhooks = res.body.queues.find((q: { queue: string }) => q.queue === 'webhooks');
    expect(webhooks).toEqual({
      queue: 'webhooks',
      depth: 1,
      items: [
        {
          id: expect.any(String),
          queue: 'webhooks',
          body_preview: poison,
          body_truncated: false,
          sent_at: null, // the in-memory DLQ keeps no send time
          first_failed_at: expect.any(String),
          last_failed_at: failedAt,
          receive_count: 5,
          reason: expect.stringMatching(/^poison message: /),
        },
      ],
    });
  });

  it('notes nothing before the last receive, and a listed message without a note has a null reason', async () => {
    const body = '{"not":"a job"}';
    expect(await receive(body, 4)).toBe(true);
    bed.c.dlq.push({ queue: 'send', id: 'm-unnoted', body });

    const res = await bed.request({ method: 'GET', path: '/v1/admin/dead-letters', ...asStaff });

    const send = res.body.queues.find((q: { queue: string }) => q.queue === 'send');
    expect(send.items).toEqual([expect.objectContaining({ id: 'm-unnoted', reason: null, first_failed_at: null, receive_count: null })]);
  });

  it('is staff only', async () => {
    const res = await bed.request({ method: 'GET', path: '/v1/admin/dead-letters', key: bed.account.admin_key });
    expect(res.status).toBe(401);
  });
});

describe('POST /v1/admin/dead-letters/{queue}/redrive', () => {
  it('puts the chosen messages back on their queue as sent, and writes the redrive to the audit log', async () => {
    bed.c.dlq.push({ queue: 'webhooks', id: 'm-a', body: '{"a":1}' }, { queue: 'webhooks', id: 'm-b', body: '{"b":1}' });
    bed.c.sent.length = 0;

    const res = await bed.request({ method: 'POST', path: '/v1/admin/dead-letters/webhooks/redrive', body: { ids: ['m-b', 'm-gone'] }, ...asStaff });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ queue: 'webhooks', redriven: ['m-b'] });
    expect(bed.c.sent).toEqual([{ queue: 'webhooks', body: '{"b":1}' }]);
    expect(bed.c.dlq.map((m) => m.id)).toEqual(['m-a']);
    const audit = await bed.request({ method: 'GET', path: '/v1/admin/audit', ...asStaff });
    expect(audit.body.entries[0]).toMatchObject({ action: 'dead_letters.redrive', target: { type: 'queue', id: 'webhooks' }, detail: { ids: 'm-b,m-gone' }, outcome: 'succeeded' });
  });

  it('redrives the whole DLQ when no ids are given', async () => {
    bed.c.dlq.push({ queue: 'imports', id: 'm-1', body: '1' }, { queue: 'imports', id: 'm-2', body: '2' }, { queue: 'send', id: 'm-3', body: '3' });

    const res = await bed.request({ method: 'POST', path: '/v1/admin/dead-letters/imports/redrive', ...asStaff });

    expect(res.body).toEqual({ queue: 'imports', redriven: ['m-1', 'm-2'] });
    expect(bed.c.dlq.map((m) => m.id)).toEqual(['m-3']);
  });

  it('answers 404 for an unknown queue and 400 for a malformed body, redriving nothing', async () => {
    bed.c.dlq.push({ queue: 'send', id: 'm-1', body: '1' });
    expect((await bed.request({ method: 'POST', path: '/v1/admin/dead-letters/nope/redrive', ...asStaff })).status).toBe(404);
    const bad = await bed.request({ method: 'POST', path: '/v1/admin/dead-letters/send/redrive', body: { ids: 'm-1' }, ...asStaff });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect(bed.c.dlq).toHaveLength(1);
    expect(await bed.c.store.get(keys.deadLetterNote('send', 'x'))).toBeUndefined();
  });
});
