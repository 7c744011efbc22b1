// The queue journal and the mailer across the two threads of `npm start` (functions-thread.ts).
//
// The journal (DATA_DIR/queue-journal.jsonl) keeps one writer, the API thread. The functions
// thread's queue port asks it to journal each send before sending the message itself with its own
// SQS client, as JournaledQueue does in one thread: journaled first, then sent, so a kill between
// the two replays it at the next start. Its pollers report what they deleted and what they
// dead-letter the same way, and wait for the answer (a message is never in a DLQ before the journal
// holds it dead).
//
// The mail goes the other way: the SES emulator and its simulated feedback (with its ledger, one
// writer) run in the functions thread, where nearly all mail is sent; the API's own mail (sign-in
// links, confirmations) goes there through this link.
import type { JournaledQueue, JournalRecord } from '../shared/adapters/local/journaled-queue';
import type { QueueName } from '../shared/platform';
import { PermanentSendError, type Mailer, type OutboundEmail, type SendReceipt } from '../shared/ports/mailer';
import type { Queue } from '../shared/ports/queue';
import type { PortRpc } from './port-rpc';

/** The API thread's side: the journal, written for the functions thread. */
export function serveJournal(rpc: PortRpc, journal: JournaledQueue): void {
  rpc.serve({
    'journal.record': ({ queue, bodies, delay }: { queue: QueueName; bodies: string[]; delay: number }) => journal.record(queue, bodies, delay),
    'journal.acknowledge': (records: JournalRecord[]) => journal.acknowledge(records),
    'journal.deadLettered': (records: JournalRecord[]) => journal.deadLettered(records),
  });
}

/** The functions thread's queue port: journaled on the API thread, then sent by `inner`. */
export class LinkedJournalQueue implements Queue {
  constructor(
    private readonly rpc: PortRpc,
    private readonly inner: Queue,
  ) {}

  async send(queue: QueueName, body: unknown, options: { delaySeconds?: number } = {}): Promise<void> {
    await this.rpc.call('journal.record', { queue, bodies: [JSON.stringify(body)], delay: options.delaySeconds ?? 0 });
    await this.inner.send(queue, body, options);
  }

  async sendBatch(queue: QueueName, bodies: readonly unknown[]): Promise<void> {
    if (bodies.length > 0) await this.rpc.call('journal.record', { queue, bodies: bodies.map((b) => JSON.stringify(b)), delay: 0 });
    await this.inner.sendBatch(queue, bodies);
  }

  /** The poller deleted these. */
  acknowledge(records: readonly JournalRecord[]): Promise<void> {
    return this.rpc.call('journal.acknowledge', records);
  }

  /** These failed their last attempt; resolves once the journal holds them dead. */
  deadLettered(records: readonly JournalRecord[]): Promise<void> {
    return this.rpc.call('journal.deadLettered', records);
  }
}

/** The functions thread's side: its mailer (the SES feedback) serves the API thread's mail. */
export function serveMail(rpc: PortRpc, mailer: Mailer): void {
  rpc.serve({
    'mail.send': (email: OutboundEmail) =>
      // Attachments' bytes arrive as Uint8Array; the mailer expects Buffers.
      mailer.send(email.attachments ? { ...email, attachments: email.attachments.map((a) => ({ ...a, content: Buffer.from(a.content) })) } : email),
  });
}

/** The API thread's mailer: mail goes to the functions thread's. */
export class LinkedMailer implements Mailer {
  constructor(private readonly rpc: PortRpc) {}

  async send(email: OutboundEmail): Promise<SendReceipt> {
    try {
      return await this.rpc.call<SendReceipt>('mail.send', email);
    } catch (error) {
      // The one kind a caller tells apart keeps its class across the link.
      if (error instanceof Error && error.name === 'PermanentSendError') throw new PermanentSendError(error.message, { cause: error });
      throw error;
    }
  }
}
