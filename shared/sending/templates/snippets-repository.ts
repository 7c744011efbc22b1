// Stored snippets. Two items per snippet, both in the account's partition: the snippet (by id:
// its name and bodies) and its name item (by lowercased name: which snippet holds the name, and
// which templates include it). The name item is the one place where a template's use of a
// snippet and the snippet's rename or delete meet, so every such write is a conditional write on
// it: a template marks the name items of the partials its version calls (`used_by`, one mark per
// template write) before it writes that version; a rename or delete removes the name item only
// while `used_by` is empty. Either the mark lands first (the rename or delete is refused) or the
// removal does (the mark's condition fails and the template write answers 400 invalid_template).
import { keys, keyQueries, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { isId } from '../../ports/ids';
import { queryPage, type Page, type PageRequest } from '../../pagination';

export interface SnippetItem extends ItemKey {
  entity: 'snippet';
  id: string;
  account_id: string;
  name: string;
  body_html: string;
  body_text: string | null;
  created_at: string;
  updated_at: string;
}

export interface SnippetNameItem extends ItemKey {
  entity: 'snippet_name';
  account_id: string;
  snippet_id: string;
  /** When the name was taken (epoch ms): a claim whose snippet never got written can be taken over once it is old. */
  claimed_at?: number;
  /** Marks of the template writes that include this snippet: `<template id>#<write token>`. Absent when none. */
  used_by?: Set<string>;
}

export type NewSnippet = Omit<SnippetItem, keyof ItemKey | 'entity'>;

export class SnippetRepository {
  constructor(private readonly store: Store) {}

  /** Undefined when absent or another account's; a malformed id names nothing and stays out of keys. */
  get(accountId: string, snippetId: string): Promise<SnippetItem | undefined> {
    if (!isId(snippetId, 'snip')) return Promise.resolve(undefined);
    return this.store.get<SnippetItem>(keys.snippet(accountId, snippetId));
  }

  /** The snippets with these ids (those that exist). */
  many(accountId: string, snippetIds: readonly string[]): Promise<SnippetItem[]> {
    if (snippetIds.length === 0) return Promise.resolve([]);
    return this.store.batchGet<SnippetItem>(snippetIds.map((id) => keys.snippet(accountId, id)));
  }

  nameItem(accountId: string, lowerName: string): Promise<SnippetNameItem | undefined> {
    return this.store.get<SnippetNameItem>(keys.snippetName(accountId, lowerName));
  }

  /** A page of the account's snippets, newest first. */
  list(accountId: string, page: PageRequest): Promise<Page<SnippetItem>> {
    return queryPage<SnippetItem>(this.store, keyQueries.accountItems(accountId, keys.snippetPrefix), page);
  }

  /** Takes a name for a snippet; false when another snippet holds it (this one may take it again). */
  claimName(accountId: string, lowerName: string, snippetId: string, nowMs: number): Promise<boolean> {
    const item: SnippetNameItem = { ...keys.snippetName(accountId, lowerName), entity: 'snippet_name', account_id: accountId, snippet_id: snippetId, claimed_at: nowMs };
    return wrote(this.store.put(item, { expression: 'attribute_not_exists(pk) OR snippet_id = :id', values: { ':id': snippetId } }));
  }

  /**
   * Takes over a name whose holder is stale (its snippet was never written, or holds another name
   * now: a create or rename that died between its two writes), only if nobody changed the claim
   * since it was read, it was made before `claimedBefore`, and no template includes it.
   */
  takeOverName(accountId: string, lowerName: string, stale: SnippetNameItem, snippetId: string, nowMs: number, claimedBefore: number): Promise<boolean> {
    const item: SnippetNameItem = { ...keys.snippetName(accountId, lowerName), entity: 'snippet_name', account_id: accountId, snippet_id: snippetId, claimed_at: nowMs };
    return wrote(
      this.store.put(item, {
        expression: 'snippet_id = :old AND attribute_not_exists(used_by) AND (attribute_not_exists(claimed_at) OR claimed_at < :before)',
        values: { ':old': stale.snippet_id, ':before': claimedBefore },
      }),
    );
  }

  /** Gives a name up: only while this snippet holds it and no template includes it. False otherwise (or when it is gone). */
  releaseName(accountId: string, lowerName: string, snippetId: string): Promise<boolean> {
    return wrote(
      this.store.delete(keys.snippetName(accountId, lowerName), {
        expression: 'snippet_id = :id AND attribute_not_exists(used_by)',
        values: { ':id': snippetId },
      }),
    );
  }

  /** Undoes a claimName whose rename did not go through; only while this snippet holds it unused. */
  dropClaim(accountId: string, lowerName: string, snippetId: string): Promise<boolean> {
    return this.releaseName(accountId, lowerName, snippetId);
  }

  create(item: NewSnippet): Promise<boolean> {
    return wrote(this.store.create<SnippetItem>({ ...keys.snippet(item.account_id, item.id), entity: 'snippet', ...item }));
  }

  /** Writes the snippet's name and bodies, if its name is still `seenName`. Undefined when it changed or the snippet is gone. */
  async update(accountId: string, snippetId: string, seenName: string, fields: Pick<SnippetItem, 'name' | 'body_html' | 'body_text' | 'updated_at'>): Promise<SnippetItem | undefined> {
    let updated: SnippetItem | undefined;
    const ok = await wrote(
      this.store
        .update<SnippetItem>(keys.snippet(accountId, snippetId), {
          expression: 'SET #name = :name, body_html = :html, body_text = :text, updated_at = :at',
          names: { '#name': 'name' },
          values: { ':name': fields.name, ':html': fields.body_html, ':text': fields.body_text, ':at': fields.updated_at, ':seen': seenName },
          condition: 'attribute_exists(pk) AND #name = :seen',
        })
        .then((item) => void (updated = item)),
    );
    return ok ? updated : undefined;
  }

  /** False when there was no such snippet. */
  remove(accountId: string, snippetId: string): Promise<boolean> {
    if (!isId(snippetId, 'snip')) return Promise.resolve(false);
    return wrote(this.store.delete(keys.snippet(accountId, snippetId), { expression: 'attribute_exists(pk)' }));
  }

  /** Marks the name as included by a template write; false when the name is gone or now another snippet's. */
  mark(accountId: string, lowerName: string, snippetId: string, mark: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.snippetName(accountId, lowerName), {
        expression: 'ADD used_by :mark',
        values: { ':mark': new Set([mark]), ':id': snippetId },
        condition: 'attribute_exists(pk) AND snippet_id = :id',
      }),
    );
  }

  /** Removes a mark (a superseded or deleted template version's, or a failed write's); nothing when the name is gone. */
  async unmark(accountId: string, lowerName: string, mark: string): Promise<void> {
    await wrote(
      this.store.update(keys.snippetName(accountId, lowerName), {
        expression: 'DELETE used_by :mark',
        values: { ':mark': new Set([mark]) },
        condition: 'attribute_exists(pk)',
      }),
    );
  }
}
