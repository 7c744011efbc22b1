// Which snippets a template's current version includes, kept where a snippet's rename or delete
// can see it: the template item records the snippets of its current version (lowercased name →
// snippet id) and a write token; each of those snippets' name items holds the mark
// `<template id>#<token>` (shared/sending/templates/snippets-repository.ts). A template write marks the
// snippets of its new version before it writes the version, and removes the marks of the version
// it superseded after; a failed write removes its own. A crash can leave a mark behind: a mark
// whose template is gone, or whose token is not the template's and is older than MARK_LEASE_MS, is
// stale and is removed when a rename or delete finds it (activeUses).
import { decodeTime } from 'ulid';
import type { Store } from '../../db/store';
import { ApiError } from '../../errors';
import type { Clock } from '../../ports/clock';
import { partialsOf } from './engine';
import { TemplateRepository } from './repository';
import { SnippetRepository, type SnippetNameItem } from './snippets-repository';

/** Distinct snippets one template may include. */
export const MAX_SNIPPETS_PER_TEMPLATE = 20;
/** A mark younger than this may belong to a template write still in flight (a request lasts seconds). */
export const MARK_LEASE_MS = 5 * 60 * 1000;

/** A template's snippets: lowercased name → snippet id. */
export type SnippetUses = Record<string, string>;

/**
 * The account's snippets the bodies call as partials (those that exist; the write check names an
 * unknown one with its line). Parse errors surface here, as invalid_template.
 */
export async function resolveSnippets(store: Store, accountId: string, parts: { body_html: string; body_text: string | null }): Promise<SnippetUses> {
  const names = new Set([...partialsOf(parts.body_html, 'body_html'), ...(parts.body_text === null ? [] : partialsOf(parts.body_text, 'body_text'))]);
  if (names.size > MAX_SNIPPETS_PER_TEMPLATE) {
    throw new ApiError('invalid_template', `body: the template includes ${names.size} snippets; a template may include at most ${MAX_SNIPPETS_PER_TEMPLATE}`);
  }
  const snippets = new SnippetRepository(store);
  const found = await Promise.all([...names].map(async (name) => [name, (await snippets.nameItem(accountId, name))?.snippet_id] as const));
  return Object.fromEntries(found.filter((f): f is readonly [string, string] => f[1] !== undefined));
}

/** Marks the snippets as included by this template write. The name that could not be marked (renamed or deleted meanwhile), its marks undone; undefined when all were. */
export async function markUses(store: Store, accountId: string, templateId: string, token: string, uses: SnippetUses): Promise<string | undefined> {
  const snippets = new SnippetRepository(store);
  const done: string[] = [];
  for (const [name, snippetId] of Object.entries(uses)) {
    if (!(await snippets.mark(accountId, name, snippetId, `${templateId}#${token}`))) {
      await unmarkUses(store, accountId, templateId, token, done);
      return name;
    }
    done.push(name);
  }
  return undefined;
}

export async function unmarkUses(store: Store, accountId: string, templateId: string, token: string | undefined, names: Iterable<string>): Promise<void> {
  if (token === undefined) return;
  const snippets = new SnippetRepository(store);
  for (const name of names) await snippets.unmark(accountId, name, `${templateId}#${token}`);
}

/**
 * The templates whose current version includes this snippet, from its name item's marks. Stale
 * marks (a crash between a mark and its template write, or before a superseded version's marks were
 * removed) are removed on the way; a young mark not yet matched by its template counts as a use,
 * since its write may still land.
 */
export async function activeUses(deps: { store: Store; clock: Clock }, accountId: string, lowerName: string, item: SnippetNameItem): Promise<string[]> {
  const templates = new TemplateRepository(deps.store);
  const snippets = new SnippetRepository(deps.store);
  const users = new Set<string>();
  for (const mark of item.used_by ?? []) {
    const [templateId = '', token = ''] = mark.split('#');
    const template = await templates.get(accountId, templateId);
    if (template && template.snippet_mark === token) {
      if (template.snippets?.[lowerName] !== undefined) users.add(templateId);
      else await snippets.unmark(accountId, lowerName, mark);
      continue;
    }
    let written = Number.NaN;
    try {
      written = decodeTime(token.toUpperCase());
    } catch {
      // not a token we wrote: stale
    }
    if (template && deps.clock.now().getTime() - written < MARK_LEASE_MS) users.add(templateId);
    else await snippets.unmark(accountId, lowerName, mark);
  }
  return [...users];
}
