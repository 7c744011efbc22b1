// A stream read to its end and held where it fits: in memory up to a bound, else in a file written
// as it is read, so memory never holds a large one whole. What the SMTP listener does with a
// message and the inbound worker with an attachment on their way to the object store: most are
// small, and a small one then costs no file to write, read back and remove.
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStore } from '../ports/object-store';

/** Held bytes: in memory (`bytes`) or in a file (`file`); `exceeded` when the stream passed `maxBytes` and its rest was dropped. */
export type Held = { size: number; exceeded: boolean } & ({ bytes: Buffer; file?: undefined } | { file: string; bytes?: undefined });

export interface HoldOptions {
  /** Held in memory up to this many bytes; past it, in a file. */
  inMemoryBytes: number;
  /** The file to use once the stream outgrows memory (made only then). */
  fileFor: () => Promise<string>;
  /** Past this many bytes nothing more is kept: the rest is read and dropped (`exceeded`). */
  maxBytes?: number;
}

const asBuffer = (chunk: unknown): Buffer => (Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array | string));

export async function holdStream(source: AsyncIterable<unknown>, { inMemoryBytes, fileFor, maxBytes = Number.POSITIVE_INFINITY }: HoldOptions): Promise<Held> {
  const chunks: Buffer[] = [];
  let size = 0;
  const rest = source[Symbol.asyncIterator]();
  for (let next = await rest.next(); !next.done; next = await rest.next()) {
    const chunk = asBuffer(next.value);
    size += chunk.length;
    if (size > maxBytes) return { ...(await drained(rest, size)), bytes: Buffer.alloc(0) };
    chunks.push(chunk);
    if (size > inMemoryBytes) return spill(chunks, rest, size, await fileFor(), maxBytes);
  }
  return { size, exceeded: false, bytes: Buffer.concat(chunks, size) };
}

/** Reads what is left and drops it: a stream past its limit is still read to its end. */
async function drained(rest: AsyncIterator<unknown>, size: number): Promise<{ size: number; exceeded: true }> {
  for (let next = await rest.next(); !next.done; next = await rest.next()) size += asBuffer(next.value).length;
  return { size, exceeded: true };
}

/** The chunks read so far and the rest, into `file` as they come (past `maxBytes` read and dropped). */
async function spill(read: Buffer[], rest: AsyncIterator<unknown>, sizeSoFar: number, file: string, maxBytes: number): Promise<Held> {
  let size = sizeSoFar;
  let exceeded = false;
  async function* whole(): AsyncGenerator<Buffer> {
    yield* read.splice(0);
    for (let next = await rest.next(); !next.done; next = await rest.next()) {
      const chunk = asBuffer(next.value);
      size += chunk.length;
      if (size > maxBytes) exceeded = true;
      if (!exceeded) yield chunk;
    }
  }
  await pipeline(Readable.from(whole()), createWriteStream(file));
  return { size, exceeded, file };
}

/** The held bytes as a readable stream (a file is read as it is needed). */
export const heldReadable = (held: Held): Readable => (held.bytes ? Readable.from([held.bytes]) : createReadStream(held.file!));

/** Puts the held bytes in the object store: from memory, or streamed from the file. */
export const putHeld = (objects: Pick<ObjectStore, 'put' | 'putFile'>, key: string, held: Held, contentType: string): Promise<void> =>
  held.bytes ? objects.put(key, held.bytes, contentType) : objects.putFile(key, held.file!, contentType);

/** Removes the file of a held stream, if it has one. */
export async function releaseHeld(held: Held | undefined): Promise<void> {
  if (held?.file) await rm(held.file, { force: true });
}
