// Who may hold a domain name, and when an account must prove it owns one. A name has one claim
// across the deployment (the provider identity exists once). Registering takes a free name as a
// pending claim; a pending claim holds for PENDING_CLAIM_DAYS and never blocks anyone: another
// account may register the name meanwhile (the claim becomes contested) and take it by verifying,
// and after the days another account's registration takes it over outright. A verified claim is
// kept until its holder deletes the domain. docs/api-decisions.md, "Staff and the edge".
//
// Why an ownership record: the DKIM CNAMEs, the SPF and the DMARC record of a name are the same
// for every account that registers it (the identity's tokens), so publishing them proves that
// someone controls the zone, not which account they use. Wherever more than one account may hold
// records for the name, a verification must also find the account's own TXT record.
import { sha256Hex } from '../crypto/crypto';
import { isFullyVerified } from './model';
import { DomainRepository, type DnsRecord, type DomainClaimItem } from './repository';

/** How long a registration holds a name without verifying it. */
export const PENDING_CLAIM_DAYS = 7;
const DAY_MS = 86_400_000;

export const pendingUntil = (nowMs: number): number => nowMs + PENDING_CLAIM_DAYS * DAY_MS;

/** The claim on a name as the rules read it. */
export interface ClaimStanding {
  holder: string;
  state: 'pending' | 'verified';
  /** A pending claim past its days. */
  expired: boolean;
  contested: boolean;
  /** The item as read, for conditional writes on it. */
  seen: DomainClaimItem;
}

/**
 * The claim on a name, if any. A claim from before claims had states is read from its holder's
 * domain: verified if that is fully verified, else pending since the domain was registered.
 */
export async function claimStanding(domains: DomainRepository, name: string, nowMs: number): Promise<ClaimStanding | undefined> {
  const claim = await domains.claimOf(name);
  if (!claim) return undefined;
  const base = { holder: claim.account_id, contested: claim.contested === true, seen: claim };
  if (claim.state === 'verified') return { ...base, state: 'verified', expired: false };
  if (claim.state === 'pending') return { ...base, state: 'pending', expired: (claim.pending_until ?? 0) <= nowMs };
  const item = await domains.get(claim.account_id, name);
  if (item && isFullyVerified(item)) return { ...base, state: 'verified', expired: false };
  return { ...base, state: 'pending', expired: !item || pendingUntil(Date.parse(item.created_at)) <= nowMs };
}

/**
 * Whether the account must publish its ownership record to verify the name: always, unless it
 * holds the claim alone (uncontested, or verified already).
 */
export const needsOwnershipProof = (accountId: string, claim: ClaimStanding | undefined): boolean =>
  !(claim && claim.holder === accountId && (claim.state === 'verified' || !claim.contested));

const OWNERSHIP_LABEL = '_postbox-verification';
const OWNERSHIP_PREFIX = 'postbox-verification=';

/**
 * The account's ownership record for a name. Its value is derived from the account and the name,
 * not secret: what proves ownership is being able to publish it, and no other account's
 * verification accepts it.
 */
export function ownershipRecord(accountId: string, domain: string): DnsRecord {
  return { type: 'TXT', name: `${OWNERSHIP_LABEL}.${domain}`, value: `${OWNERSHIP_PREFIX}${sha256Hex(`${accountId}:${domain}`).slice(0, 32)}` };
}

export const isOwnershipRecord = (record: DnsRecord): boolean => record.type === 'TXT' && record.value.startsWith(OWNERSHIP_PREFIX);
