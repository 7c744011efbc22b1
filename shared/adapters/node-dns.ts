// Recipient-domain checks through node:dns against configurable resolvers (DNS_SERVERS).
import { Resolver } from 'node:dns/promises';
import { RetryableError } from '../errors';
import type { Dns } from '../ports/dns';

// The name has no such record, or does not exist at all: a definite answer.
const ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'NOTFOUND', 'ENONAME']);

export class NodeDns implements Dns {
  private readonly resolver: Resolver;

  constructor(servers: readonly string[] = [], timeoutMs = 3000) {
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
    if (servers.length > 0) this.resolver.setServers([...servers]);
  }

  async acceptsMail(domain: string): Promise<boolean> {
    const lookups: Array<() => Promise<unknown[]>> = [
      () => this.resolver.resolveMx(domain),
      () => this.resolver.resolve4(domain),
      () => this.resolver.resolve6(domain),
    ];
    let unanswered: unknown;
    for (const lookup of lookups) {
      try {
        if ((await lookup()).length > 0) return true;
      } catch (error) {
        if (!ABSENT.has((error as { code?: string }).code ?? '')) unanswered = error;
      }
    }
    // No record found; if some lookup never got an answer we cannot call the domain dead.
    if (unanswered) throw new RetryableError(`DNS lookup for ${domain} failed`, { cause: unanswered });
    return false;
  }
}
