// Snippets: the use cases behind /v1/templates/snippets. A snippet is a piece of Mustache that
// templates include by name (`{{> name }}`); names are unique per account regardless of case.
// Snippets do not include other snippets. A rename or delete is refused (409 conflict) while a
// template's current version includes the snippet (shared/sending/templates/usage.ts).
import type { Store } from '../../db/store';
import { ApiError, NotFoundError } from '../../errors';
import type { Ids } from '../../ports/ids';
import { mapPage, pageRequest, type Page, type PageInput } from '../../pagination';
import type { Clock } from '../../ports/clock';
import { checkSnippet } from './engine';
import type { CreateSnippetBody, SnippetView, UpdateSnippetBody } from './schemas';
import { SnippetRepository, type NewSnippet, type SnippetItem } from './snippets-repository';
import { activeUses } from './usage';

export interface SnippetDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
}

/** Tries of a rename or delete that a concurrent template write kept from going through before it answers 409 conflict. */
const TRIES = 3;

const toView = (item: NewSnippet): SnippetView => ({
  id: item.id,
  account_id: item.account_id,
  name: item.name,
  body_html: item.body_html,
  body_text: item.body_text,
  created_at: item.created_at,
  updated_at: item.updated_at,
});

const notFound = (snippetId: string): ApiError => new NotFoundError(`snippet ${snippetId}`);
const nameTaken = (name: string): ApiError => new ApiError('conflict', `a snippet named "${name}" exists already (names are unique regardless of case)`);
const inUse = (name: string, templates: string[], doing: string): ApiError =>
  new ApiError('conflict', `snippet "${name}" is included by template${templates.length > 1 ? 's' : ''} ${templates.join(', ')}; remove {{> ${name} }} from ${templates.length > 1 ? 'them' : 'it'} before you ${doing} it`);

function checkBodies(body: { body_html?: string; body_text?: string | null }): void {
  if (body.body_html !== undefined) checkSnippet(body.body_html, 'body_html');
  if (body.body_text !== undefined && body.body_text !== null) checkSnippet(body.body_text, 'body_text');
}

async function owned(store: Store, accountId: string, snippetId: string): Promise<SnippetItem> {
  const item = await new SnippetRepository(store).get(accountId, snippetId);
  if (!item) throw notFound(snippetId);
  return item;
}

/** How old a name claim must be before a request may decide its create or rename died. */
export const STALE_NAME_CLAIM_MS = 60_000;

/**
 * Takes a name for `snippetId`: at once when free (or already this snippet's), else by taking
 * over a claim a dead request left: its snippet does not exist or holds another name, and the
 * claim is older than STALE_NAME_CLAIM_MS (a live request writes its snippet within milliseconds).
 */
async function takeName(deps: SnippetDeps, accountId: string, lowerName: string, snippetId: string): Promise<boolean> {
  const snippets = new SnippetRepository(deps.store);
  const nowMs = deps.clock.now().getTime();
  if (await snippets.claimName(accountId, lowerName, snippetId, nowMs)) return true;
  const held = await snippets.nameItem(accountId, lowerName);
  if (!held) return snippets.claimName(accountId, lowerName, snippetId, nowMs);
  const holder = await snippets.get(accountId, held.snippet_id);
  if (holder && holder.name.toLowerCase() === lowerName) return false;
  return snippets.takeOverName(accountId, lowerName, held, snippetId, nowMs, nowMs - STALE_NAME_CLAIM_MS);
}

export async function createSnippet(deps: SnippetDeps, accountId: string, body: CreateSnippetBody): Promise<SnippetView> {
  checkBodies(body);
  const snippets = new SnippetRepository(deps.store);
  const id = deps.ids.next('snip');
  // The name first: a second snippet can never hold it, even for a moment.
  if (!(await takeName(deps, accountId, body.name.toLowerCase(), id))) throw nameTaken(body.name);
  const now = deps.clock.now().toISOString();
  const item = { id, account_id: accountId, name: body.name, body_html: body.body_html, body_text: body.body_text ?? null, created_at: now, updated_at: now };
  if (!(await snippets.create(item))) throw new Error(`snippet ${id} exists already`); // fresh ULIDs do not collide
  return toView(item);
}

export async function listSnippets(deps: { store: Store; cursorSecret: string }, accountId: string, page: PageInput): Promise<Page<SnippetView>> {
  const out = await new SnippetRepository(deps.store).list(accountId, pageRequest(deps, { accountId, collection: 'snippets' }, page));
  return mapPage(out, toView);
}

export async function readSnippet(store: Store, accountId: string, snippetId: string): Promise<SnippetView> {
  return toView(await owned(store, accountId, snippetId));
}

/**
 * Gives up a name the snippet holds: refused with 409 while a template includes it. A template
 * write that marks the name between our read and our conditional delete makes the delete fail; we
 * read again, up to TRIES times.
 */
async function releaseName(deps: SnippetDeps, accountId: string, item: SnippetItem, doing: string): Promise<void> {
  const snippets = new SnippetRepository(deps.store);
  const lower = item.name.toLowerCase();
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const held = await snippets.nameItem(accountId, lower);
    if (!held || held.snippet_id !== item.id) return; // already given up (a retried request after a crash)
    const users = await activeUses(deps, accountId, lower, held);
    if (users.length > 0) throw inUse(item.name, users, doing);
    if (await snippets.releaseName(accountId, lower, item.id)) return;
  }
  throw new ApiError('conflict', `snippet "${item.name}" was included by templates being written meanwhile; try again`);
}

/**
 * Partial update. Bodies change freely (templates render the current bodies); a rename takes the
 * new name first (409 when another snippet holds it), then gives the old one up (409 while a
 * template includes it, and the new name is given back). A name change in case only keeps its
 * name item: partials resolve regardless of case, so no template loses its snippet.
 */
export async function updateSnippet(deps: SnippetDeps, accountId: string, snippetId: string, body: UpdateSnippetBody): Promise<SnippetView> {
  checkBodies(body);
  const snippets = new SnippetRepository(deps.store);
  const current = await owned(deps.store, accountId, snippetId);
  const name = body.name ?? current.name;
  const renamed = name.toLowerCase() !== current.name.toLowerCase();
  if (renamed) {
    if (!(await takeName(deps, accountId, name.toLowerCase(), snippetId))) throw nameTaken(name);
    try {
      await releaseName(deps, accountId, current, 'rename');
    } catch (error) {
      await snippets.dropClaim(accountId, name.toLowerCase(), snippetId);
      throw error;
    }
  }
  const fields = {
    name,
    body_html: body.body_html ?? current.body_html,
    body_text: body.body_text === undefined ? current.body_text : body.body_text,
    updated_at: deps.clock.now().toISOString(),
  };
  const updated = await snippets.update(accountId, snippetId, current.name, fields);
  if (!updated) {
    if (renamed) await snippets.dropClaim(accountId, name.toLowerCase(), snippetId);
    if (!(await snippets.get(accountId, snippetId))) throw notFound(snippetId);
    throw new ApiError('conflict', `snippet ${snippetId} was renamed meanwhile; read it and try again`);
  }
  return toView(updated);
}

/** Deletes the snippet: 409 conflict while a template includes it. Its name is given up first, so the name never points at nothing a template uses. */
export async function deleteSnippet(deps: SnippetDeps, accountId: string, snippetId: string): Promise<void> {
  const current = await owned(deps.store, accountId, snippetId);
  await releaseName(deps, accountId, current, 'delete');
  if (!(await new SnippetRepository(deps.store).remove(accountId, snippetId))) throw notFound(snippetId);
}
