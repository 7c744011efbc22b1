// The writes that move a domain name's claim between states and accounts, and the one that lists a
// domain's ownership record (shared/domains/claims.ts has the rules). Apart from DomainRepository, which the send path carries to read an account's
// domains: only registration and verification need these.
import { keys } from '../db/keys';
import { wrote, type Store } from '../db/store';
import type { DnsRecord, DomainClaimItem } from './repository';

/** The claim as it was read: a conditional write on it holds only if nobody changed it meanwhile. */
export type ClaimSeen = Pick<DomainClaimItem, 'account_id' | 'state'>;
const unchanged = (seen: ClaimSeen): { condition: string; values: Record<string, unknown> } =>
  seen.state === undefined
    ? { condition: 'account_id = :holder AND attribute_not_exists(#state)', values: { ':holder': seen.account_id } }
    : { condition: 'account_id = :holder AND #state = :seenState', values: { ':holder': seen.account_id, ':seenState': seen.state } };

export class DomainClaimRepository {
  constructor(private readonly store: Store) {}

  /** A pending claim on a free name; false when some account (this one included) holds the name already. */
  claim(accountId: string, domain: string, pendingUntil: number): Promise<boolean> {
    const item: DomainClaimItem = { ...keys.domainClaim(domain), entity: 'domain_claim', account_id: accountId, state: 'pending', pending_until: pendingUntil, contested: false };
    return wrote(this.store.create(item));
  }

  /** Takes an expired pending claim as a new pending one, uncontested; false when it changed meanwhile. */
  takeExpired(accountId: string, domain: string, seen: ClaimSeen, pendingUntil: number): Promise<boolean> {
    const { condition, values } = unchanged(seen);
    return wrote(
      this.store.update(keys.domainClaim(domain), {
        expression: 'SET account_id = :me, #state = :pending, pending_until = :until, contested = :no',
        condition,
        names: { '#state': 'state' },
        values: { ...values, ':me': accountId, ':pending': 'pending', ':until': pendingUntil, ':no': false },
      }),
    );
  }

  /** Marks a pending claim contested; false when it changed meanwhile. */
  contest(domain: string, seen: ClaimSeen): Promise<boolean> {
    const { condition, values } = unchanged(seen);
    return wrote(this.store.update(keys.domainClaim(domain), { expression: 'SET contested = :yes', condition, names: { '#state': 'state' }, values: { ...values, ':yes': true } }));
  }

  /**
   * The verified claim of the account whose verification succeeded: a free name, its own claim,
   * or another account's pending claim as it was read. false when the claim changed meanwhile.
   */
  win(accountId: string, domain: string, seen: ClaimSeen | undefined): Promise<boolean> {
    if (!seen) {
      return wrote(this.store.create({ ...keys.domainClaim(domain), entity: 'domain_claim', account_id: accountId, state: 'verified' } satisfies DomainClaimItem));
    }
    const { condition, values } = unchanged(seen);
    return wrote(
      this.store.update(keys.domainClaim(domain), {
        expression: 'SET account_id = :me, #state = :verified REMOVE pending_until',
        condition,
        names: { '#state': 'state' },
        values: { ...values, ':me': accountId, ':verified': 'verified' },
      }),
    );
  }

  /** Lists one more record to publish (the ownership record); false when the domain is gone. */
  setRecords(accountId: string, domain: string, records: DnsRecord[], now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.domain(accountId, domain), {
        expression: 'SET dns_records = :records, updated_at = :now',
        condition: 'attribute_exists(pk)',
        values: { ':records': records, ':now': now },
      }),
    );
  }
}
