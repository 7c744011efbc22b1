// dynalite parses every expression a request carries (UpdateExpression, ConditionExpression,
// KeyConditionExpression, FilterExpression, ProjectionExpression) with a PEG parser, afresh on each
// request: for the store's most frequent requests (the rate limiter's conditional update, the
// claims' conditional puts, the queries) the parse is the largest piece of the store's own work.
// The application sends the same few expressions again and again with other values, so
// parseExpressionsOnce keeps each parse as a template, keyed by what the parse depends on: the
// parser, the expression, whether it is a key condition, the attribute names and the types of the
// attribute values. A later request with the same key gets a copy of the template holding its own
// values, and marks the same names and values used (dynalite refuses a request whose names or
// values go unused), exactly as a parse would have. Two checks read the values themselves, not only
// their types (BETWEEN's bounds, attribute_type's type name): an expression with either is parsed
// every time. Errors are never kept: a request that fails to parse fails as before.
//
// Applied in the emulator worker thread (emulator-thread.mjs) before dynalite serves a request;
// node_modules is not patched. Plain JavaScript: tsx's loader does not reach worker threads.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Templates kept; when full, the oldest half is dropped (the application's expressions are far fewer). */
const MAX_TEMPLATES = 2_000;
/** Expressions whose parse reads the values' contents, not only their types. */
const READS_VALUES = /between|attribute_type/i;
const patched = Symbol('postbox.parseExpressionsOnce');

/** A value's place in a template: the name of the attribute value it was. */
class Slot {
  constructor(name) {
    this.name = name;
  }
}

/** A copy of a parse tree in which each node `swap` answers for (anything but undefined) is replaced by that answer. */
function copyTree(node, swap) {
  if (node === null || typeof node !== 'object') return node;
  const swapped = swap(node);
  if (swapped !== undefined) return swapped;
  if (Array.isArray(node)) return node.map((n) => copyTree(n, swap));
  const out = {};
  for (const key of Object.keys(node)) out[key] = copyTree(node[key], swap);
  return out;
}

/** The parse with every attribute value object (by identity) replaced by its Slot. */
const toTemplate = (parse, slots) => copyTree(parse, (node) => slots.get(node));

/** A fresh copy of a template holding this request's values. */
const instantiate = (template, values) => copyTree(template, (node) => (node instanceof Slot ? values[node.name] : undefined));

/** The type of each attribute value (S, N, SS, …), in the request's order. */
function valueTypes(values) {
  if (!values) return '';
  let out = '';
  for (const name of Object.keys(values)) {
    const value = values[name];
    out += `${name}=${value && typeof value === 'object' ? Object.keys(value).join('+') : typeof value};`;
  }
  return out;
}

function cachingParse(kind, parse) {
  const templates = new Map();
  return function parseOnce(input, options) {
    const context = options?.context;
    if (typeof input !== 'string' || !context || READS_VALUES.test(input)) return parse(input, options);
    const names = context.attrNames ?? {};
    const values = context.attrVals ?? {};
    const key = `${kind}\u0000${context.isKeyCondition ? 1 : 0}\u0000${input}\u0000${JSON.stringify(names)}\u0000${valueTypes(values)}`;
    const kept = templates.get(key);
    if (kept) {
      for (const name of kept.usedNames) delete context.unusedAttrNames?.[name];
      for (const name of kept.usedValues) delete context.unusedAttrVals?.[name];
      return instantiate(kept.template, values);
    }
    // Parsed against every name and value marked unused, to learn which this expression uses (an
    // earlier expression of the same request may have marked some used already).
    const unusedNames = Object.fromEntries(Object.keys(names).map((n) => [n, true]));
    const unusedValues = Object.fromEntries(Object.keys(values).map((n) => [n, true]));
    const result = parse(input, { ...options, context: { ...context, unusedAttrNames: unusedNames, unusedAttrVals: unusedValues } });
    const usedNames = Object.keys(names).filter((n) => !(n in unusedNames));
    const usedValues = Object.keys(values).filter((n) => !(n in unusedValues));
    for (const name of usedNames) delete context.unusedAttrNames?.[name];
    for (const name of usedValues) delete context.unusedAttrVals?.[name];
    if (result === null || typeof result !== 'object') return result; // an error message: never kept
    if (templates.size >= MAX_TEMPLATES) for (const old of [...templates.keys()].slice(0, MAX_TEMPLATES / 2)) templates.delete(old);
    const slots = new Map(Object.keys(values).map((n) => [values[n], new Slot(n)]));
    templates.set(key, { template: toTemplate(result, slots), usedNames, usedValues });
    return result;
  };
}

/** Keeps dynalite's expression parses as templates (see above), as dynalite resolves its parsers; idempotent. */
export function parseExpressionsOnce() {
  const fromDynalite = createRequire(require.resolve('dynalite'));
  for (const kind of ['conditionParser', 'updateParser', 'projectionParser']) {
    const parser = fromDynalite(`./db/${kind}`);
    if (parser[patched]) continue;
    parser.parse = cachingParse(kind, parser.parse);
    Object.defineProperty(parser, patched, { value: true });
  }
}
