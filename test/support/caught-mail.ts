// The mail the local runtime's SES emulator caught (its /store), read by recipient: how an e2e
// test reads a verification link, a sign-in code or a reset link the service mailed.
import { waitFor } from './wait';

export interface CaughtMail {
  /** The emulator's id of the mail. */
  messageId: string;
  from: string;
  subject: string;
  body: { text?: string; html?: string };
  destination: { to: string[] };
  headers?: Array<{ name: string; value: string }>;
}

/** Every mail the emulator holds, oldest first. */
export async function caughtMail(sesUrl: string): Promise<CaughtMail[]> {
  return ((await (await fetch(`${sesUrl}/store`)).json()) as { emails: CaughtMail[] }).emails;
}

/** The first caught mail with this subject, once it is there. */
export function mailWithSubject(sesUrl: string, subject: string): Promise<CaughtMail> {
  return waitFor(async () => (await caughtMail(sesUrl)).find((m) => m.subject === subject), {
    what: () => `the mail "${subject}" in the SES emulator`,
    timeoutMs: 20_000,
    intervalMs: 200,
  });
}

/** Every caught mail to `address`, oldest first. */
export async function caughtMailTo(sesUrl: string, address: string): Promise<CaughtMail[]> {
  return (await caughtMail(sesUrl)).filter((e) => e.destination.to.includes(address));
}

/**
 * The text of the newest mail to `address` whose subject matches, once more than `seen` such mails
 * have arrived (pass the count from before the action that mails, so an older one is never taken).
 */
export async function nextMailText(sesUrl: string, address: string, subject: RegExp, seen = 0): Promise<string> {
  return waitFor(
    async () => {
      const matching = (await caughtMailTo(sesUrl, address)).filter((m) => subject.test(m.subject));
      return matching.length > seen ? (matching[matching.length - 1]?.body.text ?? '') : undefined;
    },
    { what: `a mail to ${address} with a subject like ${subject}` },
  );
}

/** How many caught mails to `address` have a subject like `subject`. */
export async function countMail(sesUrl: string, address: string, subject: RegExp): Promise<number> {
  return (await caughtMailTo(sesUrl, address)).filter((m) => subject.test(m.subject)).length;
}
