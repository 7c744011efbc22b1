// Signed tracking links of a message mailed by the local runtime (AWS: SES makes its own). Nothing
// is stored for them: an open token is the message's ULID and a MAC over the message and its
// account; a click token's MAC also covers the link it redirects to, so the redirect goes only
// where the mail pointed (never an open redirect). The MAC is keyed with a key derived (HKDF, its
// own label) from the unsubscribe-signing-key secret, so tracking adds no secret to the stack.
import { derivedKey, hmacSha256, safeEqualBytes } from '../../crypto/crypto';

export interface TrackedRef {
  /** msg_ id */
  id: string;
  account_id: string;
}

export type TrackKind = 'open' | 'click';

const MAC_BYTES = 16;
const TOKEN = /^([0-9a-hjkmnp-tv-z]{26})\.([A-Za-z0-9_-]{22})$/;
/** Longer than any token we issue; checked before any regex or store read. */
export const MAX_TRACK_TOKEN_LENGTH = 64;
/** The longest link a click token is made for; longer ones are mailed untracked. */
export const MAX_TRACKED_LINK_LENGTH = 2048;
const LABEL = 'postbox-tracking/v1';

function macOf(secret: string, kind: TrackKind, ref: TrackedRef, link: string): Buffer {
  // One field a line, with a version label and the kind: an open token is never a click token.
  const input = [LABEL, kind, ref.id, ref.account_id, link].join('\n');
  return hmacSha256(derivedKey(secret, LABEL), input).subarray(0, MAC_BYTES);
}

/** The token of an open (link empty) or of a click on `link`. */
export function trackToken(secret: string, kind: TrackKind, ref: TrackedRef, link = ''): string {
  if (!ref.id.startsWith('msg_')) throw new Error(`not a message id: ${ref.id}`);
  return `${ref.id.slice(4)}.${macOf(secret, kind, ref, link).toString('base64url')}`;
}

/** The message a well-formed token names, or undefined for anything else. */
export function trackedMessageOf(token: string): string | undefined {
  if (token.length > MAX_TRACK_TOKEN_LENGTH) return undefined;
  const match = TOKEN.exec(token);
  return match ? `msg_${match[1]}` : undefined;
}

/** True when `token` is the one issued for this message, kind and link; constant time. */
export function trackTokenMatches(secret: string, kind: TrackKind, token: string, ref: TrackedRef, link = ''): boolean {
  const match = token.length <= MAX_TRACK_TOKEN_LENGTH ? TOKEN.exec(token) : null;
  if (!match || `msg_${match[1]}` !== ref.id) return false;
  return safeEqualBytes(Buffer.from(match[2] as string, 'base64url'), macOf(secret, kind, ref, link));
}
