// DNS through node:dns against configurable resolvers (DNS_SERVERS): recipient-domain checks and
// the lookups domain verification needs.
import { Resolver } from 'node:dns/promises';
import { RetryableError } from '../errors';
import type { Dns, RecordType } from '../ports/dns';

// The name has no such record, or does not exist at all: a definite answer.
const ABSENT = new Set(['ENODATA', 'ENOTFOUND', 'NOTFOUND', 'ENONAME']);

export class NodeDns implements Dns {
  private readonly resolver: Resolver;

  constructor(servers: readonly string[] = [], timeoutMs = 3000) {
    this.resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
    if (servers.length > 0) this.resolver.setServers([...servers]);
  }

  private async ask(name: string, type: RecordType): Promise<string[]> {
    const r = this.resolver;
    switch (type) {
      case 'MX':
        return (await r.resolveMx(name)).map((mx) => `${mx.priority} ${mx.exchange}`);
      case 'A':
        return r.resolve4(name);
      case 'AAAA':
        return r.resolve6(name);
      case 'CNAME':
        return r.resolveCname(name);
      case 'TXT':
        return (await r.resolveTxt(name)).map((chunks) => chunks.join(''));
      case 'NS':
        return r.resolveNs(name);
    }
  }

  async lookup(name: string, type: RecordType): Promise<string[]> {
    try {
      return await this.ask(name, type);
    } catch (error) {
      if (ABSENT.has((error as { code?: string }).code ?? '')) return [];
      throw new RetryableError(`DNS ${type} lookup for ${name} got no answer`, { cause: error });
    }
  }

  async acceptsMail(domain: string): Promise<boolean> {
    let unanswered: unknown;
    for (const type of ['MX', 'A', 'AAAA'] as const) {
      try {
        if ((await this.lookup(domain, type)).length > 0) return true;
      } catch (error) {
        unanswered = error;
      }
    }
    // No record found; if some lookup never got an answer we cannot call the domain dead.
    if (unanswered) throw new RetryableError(`DNS lookup for ${domain} failed`, { cause: unanswered });
    return false;
  }
}
