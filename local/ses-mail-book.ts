// The SES emulator's mail, kept in its file rather than in memory. aws-ses-v2-local keeps every mail
// it takes in a module-level array (dist/store.js) for ever; a broadcast of 10,000 mails held them
// all (issue 31). With a mail file, the book writes each new mail to it before the emulator's answer
// leaves (as keepMail did), indexes it (our message id → the emulator's id and when it took it:
// what a retried send asks), and then trims the array to the newest few. The emulator's own readers
// of the array, GET /store and GET /get-emlContent, are answered from the file instead, so the
// viewer and the tests still see every mail. Without a file nothing is trimmed (nothing else keeps it).
import { closeSync, createReadStream, existsSync, openSync, readSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { StringDecoder } from 'node:string_decoder';
import type { HeldMail, HeldReceipt } from '../shared/adapters/local/ses-feedback';
import { MESSAGE_ID_HEADER } from '../shared/ports/mailer';

const require = createRequire(import.meta.url);

/** A mail as the emulator keeps it (the part we read). */
export interface SesEmail {
  messageId: string;
  headers?: Array<{ name: string; value: string }>;
  from?: string;
  destination?: { to?: string[] };
  subject?: string;
  /** Epoch seconds. */
  at?: number;
}

interface SesStore {
  emails: SesEmail[];
  templates: Map<string, unknown>;
}

/** The emulator's module-level store: the array is replaced by a clear, so it is read through this. */
export const sesStore = (): SesStore => (require('aws-ses-v2-local/dist/store.js') as { getStoreReadonly(): SesStore }).getStoreReadonly();

/** Mail kept in the emulator's array past its file (the newest): what its own handlers may still read. */
export const MAIL_IN_MEMORY = 100;

const HEADER = MESSAGE_ID_HEADER.toLowerCase();
const oursOf = (email: SesEmail): string | undefined => email.headers?.find((h) => h.name.toLowerCase() === HEADER)?.value;
/** When the emulator took a mail: it keeps epoch seconds, so this is at or before the moment. */
const takenAt = (email: SesEmail): string => new Date((email.at ?? 0) * 1000).toISOString();
const lines = (emails: readonly unknown[]): string => emails.map((email) => `${JSON.stringify(email)}\n`).join('');

/** Calls `fn` with each line of `file` that reads back as JSON, a MiB at a time (a torn last line is skipped). */
export function forEachMail(file: string, fn: (email: SesEmail, line: string) => void): void {
  if (!existsSync(file)) return;
  const fd = openSync(file, 'r');
  const chunk = Buffer.alloc(1 << 20);
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const take = (line: string): void => {
    if (line.trim() === '') return;
    try {
      fn(JSON.parse(line) as SesEmail, line);
    } catch {
      // a write a kill cut short
    }
  };
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) {
      const parts = (rest + decoder.write(chunk.subarray(0, n))).split('\n');
      rest = parts.pop() ?? '';
      parts.forEach(take);
    }
    take(rest + decoder.end());
  } finally {
    closeSync(fd);
  }
}

export class SesMailBook {
  /** Our message id → the emulator's id and when it took the mail, `<id> <ISO time>` (its oldest mail). */
  private readonly index = new Map<string, string>();
  private list: SesEmail[];
  /** How many mails of `list` are written and indexed. */
  private done = 0;

  constructor(
    private readonly file?: string,
    private readonly keep: number = MAIL_IN_MEMORY,
  ) {
    const store = sesStore();
    this.list = store.emails;
    if (file) this.load(file);
    this.sync();
  }

  /** The file's mail: all of it indexed, the newest `keep` put back into the emulator's array. */
  private load(file: string): void {
    // A last line a kill cut short is ended, so the next mail does not join it.
    const size = existsSync(file) ? statSync(file).size : 0;
    if (size > 0) {
      const fd = openSync(file, 'r');
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      closeSync(fd);
      if (last[0] !== 0x0a) appendFileSync(file, '\n');
    }
    const newest: SesEmail[] = [];
    forEachMail(file, (email) => {
      this.note(email);
      newest.push(email);
      if (newest.length > this.keep) newest.shift();
    });
    const present = new Set(this.list.map((email) => email.messageId));
    const restored = newest.filter((email) => !present.has(email.messageId));
    this.list.unshift(...restored);
    // Mail already in the array (an earlier server in this process) is indexed, not written again.
    this.list.forEach((email) => this.note(email));
    this.done = this.list.length;
  }

  private note(email: SesEmail): void {
    const ours = oursOf(email);
    if (ours && !this.index.has(ours)) this.index.set(ours, `${email.messageId} ${takenAt(email)}`);
  }

  /**
   * Writes and indexes the mail the emulator took since the last call, then trims its array. A
   * clear (the emulator replaces the array) empties the file and the index. Runs before each of the
   * emulator's answers leaves, and before every lookup.
   */
  sync(): void {
    const store = sesStore();
    if (store.emails !== this.list) {
      this.list = store.emails;
      this.index.clear();
      this.done = 0;
      if (this.file) writeFileSync(this.file, '', { mode: 0o600 });
    }
    if (this.list.length > this.done) {
      const fresh = this.list.slice(this.done);
      if (this.file) appendFileSync(this.file, lines(fresh), { mode: 0o600 });
      fresh.forEach((email) => this.note(email));
    }
    if (this.file && this.list.length > this.keep) this.list.splice(0, this.list.length - this.keep);
    this.done = this.list.length;
  }

  /** The emulator's id of the mail it holds for our message id, and when it took it. */
  sentMail(messageId: string): HeldReceipt | undefined {
    this.sync();
    const entry = this.index.get(messageId);
    if (!entry) return undefined;
    const space = entry.indexOf(' ');
    return { providerMessageId: entry.slice(0, space), at: entry.slice(space + 1) };
  }

  /** How many of our message ids are indexed, and how many mails the emulator's array holds. */
  counts(): { indexed: number; inMemory: number } {
    return { indexed: this.index.size, inMemory: sesStore().emails.length };
  }

  /** Every mail held that carries our message id, oldest first (read from the file when there is one). */
  heldMail(): HeldMail[] {
    this.sync();
    const out: HeldMail[] = [];
    const add = (email: SesEmail): void => {
      const messageId = oursOf(email);
      if (messageId) out.push({ providerMessageId: email.messageId, messageId, from: email.from ?? '', to: email.destination?.to?.[0] ?? '', subject: email.subject ?? '', at: takenAt(email) });
    };
    if (this.file) forEachMail(this.file, add);
    else this.list.forEach(add);
    return out;
  }

  /**
   * Answers the emulator's own readers of its array from the file: GET /store (every mail, or those
   * taken at or after `since`, epoch seconds) and GET /get-emlContent of a mail no longer in memory.
   * False when the request is not one of them (the emulator answers it).
   */
  serve(request: IncomingMessage, response: ServerResponse): boolean {
    if (!this.file || request.method !== 'GET') return false;
    const url = new URL(request.url ?? '/', 'http://emulator');
    if (url.pathname === '/store') {
      void this.serveStore(url, response).catch((error: unknown) => response.destroy(error as Error));
      return true;
    }
    const id = url.searchParams.get('messageId');
    if (url.pathname === '/get-emlContent' && id && !this.list.some((email) => email.messageId === id)) {
      let found: SesEmail | undefined;
      forEachMail(this.file, (email) => (found = email.messageId === id ? email : found));
      if (!found) return false;
      const { createEmlContent } = require('aws-ses-v2-local/dist/emlFile.js') as { createEmlContent(e: SesEmail): Promise<unknown> };
      createEmlContent(found).then(
        (eml) => response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(eml)),
        (error: unknown) => response.writeHead(400, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ message: String(error) })),
      );
      return true;
    }
    return false;
  }

  private async serveStore(url: URL, response: ServerResponse): Promise<void> {
    const sinceText = url.searchParams.get('since');
    const since = sinceText === null ? undefined : Number(sinceText);
    if (sinceText !== null && (!Number.isSafeInteger(since) || String(since) !== sinceText)) {
      response.writeHead(400, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ message: 'Bad since query param, expected integer representing epoch timestamp in seconds' }));
      return;
    }
    this.sync();
    const size = existsSync(this.file as string) ? statSync(this.file as string).size : 0;
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.write(`{"templates":${JSON.stringify(Object.fromEntries(sesStore().templates))},"emails":[`);
    let first = true;
    if (size > 0) {
      // Up to the size it had now: mail appended while this streams is for the next read.
      const reader = createInterface({ input: createReadStream(this.file as string, { start: 0, end: size - 1 }), crlfDelay: Infinity });
      for await (const line of reader) {
        let email: SesEmail;
        try {
          email = JSON.parse(line) as SesEmail;
        } catch {
          continue; // blank, or a write a kill cut short
        }
        if (since !== undefined && !((email.at ?? 0) >= since)) continue;
        const more = response.write(first ? line : `,${line}`);
        first = false;
        if (!more) await once(response, 'drain');
      }
    }
    response.end(']}');
  }
}
