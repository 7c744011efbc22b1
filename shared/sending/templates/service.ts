// Templates: the use cases behind /v1/templates. Every write checks the template (Mustache syntax,
// no partials, declared variables) before anything is stored.
import type { Store } from '../../db/store';
import { ApiError, InvalidRequestError } from '../../errors';
import type { Ids } from '../../ports/ids';
import { mapPage, pageRequest, type Page, type PageInput } from '../../pagination';
import type { Clock } from '../../ports/clock';
import { checkTemplate } from './engine';
import { ownedTemplate, templateNotFound } from './render';
import { packContent, TemplateRepository, unpackContent, type NewTemplate, type TemplateChanges, type TemplateItem, type VersionContent } from './repository';
import type {
  CreateTemplateBody,
  TemplateSummaryView,
  TemplateUpdatedView,
  TemplateVariable,
  TemplateVariableInput,
  TemplateView,
  UpdateTemplateBody,
} from './schemas';
import { markUses, resolveSnippets, unmarkUses, type SnippetUses } from './usage';
import { UNSUBSCRIBE_VARIABLE } from '../unsubscribe/variable';

export interface TemplateDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
}

/** The most a stored version may weigh, gzipped: DynamoDB items stop at 400 KB. */
export const MAX_STORED_VERSION_BYTES = 300_000;
/** Tries of an update that lost a race for the next version before it answers 409 conflict. */
export const VERSION_TRIES = 3;

const toVariable = (v: TemplateVariableInput | TemplateVariable): TemplateVariable => ({
  name: v.name,
  required: v.required ?? false,
  default_value: v.default_value ?? null,
  sample: v.sample ?? null,
});

/**
 * Checks a version and makes its stored content. `variablesGiven`: the variables were listed in
 * this request, so every variable the parts use must be among them.
 */
function versionContent(
  parts: { subject: string; body_html: string; body_text: string | null },
  variables: TemplateVariable[],
  variablesGiven: boolean,
  snippets: SnippetUses,
): { content: VersionContent; packed: Uint8Array } {
  // unsubscribe_url is given by the send itself (a marketing message's own link): never listed.
  const declared = variablesGiven ? new Set([...variables.map((v) => v.name), UNSUBSCRIBE_VARIABLE]) : undefined;
  const known = new Set(Object.keys(snippets));
  checkTemplate(parts.subject, 'subject', declared);
  checkTemplate(parts.body_html, 'body_html', declared, known);
  if (parts.body_text !== null) checkTemplate(parts.body_text, 'body_text', declared, known);
  const content: VersionContent = { ...parts, variables };
  const packed = packContent(content);
  if (packed.length > MAX_STORED_VERSION_BYTES) {
    throw new InvalidRequestError(`body: the template is ${packed.length} bytes gzipped; a template may be at most ${MAX_STORED_VERSION_BYTES} bytes gzipped`);
  }
  return { content, packed };
}

function toView(item: Pick<TemplateItem, 'id' | 'name' | 'channel' | 'version' | 'is_active' | 'created_at' | 'updated_at'>, content: VersionContent): TemplateView {
  return {
    id: item.id,
    name: item.name,
    channel: item.channel,
    subject: content.subject,
    body_html: content.body_html,
    body_text: content.body_text,
    variables: content.variables.map(toVariable),
    version: item.version,
    is_active: item.is_active,
    created_at: item.created_at,
    updated_at: item.updated_at,
  };
}

const toSummary = (item: TemplateItem): TemplateSummaryView => ({
  id: item.id,
  name: item.name,
  channel: item.channel,
  version: item.version,
  is_active: item.is_active,
  created_at: item.created_at,
});

/**
 * Checks a version against the account's snippets and marks the snippets it includes
 * (shared/sending/templates/usage.ts). A snippet renamed or deleted between the check and its mark is
 * checked again without it, which names it as unknown with its line.
 */
async function checkedVersion(
  deps: TemplateDeps,
  accountId: string,
  templateId: string,
  parts: { subject: string; body_html: string; body_text: string | null },
  variables: TemplateVariable[],
  variablesGiven: boolean,
): Promise<{ content: VersionContent; packed: Uint8Array; snippets: SnippetUses; token: string }> {
  const snippets = await resolveSnippets(deps.store, accountId, parts);
  const checked = versionContent(parts, variables, variablesGiven, snippets);
  const token = deps.ids.next('tmpl').slice('tmpl_'.length);
  const lost = await markUses(deps.store, accountId, templateId, token, snippets);
  if (lost !== undefined) {
    const { [lost]: _gone, ...rest } = snippets;
    versionContent(parts, variables, variablesGiven, rest);
    throw new ApiError('conflict', `snippet "${lost}" was changed meanwhile; try again`); // not reached: the check above names it
  }
  return { ...checked, snippets, token };
}

export async function createTemplate(deps: TemplateDeps, accountId: string, body: CreateTemplateBody): Promise<TemplateView> {
  const variables = (body.variables ?? []).map(toVariable);
  const id = deps.ids.next('tmpl');
  const { content, packed, snippets, token } = await checkedVersion(
    deps,
    accountId,
    id,
    { subject: body.subject, body_html: body.body_html, body_text: body.body_text ?? null },
    variables,
    body.variables !== undefined,
  );
  const now = deps.clock.now().toISOString();
  const item: NewTemplate = {
    id,
    account_id: accountId,
    name: body.name,
    channel: body.channel,
    version: 1,
    is_active: true,
    created_at: now,
    updated_at: now,
    content_gz: packed,
    snippets,
    snippet_mark: token,
  };
  // Ids are fresh ULIDs: a collision is a broken id source, not a user's conflict.
  if (!(await new TemplateRepository(deps.store).create(item))) {
    await unmarkUses(deps.store, accountId, id, token, Object.keys(snippets));
    throw new Error(`template ${id} exists already`);
  }
  return toView(item, content);
}

export async function listTemplates(deps: { store: Store; cursorSecret: string }, accountId: string, page: PageInput): Promise<Page<TemplateSummaryView>> {
  const out = await new TemplateRepository(deps.store).list(accountId, pageRequest(deps, { accountId, collection: 'templates' }, page));
  return mapPage(out, toSummary);
}

/** The template at its current version, or at an earlier one (404 template_not_found when there is no such version). */
export async function readTemplate(store: Store, accountId: string, templateId: string, version?: number): Promise<TemplateView> {
  const item = await ownedTemplate(store, accountId, templateId);
  if (version === undefined || version === item.version) return toView(item, unpackContent(item.content_gz));
  const earlier = version < item.version ? await new TemplateRepository(store).getVersion(templateId, version) : undefined;
  if (!earlier) throw new ApiError('template_not_found', `template ${templateId} has no version ${version}; its current version is ${item.version}`);
  return toView({ ...item, version: earlier.version, updated_at: earlier.written_at }, unpackContent(earlier.content_gz));
}

const makesVersion = (body: UpdateTemplateBody): boolean =>
  body.subject !== undefined || body.body_html !== undefined || body.body_text !== undefined || body.variables !== undefined;

/**
 * Partial update. A change to subject, body_html, body_text or variables makes a new version
 * (sending the same values again changes nothing); name and is_active alone do not. An update that
 * loses the race for the next version to a concurrent one applies its fields again over the
 * winner's version, up to VERSION_TRIES times, then answers 409 conflict.
 */
export async function updateTemplate(deps: TemplateDeps, accountId: string, templateId: string, body: UpdateTemplateBody): Promise<TemplateUpdatedView> {
  const templates = new TemplateRepository(deps.store);
  const changes: TemplateChanges = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.is_active !== undefined) changes.is_active = body.is_active;
  for (let attempt = 0; attempt < VERSION_TRIES; attempt++) {
    const current = await ownedTemplate(deps.store, accountId, templateId);
    const now = deps.clock.now().toISOString();
    if (makesVersion(body)) {
      const was = unpackContent(current.content_gz);
      const parts = {
        subject: body.subject ?? was.subject,
        body_html: body.body_html ?? was.body_html,
        body_text: body.body_text === undefined ? was.body_text : body.body_text,
      };
      const variables = body.variables === undefined ? was.variables.map(toVariable) : body.variables.map(toVariable);
      const same =
        parts.subject === was.subject &&
        parts.body_html === was.body_html &&
        parts.body_text === was.body_text &&
        JSON.stringify(variables) === JSON.stringify(was.variables.map(toVariable));
      if (!same) {
        // Variables listed once keep being checked: a body edit must use only the listed ones.
        const { content, snippets, token } = await checkedVersion(deps, accountId, templateId, parts, variables, body.variables !== undefined || variables.length > 0);
        if (await templates.addVersion(current, content, changes, now, { snippets, snippet_mark: token })) {
          // The superseded version's marks go; its snippets may be renamed or deleted now, unless this version includes them too.
          await unmarkUses(deps.store, accountId, templateId, current.snippet_mark, Object.keys(current.snippets ?? {}));
          return { id: templateId, name: changes.name ?? current.name, version: current.version + 1 };
        }
        await unmarkUses(deps.store, accountId, templateId, token, Object.keys(snippets));
        continue; // another write moved the template (or deleted it): read it again
      }
    }
    if (Object.keys(changes).length === 0) return { id: current.id, name: current.name, version: current.version };
    const updated = await templates.update(accountId, templateId, changes, now);
    if (!updated) throw templateNotFound(templateId); // deleted meanwhile
    return { id: updated.id, name: updated.name, version: updated.version };
  }
  throw new ApiError('conflict', `template ${templateId} was changed by other requests meanwhile; read it and try again`);
}

/** Deletes the template; later sends and reads with its id answer 404 template_not_found. */
export async function deleteTemplate(deps: { store: Store }, accountId: string, templateId: string): Promise<void> {
  const templates = new TemplateRepository(deps.store);
  const current = await templates.get(accountId, templateId);
  if (!current || !(await templates.remove(accountId, templateId))) throw templateNotFound(templateId);
  // Its snippets may be renamed or deleted now (a version written meanwhile left marks that the
  // snippet's rename or delete finds stale: their template is gone).
  await unmarkUses(deps.store, accountId, templateId, current.snippet_mark, Object.keys(current.snippets ?? {}));
  // Its earlier versions go with it; they are unreachable once the template item is gone.
  await templates.removeVersions(templateId);
}

