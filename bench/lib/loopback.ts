// Loopback HTTP the benchmarks share: a receiver standing in for a webhook endpoint, and a GET that
// waits out the key's rate limit as a client would.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from './measure';

export interface LoopbackReceiver {
  url: string;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 answering each request, once read to its end, with `answer(req)`'s status. */
export async function startReceiver(answer: (req: IncomingMessage) => number): Promise<LoopbackReceiver> {
  const server = createServer((req, res) => {
    const status = answer(req);
    req.resume().on('end', () => res.writeHead(status, { 'content-length': '0' }).end());
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((ok) => (server.closeAllConnections(), server.close(() => ok()))),
  };
}

export interface TimedGet {
  ms: number;
  status: number;
  body: Buffer;
  headers: Headers;
}

/**
 * GET with the key's rate limit waited out: a 429 calls `onLimited`, sleeps its Retry-After and
 * asks again, so neither the wait nor the refused request is in the answer's time. Other than 200 throws.
 */
export async function patientGet(baseUrl: string, path: string, token: string, onLimited: () => void = () => {}): Promise<TimedGet> {
  for (;;) {
    const t0 = performance.now();
    const res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    const body = Buffer.from(await res.arrayBuffer());
    const ms = performance.now() - t0;
    if (res.status === 429) {
      onLimited();
      await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
      continue;
    }
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${body.toString('utf8').slice(0, 300)}`);
    return { ms, status: res.status, body, headers: res.headers };
  }
}
