// The one way mail enters the Mail app: recordMailMessage, called for each stored inbound email
// (a listener of the receipt, shared/runtime/receipt-listeners.ts) and, with compose, for each accepted outbound message.
// It files the message in its thread (entry, ref, the thread's state and list pointers) and is the
// place where the search index is to be written (docs/architecture.md, "The Mail app").
//
// Safe to run again for the same message: the ref says whether its thread has counted it, and the
// thread remembers the last RECENT_REFS messages it counted, which covers a run that died between
// the thread write and the ref's mark (unless that many other messages joined the same thread
// before the retry, which an SQS redelivery minutes later does not meet).
//
// Few calls: the ref and the thread are read together; the message's plain items (its ref, unless
// there is one, its thread entry, its search document and postings) go in one batch write with the
// thread's new pointers, before the thread's conditional write; the ref is marked applied only
// after all of them, so a run that dies anywhere before is run again whole.
import type { Store } from '../../db/store';
import type { InboundEmailItem } from '../receipt/repository';
import { mailIndexItems } from './index-write';
import { applyEntry, type MailMessageEntry } from './model';
import { entryItem, MailThreadRepository, refItem } from './threads-repository';

export async function recordMailMessage(deps: { store: Store }, entry: MailMessageEntry): Promise<void> {
  const threads = new MailThreadRepository(deps.store);
  const { ref, thread } = await threads.refAndThread(entry.account_id, entry.source, entry.id, entry.thread_id);
  if (ref?.applied) return;
  const items = [
    ...mailIndexItems(entry),
    entryItem(entry.account_id, entry.thread_id, {
      source: entry.source,
      id: entry.id,
      occurred_at: entry.occurred_at,
      from: entry.from,
      to: [...entry.to],
      subject: entry.subject,
    }),
    ...(ref ? [] : [refItem(entry.account_id, entry.source, entry.id, entry.thread_id, false)]),
  ];
  await threads.change(entry.account_id, entry.thread_id, (current) => applyEntry(current, entry), { read: { thread }, alongside: items });
  await threads.putRef(entry.account_id, entry.source, entry.id, entry.thread_id, true);
}

export function inboundEntryOf(email: InboundEmailItem, text: string | null): MailMessageEntry {
  return {
    account_id: email.account_id,
    source: 'inbound',
    id: email.id,
    thread_id: email.thread_id,
    occurred_at: email.received_at,
    from: email.from,
    to: email.to,
    cc: email.cc,
    subject: email.subject,
    text,
    address: email.recipient,
    attachment_count: email.attachments.length,
  };
}

/** A stored inbound email into its thread (the receipt's listener). */
export function recordInboundMail(deps: { store: Store }, email: InboundEmailItem, text: string | null): Promise<void> {
  return recordMailMessage(deps, inboundEntryOf(email, text));
}
