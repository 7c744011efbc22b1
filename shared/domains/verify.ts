// Checks a domain's published records through the DNS port: one result per DKIM CNAME, the SPF
// TXT on the MAIL FROM domain and the DMARC TXT, each with a detail a person can act on.
import type { Store } from '../db/store';
import { NotFoundError, RetryableError } from '../errors';
import type { Clock } from '../ports/clock';
import type { Dns } from '../ports/dns';
import { isFullyVerified } from './model';
import { DomainRepository, type DnsRecord, type VerificationStatus } from './repository';
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

export async function verifyDomain(deps: { store: Store; dns: Dns; clock: Clock }, accountId: string, input: string): Promise<DomainVerification> {
  const item = await getDomainItem(deps.store, accountId, input);
  const cnames = item.dns_records.filter((r) => r.type === 'CNAME');
  const spf = item.dns_records.find((r) => r.type === 'TXT' && r.value.startsWith('v=spf1'));
  const dmarc = item.dns_records.find((r) => r.type === 'TXT' && r.value.startsWith('v=DMARC1'));
  const results = await Promise.all([
    ...cnames.map((r) => checkDkim(deps.dns, r)),
    ...(spf ? [checkSpf(deps.dns, spf)] : []),
    ...(dmarc ? [checkDmarc(deps.dns, dmarc)] : []),
  ]);
  const of = (field: VerificationResult['field']) => combine(results.filter((r) => r.field === field).map((r) => r.status));
  const statuses = { dkim_status: of('dkim_status'), spf_status: of('spf_status'), dmarc_status: of('dmarc_status') };
  // txt_status covers the TXT records together (SPF and DMARC).
  const txt_status = combine([statuses.spf_status, statuses.dmarc_status]);
  const fully = isFullyVerified(statuses);
  const now = deps.clock.now().toISOString();
  const saved = await new DomainRepository(deps.store).setStatuses(accountId, item.domain, { ...statuses, txt_status }, now, fully && !item.verified_at ? now : undefined);
  if (!saved) throw new NotFoundError('domain'); // deleted meanwhile
  return { domain: item.domain, fully_verified: fully, results };
}

