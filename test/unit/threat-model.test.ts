// docs/threat-model.md's table of powers is made from the manifest (test/support/powers.ts): it
// has one row per route and one per function no route reaches, and says what the pipeline answers
// each kind of caller. A manifest change that the document does not show fails here. To write the
// tables again after such a change: WRITE_THREAT_MODEL=1 npx vitest run test/unit/threat-model.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { functions, httpRoutes } from '../../functions/manifest';
import { routeKey } from '../../shared/platform';
import { actors, actorHeadings, withTables } from '../support/powers';

const path = new URL('../../docs/threat-model.md', import.meta.url);
const committed = readFileSync(path, 'utf8');
// Asked to, the tables are written first, and the checks below read what was written.
if (process.env.WRITE_THREAT_MODEL === '1' && withTables(committed) !== committed) writeFileSync(path, withTables(committed));
const doc = readFileSync(path, 'utf8');

describe('docs/threat-model.md', () => {
  it('holds the tables the manifest makes now', () => {
    expect(doc === withTables(doc) ? 'current' : 'stale: run WRITE_THREAT_MODEL=1 npx vitest run test/unit/threat-model.test.ts').toBe('current');
  });

  it('has exactly one row per manifest route, and one per function no route reaches', () => {
    const rows = [...doc.matchAll(/^\| `((?:GET|POST|PUT|PATCH|DELETE) [^`]+)` \|/gm)].map((m) => m[1]);
    const entries = [...doc.matchAll(/^\| `([a-z-]+)` \(/gm)].map((m) => m[1]);

    expect(rows.sort()).toEqual(httpRoutes().map(routeKey).sort());
    expect(entries.sort()).toEqual(functions.filter((f) => !f.http?.length).map((f) => f.name).sort());
  });

  it('explains every column of the table in its legend', () => {
    for (const actor of actors) expect(doc, actor).toContain(`**${actorHeadings[actor]}**`);
  });
});
