// What a template looks like as mailed, before a send: POST /v1/templates/preview (a template that
// is not stored, checked problem by problem) and POST /v1/templates/{id}/render (a stored one).
// Both show the HTML with its CSS inlined and the text part a send would carry, so they import
// juice and html-to-text (shared/sending/templates/text.ts) and live in a function of their own
// (functions/template-render), away from the send and templates APIs.
import type { Store } from '../../db/store';
import { markupWarnings, sizeWarning, unresolvedVariables, type TemplateField } from './checks';
import { InvalidTemplateError, partialCalls, renderTemplate, TemplateRenderError, toView } from './engine';
import { ownedTemplate, renderContent, snippetPartials } from './render';
import { unpackContent } from './repository';
import type { PreviewProblem, PreviewTemplateBody, PreviewView, RenderedView } from './schemas';
import { SnippetRepository } from './snippets-repository';
import { asMailed, inlineStyles, textOfHtml } from './text';
import { MAX_SNIPPETS_PER_TEMPLATE } from './usage';

/** Each of `warnings` and `errors` lists at most this many problems (the first ones, by part and line). */
export const MAX_PROBLEMS = 100;

/** A snippet's bodies, as a partial of the HTML and of the text part. */
export interface SnippetBodies {
  html: string;
  text: string | null;
}

/**
 * POST /v1/templates/{id}/render: the current version rendered with `vars` (defaults, then
 * samples, fill what they leave out) and finished as a send finishes it: CSS inlined, and a text
 * part made from the HTML when the template has none.
 */
export async function renderAsMailed(store: Store, accountId: string, templateId: string, vars: Record<string, unknown>): Promise<RenderedView> {
  const item = await ownedTemplate(store, accountId, templateId);
  const rendered = renderContent(unpackContent(item.content_gz), vars, { samples: true, partials: await snippetPartials(store, item) });
  const mailed = asMailed(rendered.body_html, rendered.body_text);
  return { subject: rendered.subject, body_html: mailed.html, body_text: mailed.text };
}

/**
 * POST /v1/templates/preview: stores nothing; the account's snippets are its partials. Answers
 * even when the template is broken: what a write or a send would refuse is in `errors`, what
 * renders but may surprise in `warnings`.
 */
export async function previewTemplate(store: Store, accountId: string, body: PreviewTemplateBody): Promise<PreviewView> {
  const names = new Set<string>();
  for (const [field, source] of [['body_html', body.body_html], ['body_text', body.body_text]] as const) {
    if (!source) continue;
    try {
      for (const call of partialCalls(source, field)) names.add(call.name.toLowerCase());
    } catch (error) {
      if (!(error instanceof InvalidTemplateError)) throw error;
      // previewContent lists it.
    }
  }
  // Beyond the limit, the names past it are not looked up: previewContent reports the excess.
  return previewContent(body, await snippetsNamed(store, accountId, [...names].slice(0, MAX_SNIPPETS_PER_TEMPLATE)));
}

/** The account's snippets with these lowercased names (those that exist), by name. */
async function snippetsNamed(store: Store, accountId: string, names: readonly string[]): Promise<Map<string, SnippetBodies>> {
  const snippets = new SnippetRepository(store);
  const found = await Promise.all(
    names.map(async (name) => {
      const claim = await snippets.nameItem(accountId, name);
      const item = claim ? await snippets.get(accountId, claim.snippet_id) : undefined;
      // A claim left by a rename that died half-way names a snippet that holds another name now.
      return item && item.name.toLowerCase() === name ? ([name, { html: item.body_html, text: item.body_text ?? null }] as const) : undefined;
    }),
  );
  return new Map(found.filter((entry) => entry !== undefined));
}

type Sources = Record<TemplateField, string | null>;
type Partial = (name: string) => string | undefined;
const FIELDS = ['subject', 'body_html', 'body_text'] as const;

/** The preview itself, given the snippets its bodies call: pure, so the gallery's tests run it too. */
export function previewContent(input: PreviewTemplateBody, snippets: ReadonlyMap<string, SnippetBodies>): PreviewView {
  const errors: PreviewProblem[] = [];
  const warnings: PreviewProblem[] = [];
  const vars = input.variables ?? {};
  const sources: Sources = { subject: input.subject, body_html: input.body_html, body_text: input.body_text ?? null };
  const htmlPartial: Partial = (name) => snippets.get(name)?.html;
  const textPartial: Partial = (name) => {
    const snippet = snippets.get(name);
    return snippet ? (snippet.text ?? snippet.html) : undefined;
  };

  const { parsed, called } = checkPartials(sources, snippets, errors);
  warnings.push(...missingVariables(sources, parsed, vars, htmlPartial, textPartial));
  const { subject, html, text } = renderParts(sources, parsed, vars, { html: htmlPartial, text: textPartial }, errors);
  warnings.push(...clientProblems(input.body_html, called, snippets, sources, html, text));
  return { subject, html, text, warnings: warnings.slice(0, MAX_PROBLEMS), errors: errors.slice(0, MAX_PROBLEMS) };
}

/**
 * 1. Each part must parse and call only snippets of the account (bodies only, at most 20 of them).
 * Answers the fields that parse and the known snippets the HTML includes.
 */
function checkPartials(sources: Sources, snippets: ReadonlyMap<string, SnippetBodies>, errors: PreviewProblem[]): { parsed: Set<TemplateField>; called: Set<string> } {
  const parsed = new Set<TemplateField>();
  const called = new Set<string>();
  /** Every snippet name either body calls. */
  const included = new Set<string>();
  for (const field of FIELDS) {
    const source = sources[field];
    if (source === null) continue;
    let calls: { name: string; line: number }[];
    try {
      calls = partialCalls(source, field);
    } catch (error) {
      if (!(error instanceof InvalidTemplateError)) throw error;
      errors.push({ code: 'syntax_error', field, line: error.line, message: error.problem });
      continue;
    }
    parsed.add(field);
    for (const call of calls) {
      const name = call.name.toLowerCase();
      if (field !== 'subject') included.add(name);
      if (field === 'subject') {
        errors.push({ code: 'partial_not_allowed', field, line: call.line, message: `partial "${call.name}": only body_html and body_text may include snippets` });
      } else if (!snippets.has(name)) {
        errors.push({ code: 'unknown_partial', field, line: call.line, message: `partial "${call.name}" is not a snippet of this account` });
      } else if (field === 'body_html') called.add(name);
    }
  }
  if (included.size > MAX_SNIPPETS_PER_TEMPLATE) {
    errors.push({ code: 'too_many_snippets', field: 'body_html', line: null, message: `the template includes ${included.size} snippets; a template may include at most ${MAX_SNIPPETS_PER_TEMPLATE}` });
  }
  return { parsed, called };
}

/** 2. Variables a render would leave empty, into the snippets too; each name once. */
function missingVariables(sources: Sources, parsed: Set<TemplateField>, vars: Record<string, unknown>, htmlPartial: Partial, textPartial: Partial): PreviewProblem[] {
  const warnings: PreviewProblem[] = [];
  const reported = new Set<string>();
  for (const field of FIELDS) {
    if (!parsed.has(field)) continue;
    for (const use of unresolvedVariables({ [field]: sources[field] }, vars, field === 'body_text' ? textPartial : htmlPartial)) {
      if (reported.has(use.name)) continue;
      reported.add(use.name);
      warnings.push({ code: 'missing_variable', field: use.field, line: use.line, message: `variable "${use.name}" has no value and renders empty` });
    }
  }
  return warnings;
}

/** 3. Render what parses, as a send would; an unknown partial renders empty (it is listed above). */
function renderParts(
  sources: Sources,
  parsed: Set<TemplateField>,
  vars: Record<string, unknown>,
  partialsOf: { html: Partial; text: Partial },
  errors: PreviewProblem[],
): { subject: string | null; html: string | null; text: string | null } {
  const view = toView(vars);
  const render = (field: TemplateField, options: { html: boolean; partials?: Partial }): string | null => {
    const source = sources[field];
    if (source === null || !parsed.has(field)) return null;
    const partials = options.partials;
    try {
      return renderTemplate(source, view, field, { html: options.html, partials: partials && ((name) => partials(name) ?? '') });
    } catch (error) {
      if (!(error instanceof TemplateRenderError)) throw error;
      errors.push({ code: 'render_failed', field, line: null, message: error.message });
      return null;
    }
  };
  const subject = render('subject', { html: false })?.replace(/[\r\n]+/g, ' ') ?? null;
  const renderedHtml = render('body_html', { html: true, partials: partialsOf.html });
  const renderedText = sources.body_text === null ? undefined : render('body_text', { html: false, partials: partialsOf.text });
  const html = renderedHtml === null ? null : finished('body_html', () => inlineStyles(renderedHtml), errors);
  const text = renderedText !== undefined ? renderedText : renderedHtml === null ? null : finished('body_text', () => textOfHtml(renderedHtml), errors);
  return { subject, html, text };
}

/** 4. What mail clients handle badly: in the source (with its lines), then in the message as mailed. */
function clientProblems(
  bodyHtml: string,
  called: Set<string>,
  snippets: ReadonlyMap<string, SnippetBodies>,
  sources: Sources,
  html: string | null,
  text: string | null,
): PreviewProblem[] {
  const warnings: PreviewProblem[] = [];
  const inSource = (field: string, source: string): void => {
    for (const w of markupWarnings(source)) warnings.push({ code: w.code, field, line: w.line ?? null, message: w.message });
  };
  inSource('body_html', bodyHtml);
  for (const name of called) inSource(`snippets.${name}`, snippets.get(name)!.html);
  if (text !== null && text.trim() === '') {
    warnings.push({
      code: 'missing_text_part',
      field: 'body_text',
      line: null,
      message:
        sources.body_text === null
          ? 'The HTML has no text to make a plain-text part from (images only?); some clients and spam filters expect one: write body_text.'
          : 'body_text renders empty; some clients and spam filters expect a plain-text part.',
    });
  }
  const size = html === null ? undefined : sizeWarning(html);
  if (size) warnings.push({ code: size.code, field: 'body_html', line: null, message: size.message });
  return warnings;
}

/** Inlining or making the text part, which a hostile HTML could make fail: an error of the preview, not a 500. */
function finished(field: TemplateField, make: () => string, errors: PreviewProblem[]): string | null {
  try {
    return make();
  } catch (error) {
    errors.push({ code: 'render_failed', field, line: null, message: `${field}: ${error instanceof Error ? error.message : String(error)}` });
    return null;
  }
}
