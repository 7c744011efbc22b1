// A contact CSV read into rows (csv-parse): a header row naming the columns, then one contact a
// row. `email` is required; `first_name` and `last_name` are the contact's names; every other
// column goes to `data` under its header. Rows are numbered as a spreadsheet shows them: the
// header is row 1, and a field with a line break inside quotes does not start a new row.
//
// What a file gets wrong as a whole (no email column, a header twice, a quote never closed)
// refuses the whole import; what one row gets wrong refuses that row alone.
import { parse } from 'csv-parse/sync';
import { isValidAddress, normalizeAddress } from '../../formats/address';

// The contacts rules (issue 14: data ≤ 50 keys, ≤ 8 KB; names ≤ 200), as shared/audiences/contacts states them.
export const MAX_DATA_KEYS = 50;
export const MAX_DATA_BYTES = 8 * 1024;
export const MAX_NAME_LENGTH = 200;
const MAX_EMAIL_LENGTH = 320;
const DATA_KEY = /^(?!__proto__$)[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

/** One contact as a row gives it. Empty cells are absent: an import never clears a field. */
export interface ContactRow {
  email: string;
  first_name?: string;
  last_name?: string;
  /** Values as written: "00123" and "true" stay strings. */
  data: Record<string, string>;
}

export type CsvRow = { row: number; contact: ContactRow } | { row: number; error: string };

/** The file cannot be read as a contact CSV at all; the message says why and where. */
export class CsvFileError extends Error {
  constructor(
    /** The row the problem is on (1 for the header). */
    readonly row: number,
    detail: string,
    options: { cause?: unknown } = {},
  ) {
    super(`row ${row}: ${detail}`, options);
    this.name = 'CsvFileError';
  }
}

type Column = { kind: 'email' } | { kind: 'first_name' } | { kind: 'last_name' } | { kind: 'data'; key: string };

const RESERVED: Record<string, Column['kind']> = { email: 'email', first_name: 'first_name', last_name: 'last_name' };

/** The columns the header names; CsvFileError for a header the import cannot use. */
function columnsOf(header: readonly string[]): Column[] {
  const seen = new Map<string, number>();
  const columns = header.map((raw, i): Column => {
    const name = raw.trim();
    const at = i + 1;
    if (name === '') throw new CsvFileError(1, `column ${at} has no name; every column needs a header`);
    const reserved = RESERVED[name.toLowerCase()];
    const id = reserved ?? name;
    const earlier = seen.get(id.toLowerCase());
    if (earlier !== undefined) throw new CsvFileError(1, `the header "${name}" appears twice (columns ${earlier} and ${at})`);
    seen.set(id.toLowerCase(), at);
    if (reserved) return { kind: reserved } as Column;
    if (!DATA_KEY.test(name)) {
      throw new CsvFileError(1, `column ${at} "${name.slice(0, 80)}" cannot be a data key: 1 to 64 letters, digits, _ or -, starting with a letter or _`);
    }
    return { kind: 'data', key: name };
  });
  if (!columns.some((c) => c.kind === 'email')) throw new CsvFileError(1, 'the header has no "email" column');
  const dataColumns = columns.filter((c) => c.kind === 'data').length;
  if (dataColumns > MAX_DATA_KEYS) throw new CsvFileError(1, `${dataColumns} data columns; a contact holds at most ${MAX_DATA_KEYS} data keys`);
  return columns;
}

/** A row's contact, or what is wrong with it. */
function contactOf(columns: readonly Column[], fields: readonly string[]): ContactRow | string {
  if (fields.length > columns.length) return `${fields.length} fields, but the header names ${columns.length} columns`;
  const contact: ContactRow = { email: '', data: {} };
  for (const [i, column] of columns.entries()) {
    const value = fields[i] ?? ''; // a spreadsheet drops trailing empty cells
    if (column.kind === 'email') contact.email = normalizeAddress(value);
    else if (column.kind === 'data') {
      if (value !== '') contact.data[column.key] = value;
    } else {
      const name = value.trim();
      if (name.length > MAX_NAME_LENGTH) return `${column.kind} is longer than ${MAX_NAME_LENGTH} characters`;
      if (name !== '') contact[column.kind] = name;
    }
  }
  if (contact.email === '') return 'email is empty';
  if (contact.email.length > MAX_EMAIL_LENGTH || !isValidAddress(contact.email)) return `"${contact.email.slice(0, 100)}" is not a valid email address`;
  if (Buffer.byteLength(JSON.stringify(contact.data), 'utf8') > MAX_DATA_BYTES) return `data is larger than ${MAX_DATA_BYTES} bytes as JSON`;
  return contact;
}

function parseRecords(bytes: Buffer, toRow?: number): string[][] {
  try {
    // No empty-line skipping: a blank line is a row a spreadsheet shows, so numbering stays true.
    return parse(bytes, { bom: true, relax_column_count: true, skip_empty_lines: false, ...(toRow ? { to: toRow } : {}) }) as string[][];
  } catch (error) {
    const { records, message } = error as { records?: number; message?: string };
    throw new CsvFileError(typeof records === 'number' ? records + 1 : 1, message ?? 'the file is not valid CSV', { cause: error });
  }
}

/**
 * The data rows of the file, numbered; blank rows are left out. `toRow` stops reading after that
 * row (an import's later chunks need not be parsed yet), so a syntax error past it is not seen.
 */
export function readContactCsv(bytes: Buffer, options: { toRow?: number } = {}): CsvRow[] {
  const records = parseRecords(bytes, options.toRow);
  const [header, ...body] = records;
  if (!header || header.every((f) => f.trim() === '')) throw new CsvFileError(1, 'the file has no header row');
  const columns = columnsOf(header);
  const rows: CsvRow[] = [];
  body.forEach((fields, i) => {
    if (fields.every((f) => f.trim() === '')) return;
    const row = i + 2;
    const contact = contactOf(columns, fields);
    rows.push(typeof contact === 'string' ? { row, error: contact } : { row, contact });
  });
  return rows;
}
