// Uploads: a file an account stores for a later use (a contact import), in the object store under
// its own prefix, `uploads/<account id>/<upload id>.<ext>`. The size limit is checked before
// anything is stored; nothing serves an upload back, and a key is only usable by its account
// (uploadKeyOwnedBy).
import { ApiError, InvalidRequestError } from '../../errors';
import type { Clock } from '../../ports/clock';
import type { ObjectStore } from '../../ports/object-store';
import type { Ids } from '../../ports/ids';
import type { UploadView } from './schemas';

/** The spec's limit: 2 MiB; exactly 2 MiB is accepted. */
export const UPLOAD_MAX_BYTES = 2 * 1024 * 1024;

export type UploadContentType = UploadView['content_type'];

/** What each accepted type is stored as, and its key's extension. */
const EXTENSIONS: Record<UploadContentType, string> = { 'text/csv': 'csv', 'text/plain': 'txt', 'application/json': 'json' };

/** Labels clients give these files: spreadsheets' own CSV types and text's variants. */
const ALIASES: Record<string, UploadContentType> = {
  'text/csv': 'text/csv',
  'application/csv': 'text/csv',
  'text/comma-separated-values': 'text/csv',
  'text/x-csv': 'text/csv',
  'text/plain': 'text/plain',
  'application/json': 'application/json',
  'text/json': 'application/json',
};

/**
 * Labels that say nothing about a text file: browsers on Windows send application/vnd.ms-excel
 * for every .csv file, and many clients octet-stream for whatever they do not know. The file
 * name's extension decides then.
 */
const VAGUE = new Set(['', 'application/octet-stream', 'application/vnd.ms-excel', 'binary/octet-stream']);
const BY_EXTENSION: Record<string, UploadContentType> = { csv: 'text/csv', txt: 'text/plain', json: 'application/json' };

export interface UploadFile {
  bytes: Buffer;
  /** The Content-Type the client gave (the request's, or the form part's). */
  declaredType?: string;
  /** The form part's file name, when it came as multipart; never part of the stored key. */
  filename?: string;
}

export interface UploadDeps {
  objects: ObjectStore;
  clock: Clock;
  ids: Ids;
}

const bareType = (value: string | undefined): string => (value ?? '').split(';')[0]!.trim().toLowerCase();

/** The type the file is stored as; 400 for a type we do not take. */
export function uploadContentType(declaredType: string | undefined, filename: string | undefined): UploadContentType {
  const declared = bareType(declaredType);
  const known = ALIASES[declared];
  if (known) return known;
  const extension = /\.([A-Za-z0-9]+)$/.exec(filename ?? '')?.[1]?.toLowerCase();
  const byName = VAGUE.has(declared) && extension ? BY_EXTENSION[extension] : undefined;
  if (byName) return byName;
  throw new InvalidRequestError(
    `body: files of type ${declared ? `"${declared}"` : '(none given)'} are not accepted; send text/csv, text/plain or application/json (UTF-8), or a file named .csv, .txt or .json`,
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Stores the file under the account's prefix and answers its key. */
export async function storeUpload(deps: UploadDeps, accountId: string, file: UploadFile): Promise<UploadView> {
  if (file.bytes.length > UPLOAD_MAX_BYTES) {
    throw new ApiError('payload_too_large', `the file is ${file.bytes.length} bytes; the limit is ${UPLOAD_MAX_BYTES} bytes (2 MiB)`);
  }
  if (file.bytes.length === 0) throw new InvalidRequestError('body: the file is empty');
  const contentType = uploadContentType(file.declaredType, file.filename);
  try {
    utf8.decode(file.bytes);
  } catch (error) {
    throw new InvalidRequestError('body: the file is not UTF-8 text (from a spreadsheet, save it as "CSV UTF-8")', { cause: error });
  }
  const key = `${uploadPrefix(accountId)}${deps.ids.next('upl')}.${EXTENSIONS[contentType]}`;
  await deps.objects.put(key, file.bytes, contentType);
  return { key, size: file.bytes.length, content_type: contentType, created_at: deps.clock.now().toISOString() };
}

/** Every key of the account's uploads starts with this. */
export const uploadPrefix = (accountId: string): string => `uploads/${accountId}/`;

/** A name storeUpload makes: an upload id and an extension, nothing that could be a path. */
const UPLOAD_NAME = /^upl_[0-9a-hjkmnp-tv-z]{26}\.(csv|txt|json)$/;

/**
 * Where a key a client hands back stands for this account: `outside` its prefix (another
 * account's, or no upload key at all), `unknown` inside it but not a name we make, or `own`.
 */
export function uploadKeyOwnedBy(accountId: string, key: string): 'own' | 'unknown' | 'outside' {
  const prefix = uploadPrefix(accountId);
  if (!key.startsWith(prefix)) return 'outside';
  return UPLOAD_NAME.test(key.slice(prefix.length)) ? 'own' : 'unknown';
}
