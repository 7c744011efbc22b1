// Keeping the Mail search index as mail arrives: recordMailMessage (shared/inbound-mail/mailbox/record.ts) writes
// mailIndexItems for every message that joins a thread, inbound or outbound, with its other items and
// before it marks the message counted, so a run that dies here is run again by the worker's retry. Writing a message
// again writes the same items under the same keys. Cost: docs/api-decisions.md, "Mail search".
import type { Store } from '../../db/store';
import { snippetOf, type MailMessageEntry } from './model';
import { indexedText, termsOf } from './index-terms';
import type { ItemKey } from '../../db/keys';
import { mailIndexItemsOf, MailIndexRepository, type NewMailDoc } from './index-repository';

export async function indexMailMessage(deps: { store: Store }, entry: MailMessageEntry): Promise<void> {
  await new MailIndexRepository(deps.store).write(mailDocOf(entry), termsOf(entry));
}

/** The index items of a message (its search document and postings): for a caller that writes them with others in one batch. */
export const mailIndexItems = (entry: MailMessageEntry): ItemKey[] => mailIndexItemsOf(mailDocOf(entry), termsOf(entry));

function mailDocOf(entry: MailMessageEntry): NewMailDoc {
  return {
    account_id: entry.account_id,
    source: entry.source,
    id: entry.id,
    thread_id: entry.thread_id,
    occurred_at: entry.occurred_at,
    from: entry.from,
    to: [...entry.to],
    subject: entry.subject,
    snippet: snippetOf(entry.text),
    text: indexedText(entry.text),
    address: entry.address.toLowerCase(),
    attachment_count: entry.attachment_count ?? 0,
  };
}
