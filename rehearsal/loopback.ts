// The rehearsal's stand-ins listen on loopback only: a server started on a port (0: any free one),
// its endpoint, and a close that also ends the keep-alive connections clients left open.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  endpoint: string;
  close(): Promise<void>;
}

export async function listenOnLoopback(server: Server, port = 0): Promise<Listening> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
