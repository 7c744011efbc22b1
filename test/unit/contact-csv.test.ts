// shared/audiences/imports/csv.ts: a contact CSV read with csv-parse into numbered rows; the header's rules
// refuse the file, a row's problems refuse the row.
import { describe, expect, it } from 'vitest';
import { CsvFileError, readContactCsv } from '../../shared/audiences/imports/csv';

const read = (text: string, options?: { toRow?: number }) => readContactCsv(Buffer.from(text, 'utf8'), options);
const refusal = (text: string): string => {
  try {
    read(text);
  } catch (error) {
    expect(error).toBeInstanceOf(CsvFileError);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
};

describe('readContactCsv', () => {
  it('reads email, names and every other column into data, numbering rows as a spreadsheet does', () => {
    expect(read('email,first_name,last_name,plan,zip\nAda@Example.com ,Ada, Lovelace ,pro,00123\n')).toEqual([
      { row: 2, contact: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', data: { plan: 'pro', zip: '00123' } } },
    ]);
  });

  it('drops a byte order mark and takes CRLF line ends', () => {
    const rows = read('\ufeffemail,first_name\r\nada@example.com,Ada\r\nbob@example.com,Bob\r\n');
    expect(rows.map((r) => ('contact' in r ? r.contact.email : r.error))).toEqual(['ada@example.com', 'bob@example.com']);
    expect(rows.map((r) => r.row)).toEqual([2, 3]);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks; a multi-line field is one row', () => {
    const rows = read('email,note,city\n"ada@example.com","says ""hi"", twice","line one\nline two"\nbob@example.com,plain,Paris\n');
    expect(rows).toEqual([
      { row: 2, contact: { email: 'ada@example.com', data: { note: 'says "hi", twice', city: 'line one\nline two' } } },
      { row: 3, contact: { email: 'bob@example.com', data: { note: 'plain', city: 'Paris' } } },
    ]);
  });

  it('keeps data values as written: numbers and booleans stay strings; empty cells are left out', () => {
    expect(read('email,age,vip,empty\nada@example.com,36,true,\n')).toEqual([{ row: 2, contact: { email: 'ada@example.com', data: { age: '36', vip: 'true' } } }]);
  });

  it('matches email, first_name and last_name case-insensitively; data keys keep their case', () => {
    expect(read('EMAIL,First_Name,Plan\nada@example.com,Ada,pro\n')).toEqual([{ row: 2, contact: { email: 'ada@example.com', first_name: 'Ada', data: { Plan: 'pro' } } }]);
  });

  it('skips blank rows but counts them in the numbering', () => {
    expect(read('email\n\nada@example.com\n , \n\nbob@example.com').map((r) => r.row)).toEqual([3, 6]);
  });

  it('reports bad rows with their numbers and keeps the good ones', () => {
    const rows = read('email,first_name,plan\nada@example.com,Ada\nnot-an-address,Bob\n,Carol\ndan@example.com,Dan,pro,extra\n');
    expect(rows).toEqual([
      { row: 2, contact: { email: 'ada@example.com', first_name: 'Ada', data: {} } },
      { row: 3, error: '"not-an-address" is not a valid email address' },
      { row: 4, error: 'email is empty' },
      { row: 5, error: '4 fields, but the header names 3 columns' },
    ]);
  });

  it('refuses a name over 200 characters and data over 8 KB in that row alone', () => {
    const rows = read(`email,first_name,bio\na@example.com,${'x'.repeat(201)},\nb@example.com,,${'y'.repeat(8200)}\nc@example.com,,\n`);
    expect(rows.map((r) => ('error' in r ? r.error : 'ok'))).toEqual(['first_name is longer than 200 characters', 'data is larger than 8192 bytes as JSON', 'ok']);
  });

  it('refuses the file without an email column, with a header twice, an unnamed column or an unusable data key', () => {
    expect(refusal('name,plan\nAda,pro\n')).toBe('row 1: the header has no "email" column');
    expect(refusal('email,plan,Email\na@example.com,pro,b@example.com\n')).toBe('row 1: the header "Email" appears twice (columns 1 and 3)');
    expect(refusal('email,plan,plan\n')).toBe('row 1: the header "plan" appears twice (columns 2 and 3)');
    expect(refusal('email,,plan\n')).toBe('row 1: column 2 has no name; every column needs a header');
    expect(refusal('email,Phone Number\n')).toMatch(/^row 1: column 2 "Phone Number" cannot be a data key/);
    expect(refusal('')).toBe('row 1: the file has no header row');
  });

  it('refuses more than 50 data columns', () => {
    const header = ['email', ...Array.from({ length: 51 }, (_, i) => `c${i}`)].join(',');
    expect(refusal(`${header}\n`)).toBe('row 1: 51 data columns; a contact holds at most 50 data keys');
  });

  it('refuses a file whose quoting is broken, naming the row', () => {
    expect(refusal('email,note\na@example.com,ok\nb@example.com,"never closed\nc@example.com,x\n')).toMatch(/^row 3: Quote Not Closed/);
    expect(refusal('email,note\na@example.com,"bad"quote\n')).toMatch(/^row 2: Invalid Closing Quote/);
  });

  it('stops reading after toRow', () => {
    expect(read('email\na@example.com\nb@example.com\n"broken\n', { toRow: 3 }).map((r) => r.row)).toEqual([2, 3]);
  });
});
