// Rendering a stored template: what POST /v1/templates/{id}/render and every send with
// `template_id` share. On the send path: Mustache only (shared/sending/templates/engine.ts), never
// html-to-text or juice; a template without a text part gets one from the send worker.
import type { Store } from '../../db/store';
import { ApiError } from '../../errors';
import { renderTemplate, toView } from './engine';
import { TemplateRepository, unpackContent, type TemplateItem, type VersionContent } from './repository';
import { SnippetRepository } from './snippets-repository';

/** A template's snippets as partials, by lowercased name: each body's own part. */
export interface Partials {
  html: (name: string) => string | undefined;
  text: (name: string) => string | undefined;
}

export interface Rendered {
  subject: string;
  body_html: string;
  /** Null when the template has no text part. */
  body_text: string | null;
}

export const templateNotFound = (templateId: string): ApiError => new ApiError('template_not_found', `template ${templateId} not found`);

/** The account's template, or 404 template_not_found (another account's is not found either). */
export async function ownedTemplate(store: Store, accountId: string, templateId: string): Promise<TemplateItem> {
  const item = await new TemplateRepository(store).get(accountId, templateId);
  if (!item) throw templateNotFound(templateId);
  return item;
}

/**
 * The snippets a template's current version includes, at their current bodies (a template version
 * pins which snippets it includes, not their content). In a text part, a snippet without body_text
 * includes its body_html as written. Undefined when it includes none.
 */
export async function snippetPartials(store: Store, item: Pick<TemplateItem, 'account_id' | 'snippets'>): Promise<Partials | undefined> {
  const uses = Object.entries(item.snippets ?? {});
  if (uses.length === 0) return undefined;
  const byId = new Map((await new SnippetRepository(store).many(item.account_id, uses.map(([, id]) => id))).map((s) => [s.id, s]));
  const named = new Map(uses.flatMap(([name, id]) => (byId.has(id) ? [[name, byId.get(id)!] as const] : [])));
  return {
    html: (name) => named.get(name)?.body_html,
    text: (name) => {
      const snippet = named.get(name);
      return snippet ? (snippet.body_text ?? snippet.body_html) : undefined;
    },
  };
}

/**
 * Renders one version with the given values. A required variable with no value (absent or null)
 * is 400 missing_variable naming every such variable; an optional one takes its default_value,
 * and with `samples` (the render route, never a send) its sample. A render that throws or runs
 * past the engine's bounds is 422 template_error.
 */
export function renderContent(content: VersionContent, vars: Record<string, unknown>, options: { samples: boolean; partials?: Partials }): Rendered {
  const values: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(vars)) if (value !== null && value !== undefined) values[name] = value;
  const missing: string[] = [];
  for (const variable of content.variables) {
    if (values[variable.name] !== undefined) continue;
    if (variable.required) missing.push(variable.name);
    else if (variable.default_value !== null) values[variable.name] = variable.default_value;
    else if (options.samples && variable.sample !== null) values[variable.name] = variable.sample;
  }
  if (missing.length > 0) {
    throw new ApiError('missing_variable', `required template variable${missing.length > 1 ? 's' : ''} missing: ${missing.join(', ')}`);
  }
  const view = toView(values);
  return {
    // A subject is one header line: a value with line breaks must not fold it.
    subject: renderTemplate(content.subject, view, 'subject', { html: false }).replace(/[\r\n]+/g, ' '),
    body_html: renderTemplate(content.body_html, view, 'body_html', { html: true, partials: options.partials?.html }),
    body_text: content.body_text === null ? null : renderTemplate(content.body_text, view, 'body_text', { html: false, partials: options.partials?.text }),
  };
}

/**
 * What a send with `template_id` mails: the account's template at its current version, rendered
 * with `template_vars`. 404 template_not_found for a template the account does not hold (deleted,
 * another account's); 422 template_error for an inactive one.
 */
export type RenderedForSend = Rendered & { template_id: string; template_version: number };

/** How a send renders its `template_id`: renderForSend, or a broadcast's pinned version (pinnedRenderer). */
export type TemplateRenderer = (templateId: string, vars: Record<string, unknown>) => Promise<RenderedForSend>;

/** One template version as a broadcast pins it at creation: its content and the snippets it includes. */
export interface PinnedTemplate {
  id: string;
  version: number;
  content_gz: Uint8Array;
  snippets?: Record<string, string>;
}

export const pinTemplate = (item: TemplateItem): PinnedTemplate => ({
  id: item.id,
  version: item.version,
  content_gz: item.content_gz,
  ...(item.snippets ? { snippets: item.snippets } : {}),
});

/**
 * Renders a pinned version, whatever the template holds now (a later edit, deactivation or
 * deletion changes nothing); its snippets at their current bodies, as renderForSend does. Another
 * template id is 404 template_not_found.
 */
export async function pinnedRenderer(store: Store, accountId: string, pinned: PinnedTemplate): Promise<TemplateRenderer> {
  const content = unpackContent(pinned.content_gz);
  const partials = await snippetPartials(store, { account_id: accountId, snippets: pinned.snippets });
  return async (templateId, vars) => {
    if (templateId !== pinned.id) throw templateNotFound(templateId);
    return { ...renderContent(content, vars, { samples: false, partials }), template_id: pinned.id, template_version: pinned.version };
  };
}

/** An inactive template is refused on every send path. */
export function checkActive(item: TemplateItem): void {
  if (!item.is_active) throw new ApiError('template_error', `template ${item.id} is inactive; activate it (PUT is_active: true) to send with it`);
}

export async function renderForSend(
  store: Store,
  accountId: string,
  templateId: string,
  vars: Record<string, unknown>,
): Promise<RenderedForSend> {
  const item = await ownedTemplate(store, accountId, templateId);
  checkActive(item);
  const rendered = renderContent(unpackContent(item.content_gz), vars, { samples: false, partials: await snippetPartials(store, item) });
  return { ...rendered, template_id: item.id, template_version: item.version };
}
