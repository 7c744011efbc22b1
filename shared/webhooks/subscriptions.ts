// Webhook subscriptions: the use cases behind /v1/webhooks and the reads the delivery worker needs.
// The signing secret is shown once (create, rotate) and otherwise kept sealed under the data
// encryption key, bound to the subscription id; the worker opens it to sign each request.
import { randomBytes } from 'node:crypto';
import { accountPartition, keys } from '../db/keys';
import type { Store } from '../db/store';
import { ApiError, ConditionFailedError, InvalidRequestError, NotFoundError } from '../errors';
import { isId, type Ids } from '../ids';
import { listAccountItems, queryPage, type Page } from '../pagination';
import type { Clock } from '../ports/clock';
import type { Secrets } from '../ports/secrets';
import { open, seal } from '../secret-box';
import {
  matches,
  toDeliveryView,
  toSubscriptionView,
  type DeliveryItem,
  type DeliveryView,
  type SubscriptionItem,
  type SubscriptionView,
} from './model';
import { checkUrl, UnsafeUrlError, type Lookup } from './outbound';
import type { CreateWebhookBody, SubscriptionWithSecretView, UpdateWebhookBody } from './schemas';

/** Recorded in docs/api-decisions.md: bounds the fan-out cost of one event. */
export const MAX_SUBSCRIPTIONS = 20;
const SECRET_BYTES = 32;
const ENCRYPTION_KEY = 'data-encryption-key';

export interface SubscriptionDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  secrets: Pick<Secrets, 'get'>;
  config: { webhookAllowPrivate: boolean };
  /** DNS resolver for the URL guard; tests stub it, production uses the system resolver. */
  lookup?: Lookup;
}

export interface PageInput {
  limit: number;
  cursor?: string;
}

const notFound = (): NotFoundError => new NotFoundError('webhook subscription');

/** Refuses a URL the service must not call: not https, or not resolving only to public addresses. */
async function checkEndpoint(deps: SubscriptionDeps, url: string): Promise<void> {
  try {
    await checkUrl(url, { allowPrivate: deps.config.webhookAllowPrivate }, deps.lookup);
  } catch (error) {
    // Re-worded to name the field the way every other body error does.
    if (error instanceof UnsafeUrlError) throw new UnsafeUrlError(error.reason, { field: 'body.endpoint_url', cause: error });
    throw error;
  }
}

function newSecret(key: string, subscriptionId: string): { secret: string; sealed: string } {
  const secret = randomBytes(SECRET_BYTES).toString('hex');
  return { secret, sealed: seal(key, secret, subscriptionId) };
}

const withSecret = (item: SubscriptionItem, secret: string): SubscriptionWithSecretView => ({ ...toSubscriptionView(item), signing_secret: secret });

const accountSubscriptionsQuery = (accountId: string) => ({
  keyCondition: 'pk = :pk AND begins_with(sk, :prefix)',
  values: { ':pk': accountPartition(accountId), ':prefix': keys.webhookPrefix },
});

/** The subscription, or undefined when it is absent, deleted or another account's. */
export async function getSubscription(store: Store, accountId: string, subscriptionId: string): Promise<SubscriptionItem | undefined> {
  // A malformed id can name nothing; checking first also keeps oversized path values out of keys.
  if (!isId(subscriptionId, 'whk')) return undefined;
  return store.get<SubscriptionItem>(keys.webhook(accountId, subscriptionId));
}

async function ownedSubscription(store: Store, accountId: string, subscriptionId: string): Promise<SubscriptionItem> {
  const item = await getSubscription(store, accountId, subscriptionId);
  if (!item) throw notFound();
  return item;
}

/** Every active subscription of the account that takes this event type. */
export async function listMatchingSubscriptions(store: Store, accountId: string, eventType: string): Promise<SubscriptionItem[]> {
  const found: SubscriptionItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await store.query({ ...accountSubscriptionsQuery(accountId), ascending: true, startKey });
    found.push(...(out.items as unknown as SubscriptionItem[]).filter((s) => matches(s, eventType)));
    startKey = out.lastKey;
  } while (startKey);
  return found;
}

/** The plaintext signing secret: the HMAC key exactly as shown to the user (64 hex, UTF-8). */
export function signingSecretOf(c: { secrets: Pick<Secrets, 'get'> }, sub: SubscriptionItem): string {
  return open(c.secrets.get(ENCRYPTION_KEY), sub.secret_sealed, sub.id);
}

export async function createSubscription(deps: SubscriptionDeps, accountId: string, body: CreateWebhookBody): Promise<SubscriptionWithSecretView> {
  await checkEndpoint(deps, body.endpoint_url);
  // A count, not a counter: it cannot drift, and a race past the limit costs one extra row at most.
  const existing = await deps.store.query({ ...accountSubscriptionsQuery(accountId), limit: MAX_SUBSCRIPTIONS });
  if (existing.items.length >= MAX_SUBSCRIPTIONS) {
    throw new InvalidRequestError(`an account holds at most ${MAX_SUBSCRIPTIONS} webhook subscriptions; delete one first`);
  }
  const id = deps.ids.next('whk');
  const now = deps.clock.now().toISOString();
  const { secret, sealed } = newSecret(deps.secrets.get(ENCRYPTION_KEY), id);
  const item: SubscriptionItem = {
    ...keys.webhook(accountId, id),
    entity: 'webhook',
    id,
    account_id: accountId,
    endpoint_url: body.endpoint_url,
    event_types: body.event_types ?? [],
    is_active: true,
    secret_sealed: sealed,
    created_at: now,
    updated_at: now,
  };
  await deps.store.create(item);
  return withSecret(item, secret);
}

export async function listSubscriptions(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  page: PageInput,
): Promise<Page<SubscriptionView>> {
  return listAccountItems(deps, accountId, { prefix: keys.webhookPrefix, collection: 'webhooks' }, page, toSubscriptionView);
}

export async function readSubscription(store: Store, accountId: string, subscriptionId: string): Promise<SubscriptionView> {
  return toSubscriptionView(await ownedSubscription(store, accountId, subscriptionId));
}

/** Only the fields sent change; an empty body answers the subscription unchanged. */
export async function updateSubscription(
  deps: SubscriptionDeps,
  accountId: string,
  subscriptionId: string,
  body: UpdateWebhookBody,
): Promise<SubscriptionView> {
  const current = await ownedSubscription(deps.store, accountId, subscriptionId);
  const set: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const assign = (field: keyof UpdateWebhookBody, value: unknown): void => {
    set.push(`#${field} = :${field}`);
    names[`#${field}`] = field;
    values[`:${field}`] = value;
  };
  if (body.endpoint_url !== undefined) {
    await checkEndpoint(deps, body.endpoint_url);
    assign('endpoint_url', body.endpoint_url);
  }
  if (body.event_types !== undefined) assign('event_types', body.event_types);
  if (body.is_active !== undefined) assign('is_active', body.is_active);
  if (set.length === 0) return toSubscriptionView(current);
  set.push('#updated_at = :updated_at');
  names['#updated_at'] = 'updated_at';
  values[':updated_at'] = deps.clock.now().toISOString();
  try {
    const updated = await deps.store.update<SubscriptionItem>(keys.webhook(accountId, subscriptionId), {
      expression: `SET ${set.join(', ')}`,
      condition: 'attribute_exists(pk)',
      names,
      values,
    });
    return toSubscriptionView(updated);
  } catch (error) {
    if (error instanceof ConditionFailedError) throw notFound(); // deleted meanwhile
    throw error;
  }
}

/** Removes the subscription; the worker finds it gone and stops its pending retries. */
export async function deleteSubscription(deps: { store: Store }, accountId: string, subscriptionId: string): Promise<void> {
  if (!isId(subscriptionId, 'whk')) throw notFound();
  try {
    await deps.store.delete(keys.webhook(accountId, subscriptionId), { expression: 'attribute_exists(pk)' });
  } catch (error) {
    if (error instanceof ConditionFailedError) throw notFound();
    throw error;
  }
}

/** A new secret, shown once; the previous one is overwritten and never returned again. */
export async function rotateSecret(deps: SubscriptionDeps, accountId: string, subscriptionId: string): Promise<SubscriptionWithSecretView> {
  const current = await ownedSubscription(deps.store, accountId, subscriptionId);
  const { secret, sealed } = newSecret(deps.secrets.get(ENCRYPTION_KEY), subscriptionId);
  try {
    // Conditional on the secret read: of two racing rotations only one caller gets a secret that works.
    const updated = await deps.store.update<SubscriptionItem>(keys.webhook(accountId, subscriptionId), {
      expression: 'SET secret_sealed = :new, updated_at = :now',
      condition: 'secret_sealed = :old',
      values: { ':new': sealed, ':old': current.secret_sealed, ':now': deps.clock.now().toISOString() },
    });
    return withSecret(updated, secret);
  } catch (error) {
    if (!(error instanceof ConditionFailedError)) throw error;
    if (!(await getSubscription(deps.store, accountId, subscriptionId))) throw notFound();
    throw new ApiError('conflict', 'the secret was rotated by another request meanwhile; rotate again', { cause: error });
  }
}

/** A subscription's delivery log, most recent first (delivery ids are ULIDs). */
export async function listDeliveries(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  subscriptionId: string,
  page: PageInput,
): Promise<Page<DeliveryView>> {
  await ownedSubscription(deps.store, accountId, subscriptionId);
  const out = await queryPage(
    deps.store,
    { keyCondition: 'pk = :pk', values: { ':pk': keys.deliveriesPartition(subscriptionId) } },
    {
      secret: deps.cursorSecret,
      // Bound to the subscription: a cursor from one delivery log cannot walk another.
      scope: { accountId, collection: 'webhook-deliveries', filters: { subscription_id: subscriptionId } },
      limit: page.limit,
      cursor: page.cursor,
    },
  );
  return { items: out.items.map((i) => toDeliveryView(i as unknown as DeliveryItem)), nextCursor: out.nextCursor };
}
