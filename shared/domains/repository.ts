// Sending domains in the store: the domain item (BIMI settings included), the deployment-wide
// claim on a domain name, and the account's domain count the limit is checked against.
import {  keys, type ItemKey, keyQueries } from '../db/keys';
import { wrote, type Store } from '../db/store';
import { allItems } from '../db/all-items';

export type VerificationStatus = 'pending' | 'verified' | 'failed';

export interface DnsRecord {
  type: 'CNAME' | 'MX' | 'TXT';
  name: string;
  value: string;
}

/** A domain's BIMI settings: the use cases live in shared/domains/bimi, the value on the domain item. */
export interface BimiSettings {
  logo_url: string;
  /** `upload`: we host the file at /v1/bimi/{domain}/logo.svg; `url`: the customer hosts it. */
  logo_source: 'upload' | 'url';
  updated_at: string;
}

export interface DomainItem extends ItemKey {
  entity: 'domain';
  id: string;
  account_id: string;
  domain: string;
  dkim_tokens: string[];
  dkim_status: VerificationStatus;
  spf_status: VerificationStatus;
  dmarc_status: VerificationStatus;
  txt_status: VerificationStatus;
  mail_from_domain: string;
  dns_records: DnsRecord[];
  from_name?: string | null;
  bimi?: BimiSettings;
  verified_at?: string;
  /**
   * The ownership TXT record's outcome, for a domain whose records list one (registered while
   * another account held the name, or verified without holding it alone): it counts toward full
   * verification like DKIM, SPF and DMARC. Absent when the domain needs no such record.
   */
  ownership_status?: VerificationStatus;
  /** Inbound email on (POST /v1/domains/{domain}/inbound): the SMTP listener and routes take the domain. */
  inbound_enabled?: boolean;
  /** PATCH /v1/domains/{domain}: marketing mail from the domain is tracked (shared/sending/tracking); absent is off. */
  open_tracking?: boolean;
  click_tracking?: boolean;
  created_at: string;
  updated_at: string;
}

export type NewDomain = Omit<DomainItem, keyof ItemKey | 'entity'>;

/**
 * Who holds a domain name; one per name across the deployment, as the provider identity is.
 * A pending claim (registered, not verified) holds the name for PENDING_CLAIM_DAYS and does not
 * keep other accounts from registering it and taking it by verifying (shared/domains/claims.ts).
 */
export interface DomainClaimItem extends ItemKey {
  entity: 'domain_claim';
  account_id: string;
  /** Absent on claims written before claims had states: claims.ts reads the holder's domain for it. */
  state?: 'pending' | 'verified';
  /** Pending claims: epoch ms after which another account's registration takes the name over. */
  pending_until?: number;
  /**
   * Another account registered the name while this claim was pending. The DKIM records of a name
   * are the provider identity's, the same for every account that registers it, so from then on
   * every verification of the name needs its account's ownership record as well.
   */
  contested?: boolean;
}

export interface DomainStatuses {
  dkim_status: VerificationStatus;
  spf_status: VerificationStatus;
  dmarc_status: VerificationStatus;
  txt_status: VerificationStatus;
  ownership_status?: VerificationStatus;
}

const EXISTS = { expression: 'attribute_exists(pk)' };
const heldBy = (accountId: string) => ({ expression: 'account_id = :me', values: { ':me': accountId } });

export class DomainRepository {
  constructor(private readonly store: Store) {}

  get(accountId: string, domain: string): Promise<DomainItem | undefined> {
    return this.store.get<DomainItem>(keys.domain(accountId, domain));
  }

  /** Every domain of the account, in store order (by name). */
  async listAll(accountId: string): Promise<DomainItem[]> {
    return allItems<DomainItem>(this.store, { ...keyQueries.accountItems(accountId, keys.domainPrefix), ascending: false });
  }

  /** Written once its name is claimed, so it never overwrites another account's domain. */
  async put(item: NewDomain): Promise<DomainItem> {
    const stored: DomainItem = { ...keys.domain(item.account_id, item.domain), entity: 'domain', ...item };
    await this.store.put(stored);
    return stored;
  }

  /** false when the domain was gone already (deleted meanwhile). */
  remove(accountId: string, domain: string): Promise<boolean> {
    return wrote(this.store.delete(keys.domain(accountId, domain), EXISTS));
  }

  /** false when the domain is gone. */
  setFromName(accountId: string, domain: string, fromName: string | null, now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.domain(accountId, domain), {
        expression: 'SET from_name = :name, updated_at = :now',
        condition: 'attribute_exists(pk)',
        values: { ':name': fromName, ':now': now },
      }),
    );
  }

  /** Sets the tracking switches given; false when the domain is gone. */
  setTracking(accountId: string, domain: string, settings: { open_tracking?: boolean; click_tracking?: boolean }, now: string): Promise<boolean> {
    const set = ['updated_at = :now'];
    const values: Record<string, unknown> = { ':now': now };
    for (const name of ['open_tracking', 'click_tracking'] as const) {
      if (settings[name] === undefined) continue;
      set.push(`${name} = :${name}`);
      values[`:${name}`] = settings[name];
    }
    return wrote(this.store.update(keys.domain(accountId, domain), { expression: `SET ${set.join(', ')}`, condition: 'attribute_exists(pk)', values }));
  }

  /** Records the outcome of a DNS check; `verifiedAt` is set only by the first full verification. false when the domain is gone. */
  setStatuses(accountId: string, domain: string, statuses: DomainStatuses, now: string, verifiedAt?: string): Promise<boolean> {
    const ownership = statuses.ownership_status !== undefined;
    return wrote(
      this.store.update(keys.domain(accountId, domain), {
        expression: `SET dkim_status = :dkim, spf_status = :spf, dmarc_status = :dmarc, txt_status = :txt, updated_at = :now${verifiedAt ? ', verified_at = :verified' : ''}${ownership ? ', ownership_status = :own' : ''}`,
        condition: 'attribute_exists(pk)',
        values: {
          ':dkim': statuses.dkim_status,
          ':spf': statuses.spf_status,
          ':dmarc': statuses.dmarc_status,
          ':txt': statuses.txt_status,
          ':now': now,
          ...(verifiedAt ? { ':verified': verifiedAt } : {}),
          ...(ownership ? { ':own': statuses.ownership_status } : {}),
        },
      }),
    );
  }

  /** The domain as saved; undefined when it is gone. */
  async setBimi(accountId: string, domain: string, settings: BimiSettings): Promise<DomainItem | undefined> {
    const write = this.store.update<DomainItem>(keys.domain(accountId, domain), {
      expression: 'SET #bimi = :bimi',
      names: { '#bimi': 'bimi' },
      values: { ':bimi': settings },
      condition: 'attribute_exists(pk)',
    });
    return (await wrote(write)) ? write : undefined;
  }

  /** Turns inbound email on or off; false when the domain is gone. */
  setInboundEnabled(accountId: string, domain: string, enabled: boolean, now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.domain(accountId, domain), {
        expression: 'SET inbound_enabled = :on, updated_at = :now',
        condition: 'attribute_exists(pk)',
        values: { ':on': enabled, ':now': now },
      }),
    );
  }

  /** The account holding a domain name, across the deployment. */
  claimOf(domain: string): Promise<DomainClaimItem | undefined> {
    return this.store.get<DomainClaimItem>(keys.domainClaim(domain));
  }

  /** Frees the name, but only while this account holds it. */
  async release(accountId: string, domain: string): Promise<void> {
    await wrote(this.store.delete(keys.domainClaim(domain), heldBy(accountId)));
  }

  /**
   * Counts one more domain on the account item; false when the account already holds `limit`
   * (or does not exist). Every registered domain counts, whatever its status.
   */
  countDomain(accountId: string, limit: number): Promise<boolean> {
    return wrote(
      this.store.update(keys.account(accountId), {
        expression: 'ADD domain_count :one',
        condition: 'attribute_exists(pk) AND (attribute_not_exists(domain_count) OR domain_count < :max)',
        values: { ':one': 1, ':max': limit },
      }),
    );
  }

  async uncountDomain(accountId: string): Promise<void> {
    await this.store.update(keys.account(accountId), { expression: 'ADD domain_count :minus', values: { ':minus': -1 } });
  }
}
