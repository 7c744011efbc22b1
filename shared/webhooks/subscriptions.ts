// Webhook subscriptions: the use cases behind /v1/webhooks and the reads the delivery worker needs.
// The signing secret is shown once (create, rotate) and otherwise kept sealed under the data
// encryption key, bound to the subscription id; the worker opens it to sign each request.
import type { Store } from '../db/store';
import { ApiError, InvalidRequestError, NotFoundError } from '../errors';
import type { Ids } from '../ports/ids';
import { mapPage, pageRequest, type Page, type PageInput } from '../pagination';
import type { Clock } from '../ports/clock';
import type { HttpClient } from '../ports/http-client';
import type { Secrets } from '../ports/secrets';
import { newSigningSecret, openSigningSecret } from './signing-secret';
import { matches } from './model';
import {
  DeliveryRepository,
  SubscriptionRepository,
  toDeliveryView,
  toSubscriptionView,
  type NewSubscription,
  type SubscriptionChanges,
  type SubscriptionItem,
} from './repository';
import type { CreateWebhookBody, DeliveryView, SubscriptionView, SubscriptionWithSecretView, UpdateWebhookBody } from './schemas';

/** Recorded in docs/api-decisions.md: bounds the fan-out cost of one event. */
export const MAX_SUBSCRIPTIONS = 20;

export interface SubscriptionDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  secrets: Pick<Secrets, 'get'>;
  /** Its check decides which endpoint URLs may be saved (https, public addresses only). */
  http: Pick<HttpClient, 'check'>;
}

const notFound = (): NotFoundError => new NotFoundError('webhook subscription');

/** Refuses a URL the service must not call, naming the field the way every other body error does. */
async function checkEndpoint(deps: SubscriptionDeps, url: string): Promise<void> {
  const checked = await deps.http.check(url);
  if (!checked.ok) throw new InvalidRequestError(`body.endpoint_url: ${checked.reason}`);
}

const withSecret = (item: NewSubscription, secret: string): SubscriptionWithSecretView => ({ ...toSubscriptionView(item), signing_secret: secret });

async function ownedSubscription(subscriptions: SubscriptionRepository, accountId: string, subscriptionId: string): Promise<SubscriptionItem> {
  const item = await subscriptions.get(accountId, subscriptionId);
  if (!item) throw notFound();
  return item;
}

/** Who changes a subscription: a test-mode caller changes only subscriptions a test-mode caller made. */
export interface SubscriptionCaller {
  testMode?: boolean;
}

/**
 * The subscription a caller may change. A live integration's subscription answers a test-mode
 * caller 404, word for word as an unknown id does (as a live broadcast does), so a leaked test key
 * can neither pause, repoint, re-key nor delete it (docs/threat-model.md). Reads show both modes.
 */
export async function changeableSubscription(subscriptions: SubscriptionRepository, accountId: string, subscriptionId: string, caller: SubscriptionCaller): Promise<SubscriptionItem> {
  const item = await ownedSubscription(subscriptions, accountId, subscriptionId);
  if (caller.testMode && item.test_mode !== true) throw notFound();
  return item;
}

/** Every subscription of the account, active or not (listMatchingSubscriptions picks those an event type reaches). */
export function allSubscriptions(store: Store, accountId: string, options: { consistent?: boolean } = {}): Promise<SubscriptionItem[]> {
  return new SubscriptionRepository(store).all(accountId, options);
}

/** Every active subscription of the account that takes this event type. */
export async function listMatchingSubscriptions(store: Store, accountId: string, eventType: string, options: { consistent?: boolean } = {}): Promise<SubscriptionItem[]> {
  return (await new SubscriptionRepository(store).all(accountId, options)).filter((s) => matches(s, eventType));
}

/** The plaintext signing secret: the HMAC key exactly as shown to the user (64 hex, UTF-8). */
export function signingSecretOf(c: { secrets: Pick<Secrets, 'get'> }, sub: SubscriptionItem): string {
  return openSigningSecret(c, sub);
}

export async function createSubscription(deps: SubscriptionDeps, accountId: string, body: CreateWebhookBody, caller: SubscriptionCaller = {}): Promise<SubscriptionWithSecretView> {
  const subscriptions = new SubscriptionRepository(deps.store);
  await checkEndpoint(deps, body.endpoint_url);
  // A count, not a counter: it cannot drift, and a race past the limit costs one extra row at most.
  if ((await subscriptions.count(accountId, MAX_SUBSCRIPTIONS)) >= MAX_SUBSCRIPTIONS) {
    throw new InvalidRequestError(`an account holds at most ${MAX_SUBSCRIPTIONS} webhook subscriptions; delete one first`);
  }
  const id = deps.ids.next('whk');
  const now = deps.clock.now().toISOString();
  const { secret, sealed } = newSigningSecret(deps, id);
  const item: NewSubscription = {
    id,
    account_id: accountId,
    endpoint_url: body.endpoint_url,
    event_types: body.event_types ?? [],
    is_active: true,
    secret_sealed: sealed,
    ...(caller.testMode ? { test_mode: true } : {}),
    created_at: now,
    updated_at: now,
  };
  // Ids are fresh ULIDs: a collision is a broken id source, not a user's conflict.
  if (!(await subscriptions.create(item))) throw new Error(`webhook subscription ${id} exists already`);
  return withSecret(item, secret);
}

export async function listSubscriptions(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  page: PageInput,
): Promise<Page<SubscriptionView>> {
  const out = await new SubscriptionRepository(deps.store).list(accountId, pageRequest(deps, { accountId, collection: 'webhooks' }, page));
  return mapPage(out, toSubscriptionView);
}

export async function readSubscription(store: Store, accountId: string, subscriptionId: string): Promise<SubscriptionView> {
  return toSubscriptionView(await ownedSubscription(new SubscriptionRepository(store), accountId, subscriptionId));
}

/** Only the fields sent change; an empty body answers the subscription unchanged. */
export async function updateSubscription(
  deps: SubscriptionDeps,
  accountId: string,
  subscriptionId: string,
  body: UpdateWebhookBody,
  caller: SubscriptionCaller = {},
): Promise<SubscriptionView> {
  const subscriptions = new SubscriptionRepository(deps.store);
  const current = await changeableSubscription(subscriptions, accountId, subscriptionId, caller);
  const changes: SubscriptionChanges = {};
  if (body.endpoint_url !== undefined) {
    await checkEndpoint(deps, body.endpoint_url);
    changes.endpoint_url = body.endpoint_url;
  }
  if (body.event_types !== undefined) changes.event_types = body.event_types;
  if (body.is_active !== undefined) changes.is_active = body.is_active;
  if (Object.keys(changes).length === 0) return toSubscriptionView(current);
  const updated = await subscriptions.update(accountId, subscriptionId, changes, deps.clock.now().toISOString());
  if (!updated) throw notFound(); // deleted meanwhile
  return toSubscriptionView(updated);
}

/** Removes the subscription; the worker finds it gone and stops its pending retries. */
export async function deleteSubscription(deps: { store: Store }, accountId: string, subscriptionId: string, caller: SubscriptionCaller = {}): Promise<void> {
  const subscriptions = new SubscriptionRepository(deps.store);
  if (caller.testMode) await changeableSubscription(subscriptions, accountId, subscriptionId, caller);
  if (!(await subscriptions.remove(accountId, subscriptionId))) throw notFound();
}

/**
 * Removes every subscription of the account: endpoints a squatter subscribed before the address
 * was claimed (shared/auth/service.ts, claimAddress) must not receive the owner's events.
 */
export async function removeEverySubscription(deps: { store: Store }, accountId: string): Promise<number> {
  const subscriptions = new SubscriptionRepository(deps.store);
  let removed = 0;
  for (const sub of await subscriptions.all(accountId)) if (await subscriptions.remove(accountId, sub.id)) removed += 1;
  return removed;
}

/** A new secret, shown once; the previous one is overwritten and never returned again. */
export async function rotateSecret(deps: SubscriptionDeps, accountId: string, subscriptionId: string, caller: SubscriptionCaller = {}): Promise<SubscriptionWithSecretView> {
  const subscriptions = new SubscriptionRepository(deps.store);
  const current = await changeableSubscription(subscriptions, accountId, subscriptionId, caller);
  const { secret, sealed } = newSigningSecret(deps, subscriptionId);
  const updated = await subscriptions.replaceSecret(accountId, subscriptionId, { from: current.secret_sealed, to: sealed, updatedAt: deps.clock.now().toISOString() });
  if (updated) return withSecret(updated, secret);
  if (!(await subscriptions.get(accountId, subscriptionId))) throw notFound();
  throw new ApiError('conflict', 'the secret was rotated by another request meanwhile; rotate again');
}

/** A subscription's delivery log, most recent first (delivery ids are ULIDs). */
export async function listDeliveries(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  subscriptionId: string,
  page: PageInput,
): Promise<Page<DeliveryView>> {
  await ownedSubscription(new SubscriptionRepository(deps.store), accountId, subscriptionId);
  // Bound to the subscription: a cursor from one delivery log cannot walk another.
  const out = await new DeliveryRepository(deps.store).list(subscriptionId, pageRequest(deps, { accountId, collection: 'webhook-deliveries', filters: { subscription_id: subscriptionId } }, page));
  return mapPage(out, toDeliveryView);
}
