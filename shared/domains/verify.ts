// Checks a domain's published records through the DNS port: one result per DKIM CNAME, the SPF
// TXT on the MAIL FROM domain and the DMARC TXT, each with a detail a person can act on.
import type { Store } from '../db/store';
import { ApiError, NotFoundError, RetryableError } from '../errors';
import type { Clock } from '../ports/clock';
import type { Dns } from '../ports/dns';
import { claimStanding, isOwnershipRecord, needsOwnershipProof, ownershipRecord } from './claims';
import { DomainClaimRepository } from './claims-repository';
import { isFullyVerified } from './model';
import { DomainRepository, type DnsRecord, type DomainItem, type VerificationStatus } from './repository';
import type { DomainVerification, VerificationResult } from './schemas';
import { getDomainItem } from './service';

// The wire forms are inferred from their zod shapes in ./schemas.
export type { DomainVerification, VerificationResult } from './schemas';

const bare = (name: string): string => name.trim().toLowerCase().replace(/\.$/, '');

/** Looks a name up; undefined when the resolver gave no answer (the record stays pending). */
async function ask(dns: Dns, name: string, type: 'CNAME' | 'TXT'): Promise<string[] | undefined> {
  try {
    return await dns.lookup(name, type);
  } catch (error) {
    if (error instanceof RetryableError) return undefined;
    throw error;
  }
}

const NO_ANSWER = 'the DNS servers did not answer; try again in a few minutes';

async function checkDkim(dns: Dns, record: DnsRecord): Promise<VerificationResult> {
  const base = { field: 'dkim_status' as const, type: record.type, name: record.name };
  const found = await ask(dns, record.name, 'CNAME');
  if (found === undefined) return { ...base, status: 'pending', detail: NO_ANSWER };
  if (found.length === 0) return { ...base, status: 'failed', detail: `no CNAME record at ${record.name}; add one pointing to ${record.value}` };
  const target = bare(found[0] as string);
  if (target === bare(record.value)) return { ...base, status: 'verified', detail: `CNAME points to ${record.value}` };
  return { ...base, status: 'failed', detail: `CNAME points to ${target}, expected ${record.value}` };
}

async function checkSpf(dns: Dns, record: DnsRecord): Promise<VerificationResult> {
  const base = { field: 'spf_status' as const, type: record.type, name: record.name };
  const found = await ask(dns, record.name, 'TXT');
  if (found === undefined) return { ...base, status: 'pending', detail: NO_ANSWER };
  const spf = found.filter((t) => /^v=spf1(\s|$)/i.test(t.trim()));
  if (spf.length === 0) return { ...base, status: 'failed', detail: `no SPF record at ${record.name}; add TXT "${record.value}"` };
  if (spf.length > 1) return { ...base, status: 'failed', detail: `found ${spf.length} SPF records at ${record.name}; keep exactly one` };
  const value = (spf[0] as string).trim();
  if (!/(^|\s)include:amazonses\.com(\s|$)/i.test(value)) return { ...base, status: 'failed', detail: `found ${value} without include:amazonses.com` };
  return { ...base, status: 'verified', detail: `found ${value}` };
}

async function checkDmarc(dns: Dns, record: DnsRecord): Promise<VerificationResult> {
  const base = { field: 'dmarc_status' as const, type: record.type, name: record.name };
  const found = await ask(dns, record.name, 'TXT');
  if (found === undefined) return { ...base, status: 'pending', detail: NO_ANSWER };
  const dmarc = found.filter((t) => /^v=DMARC1\s*(;|$)/i.test(t.trim()));
  if (dmarc.length === 0) return { ...base, status: 'failed', detail: `no DMARC record at ${record.name}; add TXT "${record.value}"` };
  if (dmarc.length > 1) return { ...base, status: 'failed', detail: `found ${dmarc.length} DMARC records at ${record.name}; keep exactly one` };
  const value = (dmarc[0] as string).trim();
  if (!/(^|;)\s*p\s*=\s*(none|quarantine|reject)\s*(;|$)/i.test(value)) return { ...base, status: 'failed', detail: `found ${value} without a valid p= policy` };
  return { ...base, status: 'verified', detail: `found ${value}` };
}

/** All verified → verified; any failed → failed; otherwise pending. */
function combine(statuses: VerificationStatus[]): VerificationStatus {
  if (statuses.every((s) => s === 'verified')) return 'verified';
  return statuses.includes('failed') ? 'failed' : 'pending';
}

async function checkOwnership(dns: Dns, record: DnsRecord): Promise<VerificationResult> {
  const base = { field: 'txt_status' as const, type: record.type, name: record.name };
  const found = await ask(dns, record.name, 'TXT');
  if (found === undefined) return { ...base, status: 'pending', detail: NO_ANSWER };
  if (found.some((t) => t.trim() === record.value)) return { ...base, status: 'verified', detail: `found ${record.value}: the domain is this account's` };
  return {
    ...base,
    status: 'failed',
    detail: `no TXT "${record.value}" at ${record.name}; another account registered this domain too, and this record proves it is yours`,
  };
}

/**
 * The account's records, with its ownership record added (and kept on the domain, so reads list
 * it) when the name's claim calls for one and the domain does not list it yet (claims.ts).
 */
async function recordsToCheck(deps: { store: Store; clock: Clock }, domains: DomainRepository, item: DomainItem, proof: boolean): Promise<DnsRecord[]> {
  if (!proof || item.dns_records.some(isOwnershipRecord)) return item.dns_records;
  const records = [...item.dns_records, ownershipRecord(item.account_id, item.domain)];
  if (!(await new DomainClaimRepository(deps.store).setRecords(item.account_id, item.domain, records, deps.clock.now().toISOString()))) throw new NotFoundError('domain'); // deleted meanwhile
  return records;
}

export async function verifyDomain(deps: { store: Store; dns: Dns; clock: Clock }, accountId: string, input: string): Promise<DomainVerification> {
  const item = await getDomainItem(deps.store, accountId, input);
  const domains = new DomainRepository(deps.store);
  const claim = await claimStanding(domains, item.domain, deps.clock.now().getTime());
  if (claim && claim.holder !== accountId && claim.state === 'verified') {
    throw new ApiError('conflict', `${item.domain} is verified by another account; delete it here, or ask that account to delete it`);
  }
  const records = await recordsToCheck(deps, domains, item, needsOwnershipProof(accountId, claim));
  const cnames = records.filter((r) => r.type === 'CNAME');
  const spf = records.find((r) => r.type === 'TXT' && r.value.startsWith('v=spf1'));
  const dmarc = records.find((r) => r.type === 'TXT' && r.value.startsWith('v=DMARC1'));
  const ownership = records.find(isOwnershipRecord);
  const results = await Promise.all([
    ...cnames.map((r) => checkDkim(deps.dns, r)),
    ...(spf ? [checkSpf(deps.dns, spf)] : []),
    ...(dmarc ? [checkDmarc(deps.dns, dmarc)] : []),
    ...(ownership ? [checkOwnership(deps.dns, ownership)] : []),
  ]);
  const of = (field: VerificationResult['field']) => combine(results.filter((r) => r.field === field).map((r) => r.status));
  const ownershipStatus = ownership ? of('txt_status') : undefined;
  const statuses = { dkim_status: of('dkim_status'), spf_status: of('spf_status'), dmarc_status: of('dmarc_status'), ...(ownershipStatus ? { ownership_status: ownershipStatus } : {}) };
  // txt_status covers the TXT records together (SPF, DMARC and the ownership record if listed).
  const txt_status = combine([statuses.spf_status, statuses.dmarc_status, ...(ownershipStatus ? [ownershipStatus] : [])]);
  const fully = isFullyVerified(statuses);
  // A full verification takes the name first: the domain is stored verified only once it is this
  // account's, so two accounts never both hold it verified.
  if (fully && !(claim?.holder === accountId && claim.state === 'verified') && !(await new DomainClaimRepository(deps.store).win(accountId, item.domain, claim?.seen))) {
    throw new ApiError('conflict', `${item.domain} changed hands during the check; verify again`);
  }
  const now = deps.clock.now().toISOString();
  const saved = await domains.setStatuses(accountId, item.domain, { ...statuses, txt_status }, now, fully && !item.verified_at ? now : undefined);
  if (!saved) throw new NotFoundError('domain'); // deleted meanwhile
  return { domain: item.domain, fully_verified: fully, results };
}
