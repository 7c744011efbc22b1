// A data directory from before the local runtime ran s3rver kept its objects as files under
// DATA_DIR/objects (the old FileObjectStore: `<sha256 of key>` beside `<sha256>.meta.json`, which
// names the key and content type). At start they are put into the bucket under their keys, and the
// folder is renamed `objects.imported`, so this happens once; an import cut short by a kill runs
// again from the start (a PUT of the same bytes is harmless). The renamed folder can be deleted.
import { createReadStream, existsSync } from 'node:fs';
import { readdir, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Logger } from '../shared/adapters/logger';

interface Meta {
  key: string;
  contentType: string;
}

export async function importFileObjects(client: S3Client, bucket: string, folder: string, logger: Logger): Promise<number> {
  if (!existsSync(folder)) return 0;
  let imported = 0;
  for (const entry of await readdir(folder)) {
    if (!entry.endsWith('.meta.json')) continue;
    const file = join(folder, entry.slice(0, -'.meta.json'.length));
    if (!existsSync(file)) continue; // the object was deleted, or its write never finished
    const meta = JSON.parse(await readFile(join(folder, entry), 'utf8')) as Meta;
    const { size } = await stat(file);
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: meta.key, Body: createReadStream(file), ContentLength: size, ContentType: meta.contentType }));
    imported++;
  }
  await rename(folder, `${folder}.imported`);
  logger.info('imported the objects of an older data directory into the local bucket', { objects: imported, from: folder, keptAt: `${folder}.imported` });
  return imported;
}
