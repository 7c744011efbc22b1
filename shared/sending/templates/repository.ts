// Stored templates. The template item (in its account's partition, so the list reads them newest
// first by id) holds the current version's content; each version a later one supersedes is copied,
// once and unchanged, to an immutable version item in the template's own partition. A new version
// is one conditional write on the template item (`version` still what the writer read), so two
// concurrent updates cannot both become version N+1; the copy of version N is written first and
// is the same bytes whoever writes it, so a crash between the two writes loses nothing.
// The content is gzipped JSON: a template's HTML compresses several times over, which keeps the
// item far below DynamoDB's 400 KB and the list's reads small.
import { gunzipSync, gzipSync } from 'node:zlib';
import { keys, keyQueries, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { isId } from '../../ports/ids';
import { queryPage, type Page, type PageRequest } from '../../pagination';
import type { TemplateVariable } from './schemas';
import { eachPage } from '../../db/all-items';

/** One version's content: what a render needs. */
export interface VersionContent {
  subject: string;
  body_html: string;
  /** As written; null when the template has none (a send's text part is then made from the rendered HTML). */
  body_text: string | null;
  variables: TemplateVariable[];
}

export interface TemplateItem extends ItemKey {
  entity: 'template';
  id: string;
  account_id: string;
  name: string;
  channel: 'email';
  /** The current version, whose content is content_gz. */
  version: number;
  is_active: boolean;
  created_at: string;
  updated_at: string;
  content_gz: Uint8Array;
  /** The snippets the current version includes (lowercased name → snippet id); absent when none. */
  snippets?: Record<string, string>;
  /** The token of the write that made the current version: its snippets' marks (shared/sending/templates/usage.ts). */
  snippet_mark?: string;
}

export interface TemplateVersionItem extends ItemKey {
  entity: 'template_version';
  template_id: string;
  account_id: string;
  version: number;
  /** When this version was written (the template's updated_at at the time). */
  written_at: string;
  content_gz: Uint8Array;
}

export type NewTemplate = Omit<TemplateItem, keyof ItemKey | 'entity'>;

/** What a write that makes no new version may change. */
export type TemplateChanges = Partial<Pick<TemplateItem, 'name' | 'is_active'>>;

export const packContent = (content: VersionContent): Uint8Array => gzipSync(JSON.stringify(content));

export function unpackContent(gz: Uint8Array): VersionContent {
  return JSON.parse(gunzipSync(gz).toString('utf8')) as VersionContent;
}

/** SET clauses for the fields given, undefined ones left out. */
function setting(fields: Record<string, unknown>): { expression: string; names: Record<string, string>; values: Record<string, unknown> } {
  const present = Object.entries(fields).filter(([, v]) => v !== undefined);
  return {
    expression: `SET ${present.map(([n]) => `#${n} = :${n}`).join(', ')}`,
    names: Object.fromEntries(present.map(([n]) => [`#${n}`, n])),
    values: Object.fromEntries(present.map(([n, v]) => [`:${n}`, v])),
  };
}

export class TemplateRepository {
  constructor(private readonly store: Store) {}

  /** Undefined when absent or another account's; a malformed id names nothing and stays out of keys. */
  get(accountId: string, templateId: string): Promise<TemplateItem | undefined> {
    if (!isId(templateId, 'tmpl')) return Promise.resolve(undefined);
    return this.store.get<TemplateItem>(keys.template(accountId, templateId));
  }

  /** False when a template with this id exists already. */
  create(item: NewTemplate): Promise<boolean> {
    return wrote(this.store.create<TemplateItem>({ ...keys.template(item.account_id, item.id), entity: 'template', ...item }));
  }

  /** A page of the account's templates, newest first (ids sort by creation time). */
  list(accountId: string, page: PageRequest): Promise<Page<TemplateItem>> {
    return queryPage<TemplateItem>(this.store, keyQueries.accountItems(accountId, keys.templatePrefix), page);
  }

  /** An earlier version, as it was written; undefined when there is none. */
  getVersion(templateId: string, version: number): Promise<TemplateVersionItem | undefined> {
    return this.store.get<TemplateVersionItem>(keys.templateVersion(templateId, version));
  }

  /** Changes that make no new version. The updated template; undefined when it is gone. */
  async update(accountId: string, templateId: string, changes: TemplateChanges, updatedAt: string): Promise<TemplateItem | undefined> {
    const set = setting({ ...changes, updated_at: updatedAt });
    let updated: TemplateItem | undefined;
    const ok = await wrote(
      this.store
        .update<TemplateItem>(keys.template(accountId, templateId), { ...set, condition: 'attribute_exists(pk)' })
        .then((item) => void (updated = item)),
    );
    return ok ? updated : undefined;
  }

  /**
   * Makes `content` version `current.version + 1`: copies the current version to its immutable item,
   * then moves the template on, if it is still at the version `current` holds. False when another
   * write moved it first or it was deleted meanwhile.
   */
  async addVersion(
    current: TemplateItem,
    content: VersionContent,
    changes: TemplateChanges,
    updatedAt: string,
    uses: { snippets?: Record<string, string>; snippet_mark?: string } = {},
  ): Promise<boolean> {
    const history: TemplateVersionItem = {
      ...keys.templateVersion(current.id, current.version),
      entity: 'template_version',
      template_id: current.id,
      account_id: current.account_id,
      version: current.version,
      written_at: current.updated_at,
      content_gz: current.content_gz,
    };
    // Unconditional: whoever writes it copies the same stored version.
    await this.store.put(history);
    const set = setting({ ...changes, version: current.version + 1, content_gz: packContent(content), updated_at: updatedAt, ...uses });
    return wrote(
      this.store.update(keys.template(current.account_id, current.id), {
        ...set,
        condition: 'attribute_exists(pk) AND #version = :seen',
        values: { ...set.values, ':seen': current.version },
      }),
    );
  }

  /** False when there was no such template. */
  remove(accountId: string, templateId: string): Promise<boolean> {
    if (!isId(templateId, 'tmpl')) return Promise.resolve(false);
    return wrote(this.store.delete(keys.template(accountId, templateId), { expression: 'attribute_exists(pk)' }));
  }

  /** Deletes the version items of a deleted template, a page at a time. */
  async removeVersions(templateId: string): Promise<void> {
    for await (const items of eachPage<TemplateVersionItem>(this.store, keyQueries.partition(keys.templateVersionsPartition(templateId)))) {
      for (const item of items) await this.store.delete(keys.templateVersion(templateId, item.version));
    }
  }
}
