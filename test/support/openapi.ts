// Reading the OpenAPI document (docs/openapi.json) in tests: its operations, `$ref`s into its
// components, the fixtures its examples name, and validators of answers against its schemas.
// test/unit/openapi.test.ts checks the document itself; test/e2e/openapi-contract.test.ts replays
// its examples against the local runtime.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020';

export type Json = Record<string, any>;

/**
 * The fixtures an example may name as `{{name}}`: the contract test makes each fresh for the
 * example that names it (one value per name and example, so `{{message_id}}` and
 * `{{idempotency_key}}` in one example are the same message). Nothing else exists.
 */
export const fixtureNames = [
  'unique',
  'owner_email',
  'spare_key_id',
  'message_id',
  'idempotency_key',
  'scheduled_message_id',
  'domain',
  'webhook_id',
  'test_recipient_id',
  'broadcast_id',
  'draft_broadcast_id',
  'account_id',
  'suppressed_email',
  'template_id',
  'snippet_id',
  'contact_id',
  'contact_email',
  'list_id',
  'dynamic_list_id',
  'member_id',
  'upload_key',
  'import_id',
  'unsubscribe_token',
  'form_id',
  'inbound_domain',
  'inbound_route_id',
  'capped_key_id',
] as const;
export type FixtureName = (typeof fixtureNames)[number];

/** The credentials an example may ask for with `as`. */
export const credentialNames = ['admin', 'send', 'read', 'test', 'staff', 'none'] as const;
export type CredentialName = (typeof credentialNames)[number];

export interface Example {
  name: string;
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  status: number;
  as?: CredentialName;
}

export interface Operation {
  path: string;
  /** Lower case, as the document keys it. */
  method: string;
  op: Json;
  /** `METHOD /path`, as functions/manifest.ts and the contracts key routes. */
  key: string;
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Every operation of the document, in its path order. */
export function operationsOf(doc: Json): Operation[] {
  return Object.entries((doc.paths ?? {}) as Record<string, Json>).flatMap(([path, item]) =>
    HTTP_METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] as Json, key: `${method.toUpperCase()} ${path}` })),
  );
}

export const examplesOf = (op: Json): Example[] => (op['x-postbox-examples'] ?? []) as Example[];

/**
 * A fixture is named `{{name}}`, lowercase and without spaces: a Mustache tag in an example (a
 * template body) is written with spaces, `{{ first_name }}`, and is left alone.
 */
const FIXTURE = /\{\{([a-z][a-z0-9_]*)\}\}/g;

/** The `{{name}}`s a value names, anywhere inside it (strings, array items, object values). */
export function fixturesIn(value: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === 'string') for (const m of v.matchAll(FIXTURE)) found.add(m[1]!);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(value);
  return [...found];
}

/** Replaces every `{{name}}` in strings inside `value` with `values[name]`. */
export function substitute<T>(value: T, values: Record<string, string>): T {
  if (typeof value === 'string') return value.replace(FIXTURE, (_, name: string) => values[name] ?? `{{${name}}}`) as T;
  if (Array.isArray(value)) return value.map((v) => substitute(v, values)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, values)])) as T;
  return value;
}

/** The object a local `$ref` (`#/components/…`) points to; other objects as they are. */
export function deref(doc: Json, value: Json): Json {
  let current = value;
  for (let hops = 0; typeof current?.$ref === 'string'; hops++) {
    const ref = current.$ref as string;
    if (!ref.startsWith('#/') || hops > 20) throw new Error(`cannot follow $ref ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<any>((node, part) => node?.[part], doc);
    if (current === undefined) throw new Error(`$ref ${ref} points to nothing in the document`);
  }
  return current;
}

/** The `{name}`s of a path template. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

/** The error codes an error response documents (its envelope's `error.code` enum). */
export function documentedCodes(doc: Json, response: Json): { codes: string[]; status: unknown } {
  const schema = deref(doc, deref(doc, response).content?.['application/json']?.schema ?? {});
  const error = deref(doc, schema.properties?.error ?? {});
  const code = deref(doc, error.properties?.code ?? {});
  const status = deref(doc, error.properties?.status ?? {});
  return { codes: (code.enum ?? (code.const !== undefined ? [code.const] : [])) as string[], status: status.const };
}

const DOC_ID = 'urn:postbox:openapi';

/** Points the document's own `#/components/…` refs at the document, so a schema compiled on its own still resolves them. */
function anchorRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(anchorRefs);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && v.startsWith('#/components/') ? `${DOC_ID}${v}` : anchorRefs(v)]),
  );
}

/**
 * JSON Schema 2020-12 validators for the document's schemas (ajv's Ajv2020, OpenAPI 3.1's dialect).
 * A schema is compiled on its own, with `#/components/…` resolving into the document's components.
 */
export function schemaValidator(doc: Json): (schema: Json) => ValidateFunction {
  // Formats are not checked: ajv knows none without ajv-formats, which is not a dependency.
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, validateSchema: false });
  ajv.addSchema({ $id: DOC_ID, components: anchorRefs(doc.components ?? {}) } as Json);
  const cache = new Map<Json, ValidateFunction>();
  return (schema) => {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile(anchorRefs(schema) as Json);
      cache.set(schema, validate);
    }
    return validate;
  };
}
