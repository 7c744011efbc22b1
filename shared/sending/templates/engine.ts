// The template engine: Mustache (mustache 4.2.0), checked on write and rendered on send. Only this
// module knows Mustache. It is on the send path, so it must never import html-to-text or juice
// (the API bundles' budget, test/cdk/bundle-adapters.test.ts): the text part of a template that
// has none is made by the send worker from the rendered HTML (shared/sending/templates/text.ts).
import Mustache from 'mustache';
import { ApiError } from '../../errors';

/** A parsed template's tokens: [type, value, start, end, children?, …]. */
export type Token = [string, string, number, number, Token[]?, number?];

/** How much output one render may produce, and how many tokens it may visit (nested sections multiply both). */
export const MAX_RENDER_BYTES = 5 * 1024 * 1024;
export const MAX_RENDER_STEPS = 1_000_000;
/** Parsed templates kept per process, least recently used out first. */
const CACHE_ENTRIES = 200;

/**
 * A bounded cache of parsed templates (Mustache's own cache grows without bound). Mustache keys it
 * by the source text itself (plus the tags), partials included: a template version's content never
 * changes, so a version is parsed once per process, and a new version or an edited snippet is new
 * text, never served stale.
 */
class TokenCache {
  private readonly entries = new Map<string, unknown>();
  /** Lookups that found nothing: each is one parse. */
  misses = 0;
  get(key: string): unknown {
    const found = this.entries.get(key);
    if (found === undefined) this.misses++;
    else {
      this.entries.delete(key);
      this.entries.set(key, found);
    }
    return found;
  }
  set(key: string, value: unknown): void {
    this.entries.set(key, value);
    if (this.entries.size > CACHE_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
  }
  get size(): number {
    return this.entries.size;
  }
  clear(): void {
    this.entries.clear();
  }
}

const cache = new TokenCache();

/** The cache's size and how many parses it has let through: for tests and bench/benchmarks/templates.ts. */
export const templateCacheStats = (): { entries: number; parses: number } => ({ entries: cache.size, parses: cache.misses });

/** Empties the cache (the benchmark's uncached comparison). */
export const clearTemplateCache = (): void => cache.clear();

function newWriter(): Mustache.Writer {
  const writer = new Mustache.Writer();
  (writer as unknown as { templateCache: TokenCache }).templateCache = cache;
  return writer;
}

/** The 1-based line of a character index. */
export function lineAt(source: string, index: number): number {
  let line = 1;
  for (let i = 0; i < Math.min(index, source.length); i++) if (source.charCodeAt(i) === 10) line++;
  return line;
}

/** lineAt for many indexes of one source: the line starts found once, each lookup a binary search. */
export function lineFinder(source: string): (index: number) => number {
  const starts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  return (index) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= index) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** 400 invalid_template, naming the part, the line and the problem (which the preview lists one by one). */
export class InvalidTemplateError extends ApiError {
  constructor(
    readonly field: string,
    readonly line: number,
    readonly problem: string,
  ) {
    super('invalid_template', `${field} line ${line}: ${problem}`);
    this.name = 'InvalidTemplateError';
  }
}

const invalid = (field: string, line: number, problem: string): InvalidTemplateError => new InvalidTemplateError(field, line, problem);

/** Parses a template, turning Mustache's parse errors (character offsets) into invalid_template naming the line. */
export function parse(source: string, field: string): Token[] {
  try {
    return newWriter().parse(source) as Token[];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const unclosed = /^Unclosed section "(.*)" at (\d+)$/.exec(message);
    if (unclosed) {
      // Mustache reports where the template ended; the line that matters is where the section opened.
      const name = unclosed[1]!;
      const openings = [...source.matchAll(new RegExp(`\\{\\{\\s*[#^]\\s*${escapeRegExp(name)}\\s*\\}\\}`, 'g'))];
      const opened = openings.at(-1)?.index ?? Number(unclosed[2]);
      return thrown(invalid(field, lineAt(source, opened), `section "${name}" is opened and never closed`));
    }
    const unopened = /^Unopened section "(.*)" at (\d+)$/.exec(message);
    if (unopened) return thrown(invalid(field, lineAt(source, Number(unopened[2])), `section "${unopened[1]}" is closed but was never opened`));
    const at = /^(.*) at (\d+)$/.exec(message);
    if (at) return thrown(invalid(field, lineAt(source, Number(at[2])), at[1]!.toLowerCase()));
    throw invalid(field, 1, message.toLowerCase());
  }
}

const thrown = (error: Error): never => {
  throw error;
};

/** The top-level variable a tag name refers to (`user.name` → `user`); undefined for `.`. */
const variableOf = (name: string): string | undefined => (name === '.' ? undefined : name.split('.')[0]);

/** Each partial call (`{{> name }}`) of a part, anywhere in it (sections included), in order, with its line. Throws InvalidTemplateError when the part does not parse. */
export function partialCalls(source: string, field: string): { name: string; line: number }[] {
  const calls: { name: string; line: number }[] = [];
  const lineOf = lineFinder(source);
  const walk = (tokens: Token[]): void => {
    for (const token of tokens) {
      if (token[0] === '>') calls.push({ name: token[1], line: lineOf(token[2]) });
      if ((token[0] === '#' || token[0] === '^') && token[4]) walk(token[4]);
    }
  };
  walk(parse(source, field));
  return calls;
}

/** The partials (`{{> name }}`) a part calls, anywhere in it (sections included), lowercased: snippet names are case-insensitive. */
export function partialsOf(source: string, field: string): Set<string> {
  return new Set(partialCalls(source, field).map((call) => call.name.toLowerCase()));
}

/**
 * Checks one part of a template on write: it must parse, call only partials that are snippets of
 * the account (`snippets`, lowercased names; a part without `snippets` may call none), and, when `declared` is given, use
 * only declared variables. Names inside a `{{# section}}` may be fields of the section's items and
 * are not checked; names inside an inverted section are. Throws 400 invalid_template naming the
 * field, the line and the problem.
 */
export function checkTemplate(source: string, field: string, declared?: ReadonlySet<string>, snippets?: ReadonlySet<string>): void {
  const walk = (tokens: Token[], topLevel: boolean): void => {
    for (const token of tokens) {
      const [type, name, start] = token;
      if (type === '>' && !snippets) throw invalid(field, lineAt(source, start), `partial "${name}": only body_html and body_text may include snippets`);
      if (type === '>' && !snippets?.has(name.toLowerCase())) throw invalid(field, lineAt(source, start), `partial "${name}" is not a snippet of this account`);
      if (declared && topLevel && (type === 'name' || type === '&' || type === '#' || type === '^')) {
        const variable = variableOf(name);
        if (variable !== undefined && !declared.has(variable)) {
          throw invalid(field, lineAt(source, start), `variable "${variable}" is used but not listed in variables`);
        }
      }
      if ((type === '#' || type === '^') && token[4]) walk(token[4], topLevel && type === '^');
    }
  };
  walk(parse(source, field), true);
}

/**
 * Checks a snippet's part on write: it must parse and call no partial. Snippets do not nest, so
 * partials can never form a cycle and a template's snippets are exactly the partials it names.
 */
export function checkSnippet(source: string, field: string): void {
  const walk = (tokens: Token[]): void => {
    for (const token of tokens) {
      if (token[0] === '>') throw invalid(field, lineAt(source, token[2]), `partial "${token[1]}": a snippet cannot include another snippet`);
      if ((token[0] === '#' || token[0] === '^') && token[4]) walk(token[4]);
    }
  };
  walk(parse(source, field));
}

/** A render that could not finish: answered 422 template_error. */
export class TemplateRenderError extends ApiError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('template_error', message, options);
    this.name = 'TemplateRenderError';
  }
}

/**
 * Template variables as the engine sees them: a copy of the JSON with no prototypes, so a name can
 * reach only what the client sent (never `constructor`, `toString` or an array's methods, which
 * Mustache would call).
 */
export function toView(value: unknown): unknown {
  if (Array.isArray(value)) return Object.setPrototypeOf(value.map(toView), null);
  if (value !== null && typeof value === 'object') {
    const copy = Object.create(null) as Record<string, unknown>;
    for (const [k, v] of Object.entries(value)) copy[k] = toView(v);
    return copy;
  }
  return value;
}

const plain = (value: unknown): string => String(value);

/**
 * Renders one part. `html` escapes `{{ name }}` for HTML (`{{{ name }}}` never); subjects and text
 * parts are rendered without escaping. `view` must come from toView; `partials` gives a snippet's
 * body by its lowercased name (an unknown one stops the render). A render that produces more
 * than MAX_RENDER_BYTES or visits more than MAX_RENDER_STEPS tokens (sections nested over long
 * lists) stops with TemplateRenderError, as does anything else that throws while rendering.
 */
export function renderTemplate(
  source: string,
  view: unknown,
  field: string,
  options: { html: boolean; partials?: (name: string) => string | undefined },
): string {
  const writer = newWriter();
  let bytes = 0;
  let steps = 0;
  const produced = (value: string | undefined): string | undefined => {
    if (value !== undefined) {
      bytes += value.length;
      if (bytes > MAX_RENDER_BYTES) throw new TemplateRenderError(`${field}: rendering produced more than ${MAX_RENDER_BYTES} characters`);
    }
    return value;
  };
  const base = Mustache.Writer.prototype;
  const w = writer as unknown as Record<string, (...args: unknown[]) => unknown>;
  w.renderTokens = function (this: unknown, ...args: unknown[]) {
    steps += (args[0] as unknown[]).length;
    if (steps > MAX_RENDER_STEPS) throw new TemplateRenderError(`${field}: rendering took more than ${MAX_RENDER_STEPS} steps (sections nested over long lists)`);
    return (base.renderTokens as (...a: unknown[]) => unknown).apply(this, args);
  };
  for (const method of ['rawValue', 'escapedValue', 'unescapedValue'] as const) {
    const original = base[method] as (...a: unknown[]) => unknown;
    w[method] = function (this: unknown, ...args: unknown[]) {
      const value = original.apply(this, args);
      return produced(value === undefined || value === null ? undefined : String(value));
    };
  }
  try {
    const partials = options.partials;
    const lookup = partials
      ? (name: string): string => {
          const body = partials(name.toLowerCase());
          if (body === undefined) throw new TemplateRenderError(`${field}: partial "${name}" is not a snippet of this account`);
          return body;
        }
      : undefined;
    return writer.render(source, view, lookup, options.html ? undefined : { escape: plain });
  } catch (error) {
    if (error instanceof TemplateRenderError) throw error;
    throw new TemplateRenderError(`${field}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}
