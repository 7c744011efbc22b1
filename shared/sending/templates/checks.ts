// The template preview's checks (shared/sending/templates/preview.ts), which the gallery's tests apply to
// every built-in template: what breaks in mail clients, which variables a template uses and which
// of them a render would leave empty. Pure functions: no I/O, no state; templates are parsed with
// the engine's bounded cache.
import { lineFinder, MAX_RENDER_STEPS, parse, type Token } from './engine';

/** Gmail clips a message body larger than 102 KB behind a "View entire message" link. */
export const GMAIL_CLIP_BYTES = 102 * 1024;

export type MailClientWarningCode = 'missing_text_part' | 'image_missing_alt' | 'script_tag' | 'body_too_large';

export interface MailClientWarning {
  readonly code: MailClientWarningCode;
  readonly message: string;
  /** 1-based line in the HTML, where the problem has one. */
  readonly line?: number;
}

// A tag with its attributes; a quoted attribute value may hold '>'.
const IMG_TAG = /<img\b(?:[^>"']|"[^"]*"|'[^']*')*>/gi;
const ALT_ATTRIBUTE = /\salt(?=[\s=/>])/i;
const SCRIPT_TAG = /<script\b/gi;

/** Elements of this HTML that mail clients handle badly (images without alt text, scripts), each with its line. */
export function markupWarnings(html: string): MailClientWarning[] {
  const warnings: MailClientWarning[] = [];
  const lineAt = lineFinder(html);
  for (const m of html.matchAll(IMG_TAG)) {
    if (!ALT_ATTRIBUTE.test(m[0])) {
      warnings.push({ code: 'image_missing_alt', message: 'An image has no alt attribute; screen readers and clients that block images show nothing for it.', line: lineAt(m.index) });
    }
  }
  for (const m of html.matchAll(SCRIPT_TAG)) {
    warnings.push({ code: 'script_tag', message: 'A <script> element: mail clients strip scripts and spam filters score them.', line: lineAt(m.index) });
  }
  return warnings;
}

/** An HTML body past Gmail's clipping size, or undefined. */
export function sizeWarning(html: string): MailClientWarning | undefined {
  const bytes = Buffer.byteLength(html, 'utf8');
  if (bytes <= GMAIL_CLIP_BYTES) return undefined;
  return { code: 'body_too_large', message: `The HTML body is ${(bytes / 1024).toFixed(1)} KB; Gmail clips bodies over 102 KB.` };
}

/** What in this HTML (and its text part) breaks or degrades in common mail clients. */
export function mailClientWarnings(html: string, text?: string | null): MailClientWarning[] {
  const warnings: MailClientWarning[] = [];
  if (text === undefined || text === null || text.trim() === '') {
    warnings.push({ code: 'missing_text_part', message: 'The message has no plain-text part; some clients and spam filters expect one.' });
  }
  warnings.push(...markupWarnings(html));
  const size = sizeWarning(html);
  if (size) warnings.push(size);
  return warnings;
}

/** The parts of a template that Mustache renders. */
export interface TemplateSource {
  readonly subject?: string | null;
  readonly body_html?: string | null;
  readonly body_text?: string | null;
  readonly variables?: readonly { readonly name: string; readonly default_value?: string | null }[];
}

export type TemplateField = 'subject' | 'body_html' | 'body_text';
const FIELDS: readonly TemplateField[] = ['subject', 'body_html', 'body_text'];

export interface VariableUse {
  readonly name: string;
  /** The part it is used in, or `snippets.<name>` for a snippet the template includes. */
  readonly field: string;
  /** 1-based line of its first use in that part. */
  readonly line: number;
}

const isVariable = (type: string): boolean => type === 'name' || type === '&' || type === '{' || type === '#' || type === '^';
const rootName = (value: string): string => value.split('.')[0] ?? value;

/**
 * The top-level variables a template uses, in order of first use: names outside any section and
 * the names of sections themselves (a dotted name counts as its first part). Names inside a
 * section belong to that section's items (Mustache looks them up there first), so they are not
 * listed here; `unresolvedVariables` checks them against real values. Throws InvalidTemplateError
 * for a part that does not parse.
 */
export function usedVariables(template: TemplateSource): VariableUse[] {
  const seen = new Map<string, VariableUse>();
  for (const field of FIELDS) {
    const source = template[field];
    if (!source) continue;
    const lineAt = lineFinder(source);
    for (const token of parse(source, field)) {
      if (!isVariable(token[0]) || token[1] === '.') continue;
      const name = rootName(token[1]);
      if (!seen.has(name)) seen.set(name, { name, field, line: lineAt(token[2]) });
    }
  }
  return [...seen.values()];
}

/** Mustache's lookup: the innermost context in which the whole dotted path resolves. */
function lookup(stack: readonly unknown[], name: string): { found: boolean; value: unknown } {
  if (name === '.') return { found: true, value: stack[stack.length - 1] };
  const parts = name.split('.');
  for (let i = stack.length - 1; i >= 0; i--) {
    let value: unknown = stack[i];
    let found = true;
    for (const part of parts) {
      if (value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, part)) value = (value as Record<string, unknown>)[part];
      else {
        found = false;
        break;
      }
    }
    if (found) return { found: true, value };
  }
  return { found: false, value: undefined };
}

const hasValue = (r: { found: boolean; value: unknown }): boolean => r.found && r.value !== undefined && r.value !== null;

/**
 * Variables a render with these values would leave without a value: used by the template (walking
 * sections as Mustache does, each list item in turn, and into the partials `partials` gives, by
 * lowercased name) with nothing in `vars` and no default. One entry per name, at its first use.
 * The walk stops after as many steps as a render may take (MAX_RENDER_STEPS), where a render would
 * fail. Throws InvalidTemplateError for a part or snippet that does not parse.
 */
export function unresolvedVariables(
  template: TemplateSource,
  vars: Readonly<Record<string, unknown>>,
  partials?: (lowerName: string) => string | undefined,
): VariableUse[] {
  const root: Record<string, unknown> = {};
  for (const v of template.variables ?? []) if (v.default_value !== undefined && v.default_value !== null) root[v.name] = v.default_value;
  Object.assign(root, vars);
  const missing = new Map<string, VariableUse>();
  let steps = 0;

  const walk = (tokens: readonly Token[], stack: readonly unknown[], field: string, lineAt: (index: number) => number): void => {
    for (const token of tokens) {
      if (++steps > MAX_RENDER_STEPS) return;
      const [type, name] = token;
      if (type === '>') {
        const body = partials?.(name.toLowerCase());
        const partField = `snippets.${name.toLowerCase()}`;
        if (body !== undefined) walk(parse(body, partField), stack, partField, lineFinder(body));
        continue;
      }
      if (!isVariable(type)) continue;
      const found = lookup(stack, name);
      const children = token[4] ?? [];
      if (!hasValue(found)) {
        if (!missing.has(name)) missing.set(name, { name, field, line: lineAt(token[2]) });
        // An inverted section still renders when its value is missing.
        if (type === '^') walk(children, stack, field, lineAt);
        continue;
      }
      const value = found.value;
      if (type === '#') {
        if (Array.isArray(value)) for (const item of value) walk(children, [...stack, item], field, lineAt);
        else if (typeof value === 'function') continue;
        else if (typeof value === 'object') walk(children, [...stack, value], field, lineAt);
        else if (value) walk(children, stack, field, lineAt);
      } else if (type === '^') {
        if (!value || (Array.isArray(value) && value.length === 0)) walk(children, stack, field, lineAt);
      }
    }
  };

  for (const field of FIELDS) {
    const source = template[field];
    if (source) walk(parse(source, field), [root], field, lineFinder(source));
  }
  return [...missing.values()];
}
