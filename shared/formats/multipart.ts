// multipart/form-data (RFC 7578) read from the raw request body: enough to take the file part of
// an upload from a browser form, curl -F or an HTTP client library. Bytes stay bytes throughout;
// a part's body is a view into the request buffer, never decoded.
import { InvalidRequestError } from '../errors';

export interface FormPart {
  /** The form field name from Content-Disposition. */
  name: string;
  /** Present when the part is a file (filename or filename* parameter). */
  filename?: string;
  contentType?: string;
  body: Buffer;
}

/** The request body is not multipart/form-data we can read. */
export class MalformedMultipartError extends InvalidRequestError {
  constructor(detail: string) {
    super(`body: ${detail}`);
    this.name = 'MalformedMultipartError';
  }
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const MAX_PARTS = 100;

/** Splits `type/subtype; a=1; b="x;y"` into the lower-cased type and its parameters (names lower-cased). */
export function parseHeaderParameters(value: string): { value: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  let i = value.indexOf(';');
  const head = (i < 0 ? value : value.slice(0, i)).trim().toLowerCase();
  while (i >= 0 && i < value.length) {
    i++; // past ';'
    while (value[i] === ' ' || value[i] === '\t') i++;
    const eq = value.indexOf('=', i);
    const semi = value.indexOf(';', i);
    if (eq < 0 || (semi >= 0 && semi < eq)) {
      i = semi; // a parameter without a value (or trailing ';'): skip it
      continue;
    }
    const name = value.slice(i, eq).trim().toLowerCase();
    i = eq + 1;
    while (value[i] === ' ' || value[i] === '\t') i++;
    let parsed = '';
    if (value[i] === '"') {
      i++;
      while (i < value.length && value[i] !== '"') {
        if (value[i] === '\\' && i + 1 < value.length) i++;
        parsed += value[i];
        i++;
      }
      i = value.indexOf(';', i);
    } else {
      const end = value.indexOf(';', i);
      parsed = (end < 0 ? value.slice(i) : value.slice(i, end)).trim();
      i = end;
    }
    if (name) params[name] = parsed;
  }
  return { value: head, params };
}

/** The boundary of a multipart/form-data Content-Type; MalformedMultipartError for anything else. */
export function boundaryOf(contentType: string | undefined): string {
  const { value, params } = parseHeaderParameters(contentType ?? '');
  if (value !== 'multipart/form-data') throw new MalformedMultipartError(`expected Content-Type multipart/form-data with a file part, got ${contentType ? `"${value}"` : 'none'}`);
  const boundary = params.boundary;
  if (!boundary || boundary.length > 70) throw new MalformedMultipartError('the multipart Content-Type has no usable boundary parameter');
  return boundary;
}

/** RFC 5987 ext-value (`UTF-8''logo%20one.svg`), as filename* carries it. */
function decodeExtValue(value: string): string {
  const m = /^([^']*)'[^']*'(.*)$/.exec(value);
  if (!m) return value;
  try {
    return decodeURIComponent(m[2] ?? '');
  } catch {
    return m[2] ?? '';
  }
}

function parsePartHeaders(block: string): FormPart | undefined {
  const headers = new Map<string, string>();
  for (const line of block.split('\r\n')) {
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MalformedMultipartError(`a part has a malformed header line "${line.slice(0, 80)}"`);
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get('content-disposition');
  if (!disposition) throw new MalformedMultipartError('a part has no Content-Disposition header');
  const { value, params } = parseHeaderParameters(disposition);
  if (value !== 'form-data') return undefined; // not a form field; RFC 7578 says to ignore it
  const filename = params['filename*'] !== undefined ? decodeExtValue(params['filename*']) : params.filename;
  return {
    name: params.name ?? '',
    ...(filename !== undefined ? { filename } : {}),
    ...(headers.has('content-type') ? { contentType: headers.get('content-type') } : {}),
    body: Buffer.alloc(0),
  };
}

/**
 * The parts of a multipart/form-data body. Accepts a preamble and an epilogue, transport padding
 * after a delimiter, and a quoted boundary; lines end in CRLF as RFC 2046 requires.
 */
export function parseMultipart(contentType: string | undefined, body: Buffer): FormPart[] {
  const boundary = boundaryOf(contentType);
  const delimiter = Buffer.from(`--${boundary}`);
  const nextDelimiter = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter opens the body or follows the preamble's last CRLF.
  let pos = body.subarray(0, delimiter.length).equals(delimiter) ? 0 : body.indexOf(nextDelimiter);
  if (pos < 0) throw new MalformedMultipartError('the body does not contain the multipart boundary');
  if (pos > 0) pos += CRLF.length;
  // A delimiter is the boundary line itself, so a match must end the line or close the body.
  const findDelimiter = (from: number): number => {
    for (let at = body.indexOf(nextDelimiter, from); at >= 0; at = body.indexOf(nextDelimiter, at + 1)) {
      const after = at + nextDelimiter.length;
      if (body[after] === 0x20 || body[after] === 0x09 || body[after] === 0x0d) return at;
      if (body[after] === 0x2d && body[after + 1] === 0x2d) return at;
    }
    return -1;
  };
  const parts: FormPart[] = [];
  for (;;) {
    pos += delimiter.length;
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return parts; // "--": the close delimiter
    while (body[pos] === 0x20 || body[pos] === 0x09) pos++; // transport padding
    if (body[pos] !== 0x0d || body[pos + 1] !== 0x0a) throw new MalformedMultipartError('a multipart boundary line does not end in CRLF');
    pos += CRLF.length;
    const end = findDelimiter(pos);
    if (end < 0) throw new MalformedMultipartError('the multipart body ends without its closing boundary');
    // A part without headers starts with the blank line at once.
    const headerEnd = body.subarray(pos, pos + 2).equals(CRLF) ? pos : body.indexOf(HEADER_END, pos);
    if (headerEnd < 0 || headerEnd > end) throw new MalformedMultipartError('a multipart part has no blank line after its headers');
    const part = parsePartHeaders(body.subarray(pos, headerEnd).toString('utf8'));
    const bodyStart = headerEnd === pos ? pos + CRLF.length : headerEnd + HEADER_END.length;
    if (part) parts.push({ ...part, body: body.subarray(bodyStart, end) });
    if (parts.length > MAX_PARTS) throw new MalformedMultipartError(`more than ${MAX_PARTS} multipart parts`);
    pos = end + CRLF.length;
  }
}

/**
 * The uploaded file: the first part carrying a filename. A part with an empty filename and no
 * content is what a browser sends for a file input left empty, so it does not count.
 */
export function firstFilePart(parts: readonly FormPart[]): FormPart {
  const file = parts.find((p) => p.filename !== undefined && (p.filename !== '' || p.body.length > 0));
  if (!file) throw new MalformedMultipartError('the multipart body has no file part (a part with a filename)');
  return file;
}
