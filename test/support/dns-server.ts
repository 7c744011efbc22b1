// A real authoritative DNS server on loopback (dns2, UDP and TCP on one fixed port) answering from
// a small zone table, and a UDP socket that takes queries and never answers.
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { quietPort } from './ports';

/** The part of dns2 (which ships no types) this helper uses. */
interface Dns2Question {
  name: string;
  type: number;
  class: number;
}
interface Dns2Packet {
  header: { rcode: number; aa: number; ra: number };
  questions: Dns2Question[];
  answers: Array<Record<string, unknown>>;
}
interface Dns2Server {
  listen(options: { udp: { port: number; address: string }; tcp: { port: number; address: string } }): Promise<unknown>;
  close(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): void;
}
interface Dns2 {
  Packet: {
    TYPE: Record<'A' | 'AAAA' | 'MX' | 'CNAME' | 'TXT' | 'NS', number>;
    CLASS: Record<'IN', number>;
    createResponseFromRequest(request: Dns2Packet): Dns2Packet;
  };
  createServer(options: { udp: boolean; tcp: boolean; handle: (request: Dns2Packet, send: (response: Dns2Packet) => void) => void }): Dns2Server;
}

const dns2 = createRequire(import.meta.url)('dns2') as Dns2;
const { Packet } = dns2;

const SERVFAIL = 2;
const NXDOMAIN = 3;

/** Records of one name; a name absent from the zone, or mapped to 'nxdomain', does not exist. */
export interface NameRecords {
  mx?: Array<{ exchange: string; priority: number }>;
  a?: string[];
  aaaa?: string[];
  cname?: string;
  /** Each entry is one TXT record; an array entry is one record of several strings. */
  txt?: Array<string | string[]>;
  ns?: string[];
  /** Query types answered with SERVFAIL: a server that is up but cannot answer. */
  servfail?: Array<'mx' | 'a' | 'aaaa'>;
}
export type Zone = Record<string, NameRecords | 'nxdomain'>;

export interface RunningDns {
  /** host:port, as DNS_SERVERS and Resolver.setServers take it. */
  server: string;
  port: number;
  /** Names asked about, with their query type, in arrival order. */
  queries: Array<{ name: string; type: number }>;
  /** Adds or replaces a name's records while the server runs (publishing a record). */
  publish(name: string, records: NameRecords | 'nxdomain'): void;
  close(): Promise<void>;
}

function answersFor(question: Dns2Question, records: NameRecords): Array<Record<string, unknown>> {
  const base = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
  switch (question.type) {
    case Packet.TYPE.MX:
      return (records.mx ?? []).map((mx) => ({ ...base, type: Packet.TYPE.MX, ...mx }));
    case Packet.TYPE.A:
      return (records.a ?? []).map((address) => ({ ...base, type: Packet.TYPE.A, address }));
    case Packet.TYPE.AAAA:
      return (records.aaaa ?? []).map((address) => ({ ...base, type: Packet.TYPE.AAAA, address }));
    case Packet.TYPE.CNAME:
      return records.cname ? [{ ...base, type: Packet.TYPE.CNAME, domain: records.cname }] : [];
    case Packet.TYPE.TXT:
      return (records.txt ?? []).map((data) => ({ ...base, type: Packet.TYPE.TXT, data }));
    case Packet.TYPE.NS:
      return (records.ns ?? []).map((ns) => ({ ...base, type: Packet.TYPE.NS, ns }));
    default:
      return [];
  }
}

/** Serves `zone` on 127.0.0.1; NOERROR with no answers (NODATA) for a known name without the asked type. */
export async function startDnsServer(zone: Zone): Promise<RunningDns> {
  const canonical = (name: string): string => name.toLowerCase().replace(/\.$/, '');
  const names = new Map(Object.entries(zone).map(([name, records]) => [canonical(name), records]));
  const queries: RunningDns['queries'] = [];
  const server = dns2.createServer({
    udp: true,
    tcp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const question = request.questions[0];
      response.header.aa = 1;
      response.header.ra = 1;
      response.answers = [];
      if (question) {
        queries.push({ name: question.name, type: question.type });
        const records = names.get(question.name.toLowerCase().replace(/\.$/, ''));
        if (records === undefined || records === 'nxdomain') response.header.rcode = NXDOMAIN;
        else if (records.servfail?.some((t) => Packet.TYPE[t.toUpperCase() as 'MX' | 'A' | 'AAAA'] === question.type)) response.header.rcode = SERVFAIL;
        else response.answers = answersFor(question, records);
      }
      send(response);
    },
  });
  // One fixed port for both transports: port 0 would put UDP and TCP on different ports.
  const port = await quietPort();
  const failed = new Promise<never>((_, reject) => server.on('error', reject));
  await Promise.race([server.listen({ udp: { port, address: '127.0.0.1' }, tcp: { port, address: '127.0.0.1' } }), failed]);
  return {
    server: `127.0.0.1:${port}`,
    port,
    queries,
    publish: (name, records) => void names.set(canonical(name), records),
    close: () => server.close(),
  };
}

/** A UDP socket on loopback that receives queries and never replies: a resolver that is down. */
export async function startSilentDnsServer(): Promise<{ server: string; received: () => number; close(): Promise<void> }> {
  const socket: Socket = createSocket('udp4');
  let received = 0;
  socket.on('message', () => void received++);
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  const { port } = socket.address() as AddressInfo;
  return {
    server: `127.0.0.1:${port}`,
    received: () => received,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
