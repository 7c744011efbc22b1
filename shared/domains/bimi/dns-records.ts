// Reading the DMARC and BIMI TXT records a domain publishes, and writing the ones we recommend.
// Pure functions over the record strings; the lookups live in the service.

/** `k=v; k=v` tag lists (DMARC, BIMI): keys lower-cased, values trimmed, order kept. */
export function parseTags(record: string): Array<[string, string]> {
  const tags: Array<[string, string]> = [];
  for (const piece of record.split(';')) {
    const eq = piece.indexOf('=');
    if (eq <= 0) continue;
    tags.push([piece.slice(0, eq).trim().toLowerCase(), piece.slice(eq + 1).trim()]);
  }
  return tags;
}

const tagValue = (tags: ReadonlyArray<[string, string]>, key: string): string | undefined => tags.find(([k]) => k === key)?.[1];
const startsWithVersion = (record: string, version: string): boolean => new RegExp(`^\\s*v\\s*=\\s*${version}\\s*(;|$)`, 'i').test(record);
const ENFORCING = new Set(['quarantine', 'reject']);

export interface DmarcReading {
  /** Tags of the DMARC record in force; undefined when none (or several, which means none) is published. */
  tags?: Array<[string, string]>;
  atEnforcement: boolean;
}

/** What the TXT records at `_dmarc.<domain>` say. Several DMARC records cancel each other out (RFC 7489 6.6.3). */
export function readDmarc(records: readonly string[]): DmarcReading {
  const dmarc = records.filter((r) => startsWithVersion(r, 'DMARC1'));
  if (dmarc.length !== 1) return { atEnforcement: false };
  const tags = parseTags(dmarc[0] as string);
  const policy = tagValue(tags, 'p')?.toLowerCase() ?? '';
  const pct = tagValue(tags, 'pct');
  return { tags, atEnforcement: ENFORCING.has(policy) && (pct === undefined || Number(pct) === 100) };
}

/**
 * The DMARC record to publish for BIMI: the current one moved to enforcement at 100 percent. It
 * keeps p=reject if already there, an enforcing sp, the report addresses (our default rua when
 * there is none) and every other tag as written; it drops pct and a weaker sp.
 */
export function recommendedDmarc(domain: string, reading: DmarcReading): string {
  const tags = reading.tags ?? [];
  const policy = reading.atEnforcement && tagValue(tags, 'p')?.toLowerCase() === 'reject' ? 'reject' : 'quarantine';
  const parts = ['v=DMARC1', `p=${policy}`];
  const sp = tagValue(tags, 'sp')?.toLowerCase();
  if (sp && ENFORCING.has(sp)) parts.push(`sp=${sp}`);
  parts.push(`rua=${tagValue(tags, 'rua') || `mailto:dmarc-reports@${domain}`}`);
  for (const [key, value] of tags) if (!['v', 'p', 'sp', 'pct', 'rua'].includes(key)) parts.push(`${key}=${value}`);
  return parts.join('; ');
}

/** The BIMI assertion record for a logo, with an empty a= (no mark certificate). */
export const bimiRecordValue = (logoUrl: string): string => `v=BIMI1; l=${logoUrl}; a=`;

/** True when exactly one BIMI record is published and its l= is this logo. */
export function isBimiPublished(records: readonly string[], logoUrl: string): boolean {
  if (logoUrl === '') return false;
  const bimi = records.filter((r) => startsWithVersion(r, 'BIMI1'));
  return bimi.length === 1 && tagValue(parseTags(bimi[0] as string), 'l') === logoUrl;
}
