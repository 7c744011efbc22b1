// The threading headers of a reply (RFC 5322 §3.6.4): In-Reply-To names the message replied to,
// References its References followed by its own Message-ID. Pure; the reply use case is in
// ./compose.ts. Only ids SES takes in a header are kept (printable ASCII in angle brackets).
import { isHeaderValue, type MessageExtras } from '../../sending/messages/extras';

/** `<…>` with printable ASCII inside and no brackets or spaces: what SES sends in a header. */
const MESSAGE_ID = /^<[\x21-\x3b\x3d\x3f-\x7e]+>$/;

/** The message ids of a References (or In-Reply-To) value as stored: a string, or several lines of it. */
export function messageIdsOf(value: string | readonly string[] | undefined): string[] {
  const raw = Array.isArray(value) ? value.join(' ') : typeof value === 'string' ? value : '';
  return (raw.match(/<[^<>\s]+>/g) ?? []).filter((id) => MESSAGE_ID.test(id));
}

/**
 * References for a reply: the parent's References then the parent's Message-ID, each once. Past
 * SES's bound on a header it is cut from the oldest end, keeping the first (the conversation's
 * root, which receivers thread on) and the newest.
 */
export function referencesFor(parentReferences: readonly string[], parentMessageId: string | null): string | undefined {
  const ids: string[] = [];
  for (const id of [...parentReferences, ...(parentMessageId ? [parentMessageId] : [])]) if (MESSAGE_ID.test(id) && !ids.includes(id)) ids.push(id);
  while (ids.length > 2 && !isHeaderValue('References', ids.join(' '))) ids.splice(1, 1);
  while (ids.length > 0 && !isHeaderValue('References', ids.join(' '))) ids.shift();
  return ids.length > 0 ? ids.join(' ') : undefined;
}

/** In-Reply-To and References of a reply to the message with these headers; none when it carried no usable id. */
export function replyHeaders(parent: { rfc_message_id: string | null; headers: Record<string, string | string[]> }): NonNullable<MessageExtras['headers']> {
  const own = parent.rfc_message_id && MESSAGE_ID.test(parent.rfc_message_id) && isHeaderValue('In-Reply-To', parent.rfc_message_id) ? parent.rfc_message_id : null;
  const references = referencesFor(messageIdsOf(parent.headers.references), own);
  return [...(own ? [{ name: 'In-Reply-To', value: own }] : []), ...(references ? [{ name: 'References', value: references }] : [])];
}

const REPLY_PREFIX = /^\s*re\s*:/i;

/** `Re: ` and the subject, unless it already starts with Re:. */
export function replySubject(subject: string | null): string {
  const s = (subject ?? '').trim();
  return (REPLY_PREFIX.test(s) ? s : `Re: ${s}`).slice(0, 998);
}

/** `Fwd: ` and the subject. */
export const forwardSubject = (subject: string | null): string => `Fwd: ${subject ?? ''}`.slice(0, 998);
