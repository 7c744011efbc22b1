// holdStream: a stream held in memory up to a bound, else in a file written as it is read; past
// maxBytes the rest is read and dropped.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { holdStream, heldReadable, releaseHeld } from '../../shared/formats/held-stream';

const dir = mkdtempSync(join(tmpdir(), 'postbox-held-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
const chunks = (count: number, size: number, fill = 0x61): Readable => Readable.from(Array.from({ length: count }, (_, i) => Buffer.alloc(size, fill + (i % 20))));
const whole = (count: number, size: number, fill = 0x61): Buffer => Buffer.concat(Array.from({ length: count }, (_, i) => Buffer.alloc(size, fill + (i % 20))));
const fileFor = async () => join(dir, `held-${++n}`);

async function text(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(Buffer.from(part as Buffer));
  return Buffer.concat(parts);
}

describe('holdStream', () => {
  it('holds a stream within the bound in memory, with no file', async () => {
    const held = await holdStream(chunks(4, 100), { inMemoryBytes: 400, fileFor });
    expect(held).toEqual({ size: 400, exceeded: false, bytes: whole(4, 100) });
    expect(await text(heldReadable(held))).toEqual(whole(4, 100));
  });

  it('writes a stream past the bound to a file, whole, and removes it when released', async () => {
    const held = await holdStream(chunks(10, 100), { inMemoryBytes: 250, fileFor });
    expect(held.bytes).toBeUndefined();
    expect(held.size).toBe(1000);
    expect(readFileSync(held.file!)).toEqual(whole(10, 100));
    expect(await text(heldReadable(held))).toEqual(whole(10, 100));
    await releaseHeld(held);
    expect(() => readFileSync(held.file!)).toThrow(/ENOENT/);
  });

  it('reads a stream past maxBytes to its end and keeps nothing of it, in memory or in a file', async () => {
    const inMemory = await holdStream(chunks(10, 100), { inMemoryBytes: 5000, maxBytes: 350, fileFor });
    const inFile = await holdStream(chunks(10, 100), { inMemoryBytes: 150, maxBytes: 650, fileFor });

    expect(inMemory).toMatchObject({ size: 1000, exceeded: true });
    expect(inMemory.bytes?.length ?? 0).toBe(0);
    expect(inFile).toMatchObject({ size: 1000, exceeded: true });
    expect(readFileSync(inFile.file!).length).toBeLessThanOrEqual(650);
    await releaseHeld(inFile);
  });
});
