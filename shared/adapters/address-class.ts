// Which kind of IP address this is, for the outbound guard (./guarded-http.ts): only 'public'
// addresses may be sent to. The tables follow the IANA special-purpose registries.
import { isIP } from 'node:net';

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved'
  | 'unique_local'
  | 'ipv4_mapped'
  | 'invalid';

/** How a refusal names each class: "resolves to 10.0.0.5, a private address". */
export const classWords: Record<AddressClass, string> = {
  public: 'a public address',
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address',
  cgnat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  documentation: 'a documentation address',
  benchmarking: 'a benchmarking address',
  reserved: 'a reserved address',
  unique_local: 'a unique local address',
  ipv4_mapped: 'an IPv4-mapped address',
  invalid: 'not an IP address',
};

// Most specific first; the first match wins. Anything not listed is public.
const v4Table: Array<[string, number, AddressClass]> = [
  ['169.254.169.254', 32, 'metadata'], // EC2, GCP, Azure instance metadata
  ['169.254.170.2', 32, 'metadata'], // ECS task credentials
  ['169.254.170.23', 32, 'metadata'], // EKS pod identity
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** How an embedded IPv4 address is treated: refused with its own class, or accepted as `whenPublic`. */
type Embedded = { kind: 'embedded'; offset: number; whenPublic: AddressClass };

// Most specific first. Outside 2000::/3 (global unicast) nothing is public.
const v6Table: Array<[string, number, AddressClass | Embedded]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::ffff:0:0', 96, { kind: 'embedded', offset: 96, whenPublic: 'ipv4_mapped' }],
  ['64:ff9b::', 96, { kind: 'embedded', offset: 96, whenPublic: 'public' }], // NAT64
  ['64:ff9b:1::', 48, 'reserved'], // local-use NAT64
  ['100::', 64, 'reserved'], // discard-only
  ['2001:2::', 48, 'benchmarking'],
  ['2001::', 23, 'reserved'], // IETF protocol assignments, Teredo
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['2002::', 16, { kind: 'embedded', offset: 16, whenPublic: 'public' }], // 6to4
  ['5f00::', 16, 'reserved'], // SRv6 SIDs
  ['fd00:ec2::254', 128, 'metadata'], // EC2 instance metadata over IPv6
  ['fd00:ec2::23', 128, 'metadata'], // EKS pod identity over IPv6
  ['fc00::', 7, 'unique_local'],
  ['fe80::', 10, 'link_local'],
  ['fec0::', 10, 'reserved'], // deprecated site-local
  ['ff00::', 8, 'multicast'],
  ['2000::', 3, 'public'],
  ['::', 0, 'reserved'],
];

function parseV4(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function parseV6(ip: string): bigint | undefined {
  if (isIP(ip) !== 6) return undefined;
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = parseV4(dotted[1]);
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, -dotted[1].length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

// The tables are parsed on first use, not at import: the first isIP() call compiles Node's IPv6
// pattern (about 5 ms), which every function paid at cold start though few ever send out.
let v4Rules: Array<{ base: number; bits: number; cls: AddressClass }> | undefined;
let v6Rules: Array<{ base: bigint; bits: number; cls: AddressClass | Embedded }> | undefined;

function classifyV4(n: number): AddressClass {
  v4Rules ??= v4Table.map(([base, bits, cls]) => ({ base: parseV4(base)!, bits, cls }));
  for (const { base, bits, cls } of v4Rules) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((n & mask) >>> 0) === ((base & mask) >>> 0)) return cls;
  }
  return 'public';
}

function classifyV6(n: bigint): AddressClass {
  v6Rules ??= v6Table.map(([base, bits, cls]) => ({ base: parseV6(base)!, bits, cls }));
  for (const { base, bits, cls } of v6Rules) {
    const shift = BigInt(128 - bits);
    if (n >> shift !== base >> shift) continue;
    if (typeof cls === 'string') return cls;
    const inner = classifyV4(Number((n >> BigInt(128 - cls.offset - 32)) & 0xffffffffn));
    return inner === 'public' ? cls.whenPublic : inner;
  }
  return 'reserved';
}

/**
 * What kind of address this is; only 'public' may be sent to. IPv6 may be bracketed or carry a
 * zone (`fe80::1%eth0`). Embedded IPv4 (mapped, NAT64, 6to4) takes the class of the IPv4 address
 * when that is not public; a mapped public address is still 'ipv4_mapped', never 'public'.
 */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const v4 = parseV4(bare);
  if (v4 !== undefined) return classifyV4(v4);
  const v6 = parseV6(bare);
  return v6 === undefined ? 'invalid' : classifyV6(v6);
}

