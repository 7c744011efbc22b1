// GET /v1/mail/search: the account's inbound and outbound mail matching `q`, newest first, at most
// `limit` (default 50, at most 100), optionally of one inbox (inbox_id, 404 when unknown) or
// address (inbox). Bad `q` is 400 before anything is read. A result comes from its posting when the
// posting carries what a result shows and no phrase check needs the text; else from its document.
import type { Store } from '../../db/store';
import { parseLimit } from '../../pagination';
import { findHits, planSearch, resultOfHit } from './search';
import { parseSearchQuery } from './search-query';
import type { SearchQueryInput, SearchResult } from './search-schemas';
import { addressFilter } from './threads';

export async function searchMail(store: Store, accountId: string, input: SearchQueryInput): Promise<SearchResult[]> {
  parseSearchQuery(input.q);
  const address = await addressFilter(store, accountId, input);
  const { hits } = await findHits(store, planSearch(accountId, input.q, address), parseLimit(input.limit), { docs: true, shown: true });
  return hits.flatMap((h) => resultOfHit(h) ?? []);
}
