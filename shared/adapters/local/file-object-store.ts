// The local stand-in for S3: one file per object under a folder, with its content type beside it.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ObjectStore, StoredObject } from '../../ports/object-store';

export class FileObjectStore implements ObjectStore {
  constructor(private readonly root: string) {}

  // Keys become file names by digest, so no key can climb out of the folder.
  private path(key: string): string {
    return join(this.root, createHash('sha256').update(key).digest('hex'));
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await mkdir(this.root, { recursive: true });
    await writeFile(this.path(key), body);
    await writeFile(`${this.path(key)}.meta.json`, JSON.stringify({ key, contentType }));
  }

  async get(key: string): Promise<StoredObject | undefined> {
    try {
      const [body, meta] = await Promise.all([readFile(this.path(key)), readFile(`${this.path(key)}.meta.json`, 'utf8')]);
      return { body, contentType: (JSON.parse(meta) as { contentType: string }).contentType };
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
    await rm(`${this.path(key)}.meta.json`, { force: true });
  }
}
