// Which conversation a received message belongs to. A reply names the conversation's first
// message in References (or at least its parent in In-Reply-To), and the first message's own
// Message-ID names it too, so they meet on the same id. A message with none of these falls back to
// its normalized subject and its participants.
import { createHash } from 'node:crypto';

const REPLY_PREFIX = /^\s*((re|fw|fwd|aw|wg|sv|vs|antw|tr)(\[\d+\])?\s*:\s*)+/i;

export function normalizeSubject(subject: string | null): string {
  return (subject ?? '').replace(REPLY_PREFIX, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

export interface ThreadInput {
  accountId: string;
  rfcMessageId: string | null;
  inReplyTo: string | null;
  references: readonly string[];
  subject: string | null;
  participants: readonly string[];
}

export function threadIdOf(m: ThreadInput): string {
  const root = m.references[0] ?? m.inReplyTo ?? m.rfcMessageId;
  const basis = root
    ? `id\n${root.toLowerCase()}`
    : `subject\n${normalizeSubject(m.subject)}\n${[...new Set(m.participants.map((p) => p.toLowerCase()))].sort().join(',')}`;
  return `thr_${createHash('sha256').update(`${m.accountId}\n${basis}`).digest('hex').slice(0, 26)}`;
}
