// What one recorded AWS command costs in billing units: DynamoDB read and write request units
// (on-demand), SQS requests (64 KB chunks). Item sizes follow DynamoDB's documented rules; the
// inputs and outputs are the document client's plain values, as the tap records them.
import { table } from '../shared/db/keys';
import type { CommandRecord } from './aws-tap';

const utf8 = (s: string): number => Buffer.byteLength(s, 'utf8');

/** DynamoDB's size of one attribute value, in bytes. */
export function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    // About one byte per two significant digits, plus one.
    const digits = String(value).replace(/^-/, '').replace('.', '').replace(/e.*$/i, '').replace(/^0+/, '').replace(/0+$/, '');
    return Math.ceil(Math.max(1, digits.length) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce<number>((n, v) => n + valueSize(v), 0);
  // Lists and maps: 3 bytes, plus 1 byte per element, plus the elements (and a map's key names).
  if (Array.isArray(value)) return 3 + value.reduce<number>((n, v) => n + 1 + valueSize(v), 0);
  if (typeof value === 'object') {
    return 3 + Object.entries(value as Record<string, unknown>).reduce((n, [k, v]) => (v === undefined ? n : n + 1 + utf8(k) + valueSize(v)), 0);
  }
  return utf8(String(value));
}

/** Size of an item: attribute names plus values (undefined attributes are not stored). */
export function itemSize(item: Record<string, unknown> | undefined): number {
  if (!item) return 0;
  return Object.entries(item).reduce((n, [k, v]) => (v === undefined ? n : n + utf8(k) + valueSize(v)), 0);
}

const indexes = Object.values(table.indexes);
/** Index entries an item has: its projection is ALL, so each costs a write of the whole item. */
const indexEntries = (item: Record<string, unknown> | undefined): number =>
  item ? indexes.filter((i) => item[i.partitionKey] !== undefined && item[i.sortKey] !== undefined).length : 0;

const writeUnits = (item: Record<string, unknown> | undefined): number => Math.max(1, Math.ceil(itemSize(item) / 1024));
const readUnits = (bytes: number, consistent: boolean): number => Math.max(1, Math.ceil(bytes / 4096)) / (consistent ? 1 : 2);

export interface Units {
  /** Read request units. */
  rru: number;
  /** Write request units on the table. */
  wru: number;
  /** Write request units on global secondary indexes. */
  gsiWru: number;
  /** SQS requests (each 64 KB of payload counts as one). */
  sqsRequests: number;
  /** Items a batch command wrote or read (1 for single-item commands). */
  items: number;
  /** Sizes of the items written (bytes), for comparing with the benchmark's floor items. */
  writtenSizes: number[];
}

type Plain = Record<string, unknown>;

/**
 * Billing units of one command. Assumptions, all on the side of charging more: a write is charged
 * for the item after it (DynamoDB takes the larger of before and after; the sizes here barely
 * change), a failed conditional write for the item it tried to write, a key a read did not find
 * for one unit, and every index entry of a written item (projection ALL) for its full size.
 */
export function unitsOf(r: CommandRecord): Units {
  const out: Units = { rru: 0, wru: 0, gsiWru: 0, sqsRequests: 0, items: 1, writtenSizes: [] };
  const input = r.input;
  const output = r.output ?? {};
  if (r.service === 'SQS') {
    const entries = (input.Entries as Array<{ MessageBody?: string }> | undefined) ?? [];
    const payload = typeof input.MessageBody === 'string' ? utf8(input.MessageBody) : entries.reduce((n, e) => n + utf8(e.MessageBody ?? ''), 0);
    out.sqsRequests = Math.max(1, Math.ceil(payload / 65_536));
    out.items = r.command === 'ReceiveMessage' ? ((output.Messages as unknown[] | undefined) ?? []).length : Math.max(1, entries.length);
    return out;
  }
  if (r.service !== 'DynamoDB') return out;
  const write = (item: Plain | undefined, failed = false): void => {
    out.wru += writeUnits(item);
    out.writtenSizes.push(itemSize(item));
    if (!failed) out.gsiWru += indexEntries(item) * writeUnits(item);
  };
  switch (r.command) {
    case 'GetItem':
      out.rru = readUnits(itemSize(output.Item as Plain | undefined), input.ConsistentRead === true);
      break;
    case 'BatchGetItem': {
      const requested = Object.values((input.RequestItems as Record<string, { Keys: unknown[]; ConsistentRead?: boolean }>) ?? {});
      const consistent = requested.every((t) => t.ConsistentRead === true);
      const keyCount = requested.reduce((n, t) => n + t.Keys.length, 0);
      const unprocessed = Object.values((output.UnprocessedKeys as Record<string, { Keys: unknown[] }>) ?? {}).reduce((n, t) => n + t.Keys.length, 0);
      const found = Object.values((output.Responses as Record<string, Plain[]>) ?? {}).flat();
      out.rru = found.reduce((n, item) => n + readUnits(itemSize(item), consistent), 0) + (keyCount - unprocessed - found.length) * readUnits(0, consistent);
      out.items = keyCount - unprocessed;
      break;
    }
    case 'Query': {
      const items = (output.Items as Plain[] | undefined) ?? [];
      out.rru = readUnits(items.reduce((n, i) => n + itemSize(i), 0), input.ConsistentRead === true);
      out.items = items.length;
      break;
    }
    case 'PutItem':
      write(input.Item as Plain, r.error !== undefined);
      break;
    case 'UpdateItem':
      // ReturnValues ALL_NEW (Store.update always asks for it) gives the item after the update.
      write((output.Attributes as Plain | undefined) ?? (input.Key as Plain), r.error !== undefined);
      break;
    case 'DeleteItem':
      out.wru = 1;
      break;
    case 'BatchWriteItem': {
      const requests = Object.values((input.RequestItems as Record<string, Array<{ PutRequest?: { Item: Plain }; DeleteRequest?: unknown }>>) ?? {}).flat();
      // Items sent again later are charged when they are written (sizes are alike: count, not identity).
      const unprocessed = Object.values((output.UnprocessedItems as Record<string, unknown[]>) ?? {}).reduce((n, l) => n + l.length, 0);
      const done = requests.slice(0, requests.length - unprocessed);
      for (const q of done) {
        if (q.PutRequest) write(q.PutRequest.Item);
        else out.wru += 1;
      }
      out.items = done.length;
      break;
    }
    default:
      break;
  }
  return out;
}

export function addUnits(into: Units, from: Units): Units {
  into.rru += from.rru;
  into.wru += from.wru;
  into.gsiWru += from.gsiWru;
  into.sqsRequests += from.sqsRequests;
  into.items += from.items;
  into.writtenSizes.push(...from.writtenSizes);
  return into;
}

export const noUnits = (): Units => ({ rru: 0, wru: 0, gsiWru: 0, sqsRequests: 0, items: 0, writtenSizes: [] });
