// JSON request bodies within the bounds every later step can handle. JSON.parse itself copes with
// any depth, but the recursion after it (validation, canonical digests, the store's marshalling)
// does not, and a number like 1e999 parses to Infinity, which no later step can store or print.
import { InvalidRequestError } from '../errors';

/** Deeper than any body the API defines (metadata is at most a few levels). */
export const MAX_JSON_DEPTH = 32;

/** Parses a JSON body; 400 invalid_request for malformed JSON, too deep a value or a non-finite number. */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw new InvalidRequestError('body: malformed JSON', { cause: error });
  }
  // An explicit stack: the check must not itself recurse on the value it is guarding against.
  const stack: Array<{ value: unknown; depth: number; path: string }> = [{ value, depth: 0, path: 'body' }];
  while (stack.length > 0) {
    const { value: current, depth, path } = stack.pop()!;
    if (typeof current === 'number' && !Number.isFinite(current)) {
      throw new InvalidRequestError(`${path}: number out of range`);
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) throw new InvalidRequestError(`${path}: nested deeper than ${MAX_JSON_DEPTH} levels`);
    if (Array.isArray(current)) current.forEach((v, i) => stack.push({ value: v, depth: depth + 1, path: `${path}[${i}]` }));
    else for (const [k, v] of Object.entries(current)) stack.push({ value: v, depth: depth + 1, path: `${path}.${k}` });
  }
  return value;
}
