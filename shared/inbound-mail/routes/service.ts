// Inbound email settings: turning inbound on for a domain, and the routes that forward what it
// receives. A route's signing secret is shown once (create) and otherwise kept sealed under the
// data encryption key, bound to the route id, as webhook subscriptions keep theirs.
import type { Store } from '../../db/store';
import { domainOf, isValidAddress, normalizeAddress } from '../../formats/address';
import { isFullyVerified, normalizeDomain } from '../../domains/model';
import { DomainRepository, type DomainItem } from '../../domains/repository';
import { ApiError, InvalidRequestError, NotFoundError } from '../../errors';
import type { Ids } from '../../ports/ids';
import type { Clock } from '../../ports/clock';
import type { HttpClient } from '../../ports/http-client';
import type { Secrets } from '../../ports/secrets';
import { newSigningSecret, openSigningSecret } from '../../webhooks/signing-secret';
import { RouteRepository, toRouteView, type NewRoute, type RouteChanges, type RouteItem } from './repository';
import type { CreateRouteBody, DestinationType, InboundSettingView, RouteView, RouteWithSecretView, UpdateRouteBody } from './schemas';

/** Recorded in docs/api-decisions.md: every received message reads all of its account's routes. */
export const MAX_ROUTES = 100;

export interface InboundConfig {
  runtime: 'aws' | 'local';
  region: string;
  inboundEnabled?: boolean;
  inboundSmtpHost?: string;
  sharedEmailSender: string;
}

/** Where MX records of inbound domains point: SES's inbound endpoint, or the local SMTP listener. */
export function inboundMxHost(config: InboundConfig): string {
  return config.runtime === 'aws' ? `inbound-smtp.${config.region}.amazonaws.com` : (config.inboundSmtpHost ?? '127.0.0.1');
}

/** The account's domain by its id (dom_…) or its name; 404 for anything else. */
async function domainByIdOrName(store: Store, accountId: string, input: string): Promise<DomainItem> {
  const domains = new DomainRepository(store);
  let item: DomainItem | undefined;
  if (/^dom_[0-9A-Za-z]{1,40}$/.test(input)) {
    item = (await domains.listAll(accountId)).find((d) => d.id === input);
  } else {
    const name = normalizeDomain(input);
    item = name ? await domains.get(accountId, name) : undefined;
  }
  if (!item) throw new NotFoundError('domain');
  return item;
}

/**
 * Turns inbound email on or off for one of the account's domains. On needs the domain fully
 * verified, which also takes the account out of the sandbox; the built-in sandbox domain is
 * never ready. Off is always allowed.
 */
export async function setInbound(
  deps: { store: Store; clock: Clock; config: InboundConfig },
  accountId: string,
  input: string,
  enabled: boolean,
): Promise<InboundSettingView> {
  if (input === 'dom_sandbox' || normalizeDomain(input) === domainOf(deps.config.sharedEmailSender)) {
    throw new ApiError('domain_not_ready', 'the built-in sandbox domain cannot receive mail; enable inbound on a verified domain of your own');
  }
  const domain = await domainByIdOrName(deps.store, accountId, input);
  if (enabled && !isFullyVerified(domain)) {
    throw new ApiError('domain_not_ready', `${domain.domain} is not verified yet (DKIM, SPF and DMARC); verify it before enabling inbound email`);
  }
  if (!(await new DomainRepository(deps.store).setInboundEnabled(accountId, domain.domain, enabled, deps.clock.now().toISOString()))) {
    throw new NotFoundError('domain'); // deleted meanwhile
  }
  return { enabled, mx_record: { type: 'MX', priority: '10', value: inboundMxHost(deps.config) } };
}

export interface RouteDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  secrets: Pick<Secrets, 'get'>;
  /** Its check decides which forward URLs may be saved (https, public addresses only). */
  http: Pick<HttpClient, 'check'>;
}

const notFound = (): NotFoundError => new NotFoundError('inbound route');

/** The plaintext signing secret of a route: the HMAC key exactly as shown (64 hex, UTF-8). */
export function routeSecretOf(c: { secrets: Pick<Secrets, 'get'> }, route: Pick<RouteItem, 'id' | 'secret_sealed'>): string {
  return openSigningSecret(c, route);
}

async function ownedRoute(routes: RouteRepository, accountId: string, routeId: string): Promise<RouteItem> {
  const item = await routes.get(accountId, routeId);
  if (!item) throw notFound();
  return item;
}

interface Destination {
  destination_type: DestinationType;
  forward_url: string | null;
  forward_address: string | null;
}

/**
 * The destination a route ends up with, checked whole: a webhook route has an https forward_url on
 * a public address and no address; an email route a valid forward_address outside the route's own
 * domain (a forward there would come straight back) and no URL.
 */
async function checkDestination(deps: RouteDeps, domain: string, d: Destination, sent: { forward_url?: string; forward_address?: string }): Promise<Destination> {
  if (d.destination_type === 'webhook') {
    if (sent.forward_address !== undefined) throw new InvalidRequestError('body.forward_address: only email routes take a forward_address');
    if (!d.forward_url) throw new InvalidRequestError('body.forward_url: required for webhook routes');
    if (sent.forward_url !== undefined) {
      const checked = await deps.http.check(d.forward_url);
      if (!checked.ok) throw new InvalidRequestError(`body.forward_url: ${checked.reason}`);
    }
    return { destination_type: 'webhook', forward_url: d.forward_url, forward_address: null };
  }
  if (sent.forward_url !== undefined) throw new InvalidRequestError('body.forward_url: only webhook routes take a forward_url');
  if (!d.forward_address) throw new InvalidRequestError('body.forward_address: required for email routes');
  const address = normalizeAddress(d.forward_address);
  if (!isValidAddress(address)) throw new InvalidRequestError('body.forward_address: expected an email address');
  if (domainOf(address) === domain) throw new InvalidRequestError(`body.forward_address: must not be on ${domain}, the route's own domain (the forward would come back to it)`);
  return { destination_type: 'email', forward_url: null, forward_address: address };
}

/** Two routes of a domain with the same prefix would leave the choice to age; the second is refused. */
function assertPrefixFree(routes: readonly RouteItem[], domain: string, prefix: string, except?: string): void {
  if (routes.some((r) => r.domain === domain && r.match_prefix === prefix && r.id !== except)) {
    throw new ApiError('conflict', prefix === '' ? `${domain} has a catch-all route already` : `${domain} has a route for the prefix "${prefix}" already`);
  }
}

export async function createRoute(deps: RouteDeps, accountId: string, body: CreateRouteBody): Promise<RouteWithSecretView> {
  const name = normalizeDomain(body.domain);
  const domain = name ? await new DomainRepository(deps.store).get(accountId, name) : undefined;
  if (!domain) throw new NotFoundError('domain');
  if (domain.inbound_enabled !== true) {
    throw new ApiError('domain_not_ready', `inbound email is not enabled on ${domain.domain}; POST /v1/domains/${domain.domain}/inbound {"enabled": true} first`);
  }
  const destination = await checkDestination(
    deps,
    domain.domain,
    { destination_type: body.destination_type, forward_url: body.forward_url ?? null, forward_address: body.forward_address ?? null },
    body,
  );
  const routes = new RouteRepository(deps.store);
  const existing = await routes.all(accountId);
  if (existing.length >= MAX_ROUTES) throw new InvalidRequestError(`an account holds at most ${MAX_ROUTES} inbound routes; delete one first`);
  assertPrefixFree(existing, domain.domain, body.match_prefix);
  const id = deps.ids.next('inr');
  const now = deps.clock.now().toISOString();
  const { secret, sealed } = newSigningSecret(deps, id);
  const item: NewRoute = {
    id,
    account_id: accountId,
    domain: domain.domain,
    match_prefix: body.match_prefix,
    ...destination,
    active: true,
    secret_sealed: sealed,
    created_at: now,
    updated_at: now,
  };
  // Ids are fresh ULIDs: a collision is a broken id source, not a user's conflict.
  if (!(await routes.create(item))) throw new Error(`inbound route ${id} exists already`);
  return { ...toRouteView(item), signing_secret: secret };
}

export async function listRoutes(store: Store, accountId: string): Promise<RouteView[]> {
  return (await new RouteRepository(store).all(accountId)).map(toRouteView);
}

export async function readRoute(store: Store, accountId: string, routeId: string): Promise<RouteView> {
  return toRouteView(await ownedRoute(new RouteRepository(store), accountId, routeId));
}

/** Only the fields sent change; `{}` answers the route unchanged. */
export async function updateRoute(deps: RouteDeps, accountId: string, routeId: string, body: UpdateRouteBody): Promise<RouteView> {
  const routes = new RouteRepository(deps.store);
  const current = await ownedRoute(routes, accountId, routeId);
  const changes: RouteChanges = {};
  if (body.destination_type !== undefined || body.forward_url !== undefined || body.forward_address !== undefined) {
    const type = body.destination_type ?? current.destination_type;
    // A type change drops the other type's field; a field of the other type is refused.
    const destination = await checkDestination(
      deps,
      current.domain,
      {
        destination_type: type,
        forward_url: body.forward_url ?? (type === current.destination_type ? current.forward_url : null),
        forward_address: body.forward_address ?? (type === current.destination_type ? current.forward_address : null),
      },
      body,
    );
    Object.assign(changes, destination);
  }
  if (body.match_prefix !== undefined && body.match_prefix !== current.match_prefix) {
    assertPrefixFree(await routes.all(accountId), current.domain, body.match_prefix, current.id);
    changes.match_prefix = body.match_prefix;
  }
  if (body.active !== undefined) changes.active = body.active;
  if (Object.keys(changes).length === 0) return toRouteView(current);
  const updated = await routes.update(accountId, routeId, changes, deps.clock.now().toISOString());
  if (!updated) throw notFound(); // deleted meanwhile
  return toRouteView(updated);
}

export async function deleteRoute(store: Store, accountId: string, routeId: string): Promise<void> {
  if (!(await new RouteRepository(store).remove(accountId, routeId))) throw notFound();
}

/**
 * A new signing secret, shown once; the previous one is overwritten, never returned again, and
 * signs no later attempt (each attempt opens the route's secret as it is then). Email routes hold
 * a secret too (shown at create; it signs once the route is changed to a webhook), so they rotate
 * alike. Of two rotations at once the later is 409, so nobody holds a secret that does not work.
 */
export async function rotateRouteSecret(deps: Pick<RouteDeps, 'store' | 'clock' | 'secrets'>, accountId: string, routeId: string): Promise<RouteWithSecretView> {
  const routes = new RouteRepository(deps.store);
  const current = await ownedRoute(routes, accountId, routeId);
  const { secret, sealed } = newSigningSecret(deps, current.id);
  const updated = await routes.replaceSecret(accountId, current.id, { from: current.secret_sealed, to: sealed, updatedAt: deps.clock.now().toISOString() });
  if (updated) return { ...toRouteView(updated), signing_secret: secret };
  if (!(await routes.get(accountId, current.id))) throw notFound(); // deleted meanwhile
  throw new ApiError('conflict', 'the secret was rotated by another request meanwhile; rotate again');
}
