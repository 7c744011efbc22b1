// Calls between the local runtime's API thread and its functions thread over one MessagePort:
// each side serves some methods and calls the other's. A call's argument and answer are
// structured-cloned (plain data; a Buffer arrives as a Uint8Array). A method that throws rejects the
// caller's promise with an Error of the same name and message.
import type { MessagePort } from 'node:worker_threads';

type Handler = (arg: never) => unknown;

type Envelope =
  | { kind: 'call'; id: number; method: string; arg: unknown }
  | { kind: 'reply'; id: number; value?: unknown; error?: { name: string; message: string } };

export class PortRpc {
  private nextId = 0;
  private readonly pending = new Map<number, { ok: (value: unknown) => void; fail: (error: Error) => void }>();
  private readonly handlers = new Map<string, Handler>();
  private closed = false;

  constructor(private readonly port: MessagePort) {
    port.on('message', (message: Envelope) => {
      if (message.kind === 'call') void this.answer(message);
      else this.settle(message);
    });
  }

  /** Methods the other side may call. */
  serve(handlers: Record<string, Handler>): this {
    for (const [name, handler] of Object.entries(handlers)) this.handlers.set(name, handler);
    return this;
  }

  call<T>(method: string, arg?: unknown): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`the functions thread link is closed (${method})`));
    const id = ++this.nextId;
    return new Promise<T>((ok, fail) => {
      this.pending.set(id, { ok: ok as (value: unknown) => void, fail });
      this.port.postMessage({ kind: 'call', id, method, arg } satisfies Envelope);
    });
  }

  /** Fails every call still waiting and closes the port (the other side is gone or going). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const { fail } of this.pending.values()) fail(new Error('the functions thread link closed before an answer came'));
    this.pending.clear();
    this.port.close();
  }

  private async answer(message: Extract<Envelope, { kind: 'call' }>): Promise<void> {
    let reply: Envelope;
    try {
      const handler = this.handlers.get(message.method);
      if (!handler) throw new Error(`no method ${message.method} on this side of the functions thread link`);
      reply = { kind: 'reply', id: message.id, value: await handler(message.arg as never) };
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      reply = { kind: 'reply', id: message.id, error: { name: e.name, message: e.message } };
    }
    if (!this.closed) this.port.postMessage(reply);
  }

  private settle(message: Extract<Envelope, { kind: 'reply' }>): void {
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    if (!message.error) return waiting.ok(message.value);
    const error = new Error(message.error.message);
    error.name = message.error.name;
    waiting.fail(error);
  }
}
