// Mail app inboxes: an address on one of the account's inbound domains. An inbox is a name for
// the mail its address receives: membership is resolved by address when mail is read, so creating
// an inbox needs no backfill and deleting one rewrites no message (its mail keeps its recipient
// and thread and reads with inbox_id null). Mail to an address without an inbox still lands in the
// threads (the catch-all stays active).
import type { Store } from '../../db/store';
import { isFullyVerified, normalizeDomain } from '../../domains/model';
import { DomainRepository } from '../../domains/repository';
import { domainOf, isValidAddress, normalizeAddress } from '../../formats/address';
import { ApiError, InvalidRequestError, NotFoundError } from '../../errors';
import { isId, type Ids } from '../../ports/ids';
import type { Clock } from '../../ports/clock';
import type { CreateInboxBody, InboxView } from './schemas';
import { MailSettingsRepository, type MailInboxItem, type NewInbox } from './settings-repository';

/** Recorded in docs/api-decisions.md: every thread read resolves the account's inboxes by address. */
export const MAX_INBOXES = 100;

export function toInboxView(item: NewInbox): InboxView {
  return {
    id: item.id,
    domain_id: item.domain_id,
    domain: item.domain,
    local_part: item.local_part,
    address: item.address,
    active: item.active,
    created_at: item.created_at,
    updated_at: item.updated_at,
  };
}

export interface InboxDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  config: { sharedEmailSender: string };
}

export async function createInbox(deps: InboxDeps, accountId: string, body: CreateInboxBody): Promise<InboxView> {
  const name = normalizeDomain(body.domain);
  if (name !== undefined && name === domainOf(deps.config.sharedEmailSender)) {
    throw new ApiError('domain_not_ready', 'the built-in sandbox domain has no inboxes; use a verified domain of your own with inbound enabled');
  }
  const domain = name ? await new DomainRepository(deps.store).get(accountId, name) : undefined;
  if (!domain) throw new NotFoundError('domain');
  if (!isFullyVerified(domain)) throw new ApiError('domain_not_ready', `${domain.domain} is not verified yet (DKIM, SPF and DMARC); verify it first`);
  if (domain.inbound_enabled !== true) {
    throw new ApiError('domain_not_ready', `inbound email is not enabled on ${domain.domain}; POST /v1/domains/${domain.domain}/inbound {"enabled": true} first`);
  }
  const localPart = normalizeAddress(body.local_part);
  const address = `${localPart}@${domain.domain}`;
  if (!isValidAddress(address)) throw new InvalidRequestError('body.local_part: not the local part of an email address');
  const repo = new MailSettingsRepository(deps.store);
  if ((await repo.inboxes(accountId)).length >= MAX_INBOXES) throw new InvalidRequestError(`an account holds at most ${MAX_INBOXES} inboxes; delete one first`);
  const now = deps.clock.now().toISOString();
  const inbox = {
    id: deps.ids.next('mbx'),
    account_id: accountId,
    domain_id: domain.id,
    domain: domain.domain,
    local_part: localPart,
    address,
    active: true,
    created_at: now,
    updated_at: now,
  };
  if (!(await repo.createInbox(inbox))) throw new ApiError('conflict', `the account has an inbox for ${address} already`);
  return toInboxView(inbox);
}

/** Newest first. */
export async function listInboxes(store: Store, accountId: string): Promise<InboxView[]> {
  const items = await new MailSettingsRepository(store).inboxes(accountId);
  return items.sort((a, b) => (a.id < b.id ? 1 : -1)).map(toInboxView);
}

export async function inboxById(store: Store, accountId: string, id: string): Promise<MailInboxItem> {
  const found = isId(id, 'mbx') ? (await new MailSettingsRepository(store).inboxes(accountId)).find((i) => i.id === id) : undefined;
  if (!found) throw new NotFoundError('inbox');
  return found;
}

export async function deleteInbox(store: Store, accountId: string, id: string): Promise<void> {
  const inbox = await inboxById(store, accountId, id);
  if (!(await new MailSettingsRepository(store).deleteInbox(inbox))) throw new NotFoundError('inbox');
}

/** The account's inbox ids by address: how mail is joined to its inbox when it is read. */
export async function inboxIdsByAddress(store: Store, accountId: string): Promise<Map<string, string>> {
  return new Map((await new MailSettingsRepository(store).inboxes(accountId)).map((i) => [i.address, i.id]));
}
