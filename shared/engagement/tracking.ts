// The tracking links' use cases: a pixel fetched or a link followed records `opened` or `clicked`
// on the message's timeline (each time: both may repeat), with the client's IP and user agent, and
// the webhooks fan out as for any event. The payload is SES's Open or Click notification, as SES
// would publish it in AWS, since the local runtime plays SES's tracking here.
import { NotFoundError } from '../errors';
import type { Ids } from '../ports/ids';
import type { Store } from '../db/store';
import type { MessageItem } from '../sending/messages/model';
import { MessageRepository } from '../sending/messages/repository';
import { recordEvent, type TimelineListeners } from '../sending/messages/timeline';
import type { Clock } from '../ports/clock';
import type { Metrics } from '../ports/metrics';
import type { Queue } from '../ports/queue';
import type { Secrets } from '../ports/secrets';
import { randomHex } from '../crypto/crypto';
import { UNSUBSCRIBE_SECRET } from '../sending/unsubscribe/links';
import { tracksClicks, tracksOpens } from '../sending/tracking/choice';
import { trackedMessageOf, trackTokenMatches, type TrackKind } from '../sending/tracking/token';

export interface TrackingDeps {
  /** The timeline's listeners (shared/runtime/listeners.ts), passed on to recordEvent. */
  timeline: TimelineListeners;
  store: Store;
  clock: Clock;
  ids: Ids;
  queue: Queue;
  metrics: Metrics;
  secrets: Pick<Secrets, 'get'>;
}

export interface Visitor {
  ipAddress: string;
  userAgent: string;
}

/** The tracked message the token was issued for; 404 for anything else, alike for every cause. */
async function trackedMessage(deps: Pick<TrackingDeps, 'store' | 'secrets'>, kind: TrackKind, token: string, link = ''): Promise<MessageItem> {
  const messageId = trackedMessageOf(token);
  const message = messageId ? await new MessageRepository(deps.store).get(messageId) : undefined;
  const tracked = kind === 'open' ? tracksOpens(message?.tracking) : tracksClicks(message?.tracking);
  if (!message || !tracked || !trackTokenMatches(deps.secrets.get(UNSUBSCRIBE_SECRET), kind, token, message, link)) throw new NotFoundError('link');
  return message;
}

async function record(deps: TrackingDeps, message: MessageItem, kind: TrackKind, visitor: Visitor, link?: string): Promise<void> {
  const at = deps.clock.now().toISOString();
  const detail = { timestamp: at, ipAddress: visitor.ipAddress, userAgent: visitor.userAgent, ...(link === undefined ? {} : { link, linkTags: {} }) };
  const payload = {
    notificationType: kind === 'open' ? 'Open' : 'Click',
    mail: { messageId: message.provider_message_id ?? '', timestamp: message.created_at },
    [kind]: detail,
  };
  // Every hit is a signal of its own (opens and clicks may repeat): a fresh dedup key each time.
  await recordEvent(deps, message, { type: kind === 'open' ? 'opened' : 'clicked', source: 'ses', providerEventId: `trk_${randomHex(16)}`, payload, occurredAt: at });
}

/** GET /v1/t/o/{token}: the open pixel was fetched. */
export async function recordOpen(deps: TrackingDeps, token: string, visitor: Visitor): Promise<void> {
  await record(deps, await trackedMessage(deps, 'open', token), 'open', visitor);
}

/** GET /v1/t/c/{token}?url=: a tracked link was followed; answers where to send the visitor. */
export async function recordClick(deps: TrackingDeps, token: string, link: string | undefined, visitor: Visitor): Promise<string> {
  if (!link) throw new NotFoundError('link');
  const message = await trackedMessage(deps, 'click', token, link);
  await record(deps, message, 'click', visitor, link);
  return link;
}
