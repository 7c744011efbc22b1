// The raw message's digest, taken as the inbound worker streams it into the parser: it covers every
// byte even when the parser stops early (a malformed message), and a raw object that cannot be read
// to its end is an error (the job is retried), never the digest of part of it.
import { createHash } from 'node:crypto';
import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { digesting, receiptDigest } from '../../shared/inbound-mail/receipt/receive';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');
// Many chunks, more than the streams' buffers hold, so a reader that stops leaves most of them unread.
const chunks = [Buffer.from('From: a@sender.test\r\nSubject: x\r\n\r\n'), ...Array.from({ length: 64 }, (_, i) => Buffer.alloc(64 * 1024, 0x61 + (i % 26)))];

describe('the raw message digest', () => {
  it('is the SHA-256 of every byte when the reader consumes the whole stream', async () => {
    const tap = digesting(Readable.from(chunks));
    await new Promise<void>((done) => tap.stream.pipe(new Writable({ write: (_c, _e, next) => next() })).on('finish', () => done()));

    expect(await tap.digest()).toBe(sha256(Buffer.concat(chunks)));
  });

  it('is the SHA-256 of every byte when the reader stops after the first chunk', async () => {
    const tap = digesting(Readable.from(chunks));
    const first = await new Promise<Buffer>((done) => tap.stream.once('data', (chunk: Buffer) => (tap.stream.pause(), done(chunk))));
    expect(first.length).toBeLessThan(Buffer.concat(chunks).length);

    expect(await tap.digest()).toBe(sha256(Buffer.concat(chunks)));
  });

  it('rejects when the raw object breaks off', async () => {
    const source = new PassThrough();
    const tap = digesting(source);
    source.write(chunks[0]);
    source.destroy(new Error('connection reset'));

    await expect(tap.digest()).rejects.toThrow('connection reset');
  });
});

describe('the receipt a message is known by', () => {
  it('differs for other bytes, another recipient or another account, and ignores the case of the address', () => {
    const bytes = sha256(Buffer.from('one message'));
    const base = receiptDigest('acct_a', 'Help@in.test', bytes);

    expect(receiptDigest('acct_a', 'help@IN.test', bytes)).toBe(base);
    expect(receiptDigest('acct_a', 'help@in.test', sha256(Buffer.from('another message')))).not.toBe(base);
    expect(receiptDigest('acct_a', 'sales@in.test', bytes)).not.toBe(base);
    expect(receiptDigest('acct_b', 'help@in.test', bytes)).not.toBe(base);
  });
});
