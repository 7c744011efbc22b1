// The network a client IP is limited as. One IPv4 address is one client; an IPv6 client usually
// holds a whole /64 (SLAAC, privacy addresses, a home or cloud prefix) and can pick a new address
// per request, so per-address limits would not limit it at all: an IPv6 address counts as its /64.
// Pure (no I/O), so shared/db/keys.ts builds the per-IP subjects with it.
import { isIPv4, isIPv6 } from 'node:net';

/** RFC 5952 text of an IPv6 address (lower case, no leading zeros, `::` for the longest zero run), as URL hosts are written. */
const canonical = (address: string): string => new URL(`http://[${address}]`).hostname.slice(1, -1);

/**
 * What a client IP is limited as: an IPv4 address as it is; an IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d, as a dual-stack socket reports IPv4 clients) as that IPv4 address; any other
 * IPv6 address as its /64, canonical (`2001:db8:1:2::/64`). A zone (`%eth0`) is dropped. Anything
 * that is not an IP is kept as given, lower-cased: it still names one subject.
 */
export function clientNetworkOf(ip: string): string {
  const address = ip.trim().toLowerCase().replace(/%.*$/, '');
  if (isIPv4(address) || !isIPv6(address)) return address;
  // The canonical text has no dotted tail, so its 8 groups are plain hex once `::` is expanded.
  const [head = '', tail] = canonical(address).split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const groups = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back].map((g) => Number.parseInt(g, 16));
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6], groups[7]].flatMap((g = 0) => [g >> 8, g & 0xff]).join('.');
  }
  return `${canonical(`${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::`)}/64`;
}
