// mbox (RFC 4155, the mboxrd kind): each message begins with a separator line
// `From <sender> <asctime>`; a line of the message that starts with `From ` or `>From `, `>>From `…
// gets one more `>`; lines end in LF; a blank line ends each message. Pure functions over bytes:
// a raw message is handled as latin1 text, which keeps every byte as it is.

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number): string => String(n).padStart(2, '0');

/** C's asctime in UTC: `Thu Nov 27 05:10:04 2026` (the day of the month space-padded). */
export function asctime(iso: string): string {
  const d = new Date(iso);
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${time} ${d.getUTCFullYear()}`;
}

/** The separator's sender: an address without spaces, or MAILER-DAEMON when none is known. */
const envelopeSender = (from: string | null): string => (from && /^[^\s@]+@[^\s@]+$/.test(from) ? from : 'MAILER-DAEMON');

/** One message as an mbox entry: separator, the message with `From ` lines quoted, a blank line. */
export function mboxEntry(message: { from: string | null; occurred_at: string; bytes: Buffer }): Buffer {
  const lines = message.bytes.toString('latin1').replace(/\r\n/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const body = lines.map((line) => (/^>*From /.test(line) ? `>${line}` : line)).join('\n');
  return Buffer.from(`From ${envelopeSender(message.from)} ${asctime(message.occurred_at)}\n${body}\n\n`, 'latin1');
}

/** A header value as RFC 2047 encoded words when it is not plain ASCII. */
function headerValue(value: string): string {
  const clean = value.replace(/[\r\n]+/g, ' ');
  if (/^[\x20-\x7e]*$/.test(clean)) return clean;
  const words: string[] = [];
  // At most 45 bytes a word, cut between characters: a 75-character encoded word.
  let chunk = '';
  for (const ch of clean) {
    if (Buffer.byteLength(chunk + ch) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += ch;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w).toString('base64')}?=`).join('\r\n ');
}

/**
 * A message composed from what is stored of it (outbound mail, and inbound mail whose raw message
 * is not kept or too large for a page): text/plain UTF-8, base64, with Postbox's ids as headers.
 */
export function composeMessage(m: {
  id: string;
  thread_id: string;
  source: string;
  from: string | null;
  to: readonly string[];
  subject: string | null;
  text: string | null;
  occurred_at: string;
  note?: string;
}): Buffer {
  const body = Buffer.from(m.text ?? '', 'utf8').toString('base64').replace(/.{1,76}/g, '$&\r\n');
  const headers = [
    ...(m.from ? [`From: ${headerValue(m.from)}`] : []),
    ...(m.to.length > 0 ? [`To: ${headerValue(m.to.join(', '))}`] : []),
    ...(m.subject !== null ? [`Subject: ${headerValue(m.subject)}`] : []),
    `Date: ${new Date(m.occurred_at).toUTCString().replace('GMT', '+0000')}`,
    `X-Postbox-Message-Id: ${m.id}`,
    `X-Postbox-Thread-Id: ${m.thread_id}`,
    `X-Postbox-Source: ${m.source}`,
    ...(m.note ? [`X-Postbox-Note: ${headerValue(m.note)}`] : []),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: base64',
  ];
  return Buffer.from(`${headers.join('\r\n')}\r\n\r\n${body}`, 'utf8');
}
