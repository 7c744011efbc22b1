// An item's size as DynamoDB counts it, for what its writes and reads cost (a write unit per started
// KB, a read unit per started 4 KB): the send path sizes its status item with it, the benchmarks price
// every call with it.

/** DynamoDB's size of an attribute value in bytes (names and strings in UTF-8, numbers by digits). */
function storedValueBytes(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace('.', '').replace(/^0+/, '').length / 2) + 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce<number>((n, v) => n + storedValueBytes(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce<number>((n, v) => n + 1 + storedValueBytes(v), 0);
  if (typeof value === 'object') return 3 + storedItemBytes(value as Record<string, unknown>) + Object.keys(value as object).length;
  return 0;
}

/** An item's size as DynamoDB counts it: each attribute's name and value; absent values not stored. */
export function storedItemBytes(item: Record<string, unknown>): number {
  return Object.entries(item).reduce((n, [k, v]) => (v === undefined ? n : n + Buffer.byteLength(k, 'utf8') + storedValueBytes(v)), 0);
}
