// Inbound routes in the store: one item per route in its account's partition (`INBROUTE#`), read
// whole when a message is matched (an account holds at most MAX_ROUTES).
import { keys, keyQueries, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { isId } from '../../ports/ids';
import type { DestinationType, RouteView } from './schemas';
import { allItems } from '../../db/all-items';

export interface RouteItem extends ItemKey {
  entity: 'inbound_route';
  id: string;
  account_id: string;
  domain: string;
  match_prefix: string;
  destination_type: DestinationType;
  forward_url: string | null;
  forward_address: string | null;
  active: boolean;
  /** The signing secret sealed with shared/secret-box (context: the route id). */
  secret_sealed: string;
  created_at: string;
  updated_at: string;
}

export type NewRoute = Omit<RouteItem, keyof ItemKey | 'entity'>;
export type RouteChanges = Partial<Pick<RouteItem, 'match_prefix' | 'destination_type' | 'forward_url' | 'forward_address' | 'active'>>;

export const toRouteView = (r: NewRoute): RouteView => ({
  id: r.id,
  domain: r.domain,
  match_prefix: r.match_prefix,
  destination_type: r.destination_type,
  forward_url: r.forward_url,
  forward_address: r.forward_address,
  active: r.active,
  created_at: r.created_at,
});

export class RouteRepository {
  constructor(private readonly store: Store) {}

  /** Undefined when absent or another account's; a malformed id names nothing and stays out of keys. */
  get(accountId: string, routeId: string): Promise<RouteItem | undefined> {
    if (!isId(routeId, 'inr')) return Promise.resolve(undefined);
    return this.store.get<RouteItem>(keys.inboundRoute(accountId, routeId));
  }

  /** False when a route with this id exists already. */
  create(item: NewRoute): Promise<boolean> {
    return wrote(this.store.create<RouteItem>({ ...keys.inboundRoute(item.account_id, item.id), entity: 'inbound_route', ...item }));
  }

  /** Every route of the account, oldest first (ids are ULIDs). */
  async all(accountId: string): Promise<RouteItem[]> {
    return allItems<RouteItem>(this.store, keyQueries.accountItems(accountId, keys.inboundRoutePrefix));
  }

  /** The updated route; undefined when it is gone. */
  async update(accountId: string, routeId: string, changes: RouteChanges, updatedAt: string): Promise<RouteItem | undefined> {
    const fields: Record<string, unknown> = { ...changes, updated_at: updatedAt };
    const names = Object.keys(fields).filter((n) => fields[n] !== undefined);
    const write = this.store.update<RouteItem>(keys.inboundRoute(accountId, routeId), {
      expression: `SET ${names.map((n) => `#${n} = :${n}`).join(', ')}`,
      condition: 'attribute_exists(pk)',
      names: Object.fromEntries(names.map((n) => [`#${n}`, n])),
      values: Object.fromEntries(names.map((n) => [`:${n}`, fields[n]])),
    });
    let result: RouteItem | undefined;
    return (await wrote(write.then((r) => void (result = r)))) ? result : undefined;
  }

  /**
   * Swaps the sealed secret only if it is still `from`: of two racing rotations one wins.
   * Undefined when the secret changed meanwhile or the route is gone.
   */
  async replaceSecret(accountId: string, routeId: string, change: { from: string; to: string; updatedAt: string }): Promise<RouteItem | undefined> {
    const write = this.store.update<RouteItem>(keys.inboundRoute(accountId, routeId), {
      expression: 'SET secret_sealed = :new, updated_at = :now',
      condition: 'secret_sealed = :old',
      values: { ':new': change.to, ':old': change.from, ':now': change.updatedAt },
    });
    let result: RouteItem | undefined;
    return (await wrote(write.then((r) => void (result = r)))) ? result : undefined;
  }

  /** False when there was no such route. */
  remove(accountId: string, routeId: string): Promise<boolean> {
    if (!isId(routeId, 'inr')) return Promise.resolve(false);
    return wrote(this.store.delete(keys.inboundRoute(accountId, routeId), { expression: 'attribute_exists(pk)' }));
  }
}
