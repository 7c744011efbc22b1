// The network a client IP is limited as. One IPv4 address is one client; an IPv6 client usually
// holds a whole /64 (SLAAC, privacy addresses, a home or cloud prefix) and can pick a new address
// per request, so per-address limits would not limit it at all: an IPv6 address counts as its /64.
// Pure (no I/O), so shared/db/keys.ts builds the per-IP subject with it.
import { isIPv4, isIPv6 } from 'node:net';

/** The 8 hextets of an IPv6 address (an embedded dotted IPv4 tail read as two); undefined if it is none. */
function hextetsOf(address: string): number[] | undefined {
  if (!isIPv6(address)) return undefined;
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = (dotted[1] as string).split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (s: string): number[] => (s === '' ? [] : s.split(':').map((h) => Number.parseInt(h, 16)));
  const front = part(head);
  const back = tail === undefined ? [] : part(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** RFC 5952 text: lower-case, no leading zeros, the longest run of two or more zero hextets as `::`. */
function canonical(hextets: readonly number[]): string {
  let best = { at: -1, length: 1 };
  for (let i = 0; i < hextets.length; ) {
    if (hextets[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < hextets.length && hextets[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j;
  }
  const hex = hextets.map((h) => h.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}

/**
 * What a client IP is limited as: an IPv4 address as it is; an IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d, as a dual-stack socket reports IPv4 clients) as that IPv4 address; any other
 * IPv6 address as its /64, canonical (`2001:db8:1:2::/64`). A zone (`%eth0`) is dropped. Anything
 * that is not an IP is kept as given, lower-cased: it still names one subject.
 */
export function clientNetworkOf(ip: string): string {
  const address = ip.trim().toLowerCase().replace(/%.*$/, '');
  if (isIPv4(address)) return address;
  const hextets = hextetsOf(address);
  if (!hextets) return address;
  if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff) {
    const [hi = 0, lo = 0] = hextets.slice(6);
    return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join('.');
  }
  return `${canonical([...hextets.slice(0, 4), 0, 0, 0, 0])}/64`;
}
