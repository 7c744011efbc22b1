// A domain's records as a master-file (RFC 1035) fragment a user can paste or import into a zone:
// absolute names, explicit TTL and class, TXT data as quoted character-strings.
import type { DnsRecord, DomainItem } from './repository';

export const ZONE_FILE_TTL = 3600;

/** A character-string carries at most 255 octets (RFC 1035 3.3). */
const MAX_CHARACTER_STRING = 255;

const BACKSLASH = 0x5c;
const QUOTE = 0x22;

/** A name with exactly one trailing dot: absolute, so no $ORIGIN can be appended to it. */
export const absoluteName = (name: string): string => `${name.replace(/\.+$/, '')}.`;

/** One octet inside a quoted string: printable ASCII as is, `"` and `\` escaped, anything else `\DDD`. */
function escapeOctet(octet: number): string {
  if (octet === QUOTE || octet === BACKSLASH) return `\\${String.fromCharCode(octet)}`;
  if (octet >= 0x20 && octet <= 0x7e) return String.fromCharCode(octet);
  return `\\${String(octet).padStart(3, '0')}`;
}

/**
 * TXT data as one or more quoted strings. The value is split on octets, not characters, so a
 * long value becomes several strings a resolver joins back into the original.
 */
export function quoteTxt(value: string): string {
  const octets = Buffer.from(value, 'utf8');
  const strings: string[] = [];
  for (let start = 0; start < octets.length; start += MAX_CHARACTER_STRING) {
    strings.push(`"${Array.from(octets.subarray(start, start + MAX_CHARACTER_STRING), escapeOctet).join('')}"`);
  }
  return strings.length > 0 ? strings.join(' ') : '""';
}

function rdata(record: DnsRecord): string {
  switch (record.type) {
    case 'CNAME':
      return absoluteName(record.value);
    case 'MX': {
      // Stored as "priority exchange"; the exchange must be absolute too.
      const [priority, exchange = ''] = record.value.trim().split(/\s+/);
      return `${priority} ${absoluteName(exchange)}`;
    }
    case 'TXT':
      return quoteTxt(record.value);
  }
}

/** One resource record line: `name. TTL IN TYPE data`. */
export const zoneFileLine = (record: DnsRecord): string =>
  `${absoluteName(record.name)} ${ZONE_FILE_TTL} IN ${record.type} ${rdata(record)}`;

/** The domain's records as a text/plain zone fragment, one record per line. */
export function renderZoneFile(domain: Pick<DomainItem, 'domain' | 'dns_records'>): string {
  const lines = [`; ${domain.domain}: records for sending mail, TTL ${ZONE_FILE_TTL}`, ...domain.dns_records.map(zoneFileLine)];
  return `${lines.join('\n')}\n`;
}
