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
});
