// The README's route table is the manifest's, row for row.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { httpRoutes } from '../../functions/manifest';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README', () => {
  it('lists every manifest route, and no route the manifest lacks', () => {
    const documented = [...readme.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \|/gm)].map((m) => `${m[1]} ${m[2]}`);
    const declared = httpRoutes().map((r) => `${r.method} ${r.path}`);
    expect(documented.sort()).toEqual(declared.sort());
  });

  it('marks exactly the live-only routes as "live key only"', () => {
    const marked = [...readme.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| ([^|]+) \|/gm)].filter((m) => m[3]!.includes('live key only')).map((m) => `${m[1]} ${m[2]}`);
    const liveOnly = httpRoutes().filter((r) => 'modes' in r.access && r.access.modes === 'live_only').map((r) => `${r.method} ${r.path}`);
    expect(liveOnly.length).toBeGreaterThan(0);
    expect(marked.sort()).toEqual(liveOnly.sort());
  });

  it('shows no placeholder id in a command: the Quick start reads the id the send answered', () => {
    const commands = readme.split('\n').filter((line) => /^(curl|ID=|KEY=)/.test(line));
    expect(commands.some((line) => line.includes('/v1/messages/$ID'))).toBe(true);
    expect(commands.filter((line) => /msg_…|msg_\.\.\./.test(line))).toEqual([]);
  });

  it('documents the local DNS command that package.json defines', () => {
    const scripts = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts.dns).toBe('tsx bin/dns.ts');
    expect(readme).toContain('npm run dns -- --domain example.com --port 5300');
    expect(readme).toContain('DNS_SERVERS=127.0.0.1:5300 npm start');
  });
});
