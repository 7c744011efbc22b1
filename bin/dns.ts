// `npm run dns -- --domain example.com`: a small authoritative DNS server on loopback that serves
// the records Postbox asks a registered domain to publish, so domain verification passes locally
// and the account leaves the sandbox without AWS or a real DNS zone. Start `npm start` with
// DNS_SERVERS=127.0.0.1:<port> (the port this serves on), register the domain, run this, verify.
//
// The records come from the running service (GET /v1/domains/{domain}, the same records its DNS
// setup guide and zone file list), read with the admin key in DATA_DIR/bootstrap.json. Names
// outside the served domains are forwarded to the system's resolvers (or --upstream), so recipient
// checks keep working while DNS_SERVERS points here: Node's resolver takes a REFUSED answer as
// final instead of asking the next server in DNS_SERVERS.
import { Resolver } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, readLocalSettings } from '../shared/runtime/config';
import { freePort } from '../local/emulators';

/** The part of dns2 (which ships no types) this command uses. */
interface Dns2Packet {
  header: { rcode: number; aa: number; ra: number };
  questions: Array<{ name: string; type: number; class: number }>;
  answers: Array<Record<string, unknown>>;
}
interface Dns2 {
  Packet: {
    TYPE: Record<'A' | 'AAAA' | 'MX' | 'CNAME' | 'TXT' | 'NS', number>;
    CLASS: Record<'IN', number>;
    createResponseFromRequest(request: Dns2Packet): Dns2Packet;
  };
  createServer(options: { udp: boolean; tcp: boolean; handle: (request: Dns2Packet, send: (response: Dns2Packet) => void) => void }): {
    listen(options: { udp: { port: number; address: string }; tcp: { port: number; address: string } }): Promise<unknown>;
    close(): Promise<void>;
    on(event: 'error', listener: (error: Error) => void): void;
  };
}

interface DnsRecord {
  type: 'CNAME' | 'MX' | 'TXT';
  name: string;
  value: string;
}

const SERVFAIL = 2;
const NXDOMAIN = 3;
const NOTIMP = 4;
const LOOPBACK = '127.0.0.1';
const USAGE = 'usage: npm run dns -- --domain example.com [--domain …] [--port 5300] [--api http://127.0.0.1:3000] [--key sk_live_…] [--upstream host[:port],…]';

const canonical = (name: string): string => name.trim().toLowerCase().replace(/\.$/, '');

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** The domain's records as the service lists them. */
async function recordsOf(api: string, key: string, domain: string): Promise<DnsRecord[]> {
  let res: Response;
  try {
    res = await fetch(`${api}/v1/domains/${encodeURIComponent(domain)}`, { headers: { authorization: `Bearer ${key}` } });
  } catch (error) {
    return fail(`cannot reach Postbox at ${api} (${String((error as { cause?: unknown }).cause ?? error)}); start it first with npm start, or pass --api`);
  }
  const body = (await res.json().catch(() => ({}))) as { dns_records?: DnsRecord[]; error?: { message?: string } };
  if (!res.ok || !body.dns_records) {
    const hint = res.status === 404 ? `; register it first: POST /v1/domains {"domain":"${domain}"}` : '';
    return fail(`GET /v1/domains/${domain} answered ${res.status}: ${body.error?.message ?? 'no records'}${hint}`);
  }
  return body.dns_records;
}

interface Options {
  domains: string[];
  port: number;
  api: string;
  key: string;
  upstream?: string;
}

/** The command line and the runtime's settings (its API address, its data dir's admin key). */
function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      domain: { type: 'string', multiple: true },
      port: { type: 'string', default: '5300' },
      api: { type: 'string' },
      key: { type: 'string' },
      upstream: { type: 'string' },
    },
  });
  let settings;
  try {
    settings = readLocalSettings();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const domains = (values.domain ?? []).map(canonical).filter((d) => d !== '');
  if (domains.length === 0) fail(USAGE);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number\n${USAGE}`);
  const apiHost = ['0.0.0.0', '::'].includes(settings.host) ? LOOPBACK : settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  const api = (values.api ?? `http://${apiHost}:${settings.port}`).replace(/\/$/, '');
  return { domains, port, api, key: values.key ?? adminKeyIn(settings.dataDir), upstream: values.upstream };
}

function adminKeyIn(dataDir: string): string {
  const file = join(dataDir, 'bootstrap.json');
  try {
    return (JSON.parse(readFileSync(file, 'utf8')) as { admin_key: string }).admin_key;
  } catch {
    return fail(`cannot read the admin key from ${file}; set DATA_DIR to the data directory of npm start, or pass --key`);
  }
}

type Answer = Record<string, unknown>;

/** The served domains' zone: the answers for a name and type, and whether a name is ours. */
function zoneOf(Packet: Dns2['Packet'], domains: string[], records: DnsRecord[]) {
  const byName = new Map<string, DnsRecord[]>();
  for (const record of records) byName.set(canonical(record.name), [...(byName.get(canonical(record.name)) ?? []), record]);
  const answersFor = (name: string, type: number): Answer[] => {
    const base = { name, class: Packet.CLASS.IN, ttl: 60 };
    return (byName.get(canonical(name)) ?? []).flatMap((r): Answer[] => {
      if (r.type === 'CNAME' && type === Packet.TYPE.CNAME) return [{ ...base, type, domain: canonical(r.value) }];
      if (r.type === 'TXT' && type === Packet.TYPE.TXT) return [{ ...base, type, data: r.value }];
      if (r.type === 'MX' && type === Packet.TYPE.MX) {
        const [priority = '10', exchange = ''] = r.value.split(/\s+/);
        return [{ ...base, type, priority: Number(priority), exchange: canonical(exchange) }];
      }
      return [];
    });
  };
  return {
    answersFor,
    served: (name: string): boolean => domains.some((d) => name === d || name.endsWith(`.${d}`)),
    // A name without records is absent, except the apex, which exists with no such record.
    exists: (name: string): boolean => byName.has(name) || domains.includes(name),
  };
}

/** Asks the upstream resolvers; their "no such name" and "no such record" pass through as such. */
function forwarder(Packet: Dns2['Packet'], upstream: Resolver) {
  return async (name: string, type: number): Promise<{ rcode: number; answers: Answer[] }> => {
    const base = { name, class: Packet.CLASS.IN, ttl: 60, type };
    const T = Packet.TYPE;
    try {
      if (type === T.A) return { rcode: 0, answers: (await upstream.resolve4(name)).map((address) => ({ ...base, address })) };
      if (type === T.AAAA) return { rcode: 0, answers: (await upstream.resolve6(name)).map((address) => ({ ...base, address })) };
      if (type === T.MX) return { rcode: 0, answers: (await upstream.resolveMx(name)).map((mx) => ({ ...base, ...mx })) };
      if (type === T.TXT) return { rcode: 0, answers: (await upstream.resolveTxt(name)).map((data) => ({ ...base, data })) };
      if (type === T.CNAME) return { rcode: 0, answers: (await upstream.resolveCname(name)).map((domain) => ({ ...base, domain })) };
      if (type === T.NS) return { rcode: 0, answers: (await upstream.resolveNs(name)).map((ns) => ({ ...base, ns })) };
      return { rcode: NOTIMP, answers: [] };
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOTFOUND') return { rcode: NXDOMAIN, answers: [] };
      if (code === 'ENODATA') return { rcode: 0, answers: [] };
      return { rcode: SERVFAIL, answers: [] };
    }
  };
}

/** Answers the zone's names itself, authoritatively, and forwards the rest. */
function handler(Packet: Dns2['Packet'], zone: ReturnType<typeof zoneOf>, forward: ReturnType<typeof forwarder>) {
  return (request: Dns2Packet, send: (response: Dns2Packet) => void): void => {
    const response = Packet.createResponseFromRequest(request);
    response.header.ra = 1;
    response.answers = [];
    const question = request.questions[0];
    const name = canonical(question?.name ?? '');
    if (question && zone.served(name)) {
      response.header.aa = 1;
      response.answers = zone.answersFor(question.name, question.type);
      if (!zone.exists(name)) response.header.rcode = NXDOMAIN;
      send(response);
    } else if (question) {
      void forward(question.name, question.type).then(({ rcode, answers }) => {
        response.header.rcode = rcode;
        response.answers = answers;
        send(response);
      });
    } else {
      response.header.rcode = NOTIMP;
      send(response);
    }
  };
}

function announce(domains: string[], records: DnsRecord[], port: number, upstream: Resolver): void {
  const width = Math.max(...records.map((r) => r.name.length));
  process.stdout.write(
    [
      `Serving the DNS records of ${domains.join(', ')} on ${LOOPBACK}:${port} (UDP and TCP):`,
      ...records.map((r) => `  ${r.name.padEnd(width)}  ${r.type.padEnd(5)}  ${r.value}`),
      `Other names are forwarded to ${upstream.getServers().join(', ') || 'the system resolvers'}.`,
      `Postbox must run with DNS_SERVERS=${LOOPBACK}:${port}; then verify, e.g. POST /v1/domains/${domains[0]}/verify. Ctrl-C stops.`,
      `READY ${LOOPBACK}:${port}`,
      '',
    ].join('\n'),
  );
}

async function main(): Promise<void> {
  const options = readOptions();
  const dns2 = createRequire(import.meta.url)('dns2') as Dns2;
  const { Packet } = dns2;
  const records: DnsRecord[] = [];
  for (const domain of options.domains) records.push(...(await recordsOf(options.api, options.key, domain)));
  const upstream = new Resolver({ timeout: 2000, tries: 2 });
  if (options.upstream) upstream.setServers(options.upstream.split(',').map((server) => server.trim()));

  const server = dns2.createServer({ udp: true, tcp: true, handle: handler(Packet, zoneOf(Packet, options.domains, records), forwarder(Packet, upstream)) });
  // One fixed port for both transports: port 0 would put UDP and TCP on different ports.
  const chosen = options.port || (await freePort(LOOPBACK));
  const failed = new Promise<never>((_, reject) => server.on('error', reject));
  await Promise.race([server.listen({ udp: { port: chosen, address: LOOPBACK }, tcp: { port: chosen, address: LOOPBACK } }), failed]).catch((error: unknown) =>
    fail(`cannot listen on ${LOOPBACK}:${chosen}: ${String(error)}`),
  );
  announce(options.domains, records, chosen, upstream);

  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`dns failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
