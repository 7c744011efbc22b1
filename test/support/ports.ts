// A loopback port for a process that binds it later. A port from listen(0) comes from the kernel's
// ephemeral range, where any outgoing TCP connection or UDP resolver query of another test worker
// may take it before the process binds it (CI saw EADDRINUSE that way). This picks a port below
// that range, which the kernel never hands out on its own, free on both TCP and UDP.
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const HOST = '127.0.0.1';
const LOWEST = 20_000;

function ephemeralFloor(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST + 1000) return low;
  } catch {
    // Not Linux: the IANA dynamic range starts at 49152.
  }
  return 49_152;
}

function tcpFree(port: number): Promise<boolean> {
  const probe = createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: HOST, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

function udpFree(port: number): Promise<boolean> {
  const probe = createSocket('udp4');
  return new Promise((resolve) => {
    probe.once('error', () => {
      probe.close();
      resolve(false);
    });
    probe.bind(port, HOST, () => probe.close(() => resolve(true)));
  });
}

/** A port below the ephemeral range, free on TCP and UDP at 127.0.0.1 when returned. */
export async function quietPort(): Promise<number> {
  const ceiling = ephemeralFloor();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (ceiling - LOWEST));
    if ((await tcpFree(port)) && (await udpFree(port))) return port;
  }
  throw new Error(`no free loopback port between ${LOWEST} and ${ceiling}`);
}
