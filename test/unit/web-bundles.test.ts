// The browser apps of web/ as their pages inline them: each generated module holds exactly what
// esbuild builds from the app's sources now (else `npm run web:build` was not run after a change),
// and its page (Mail, the console) allows that script, and nothing else, by its hash.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appScript as consoleBundle } from '../../functions/console-page/generated/app-bundle';
import { consolePage, consolePolicy } from '../../functions/console-page/page';
import { appScript } from '../../functions/mail-page/generated/app-bundle';
import { mailPage, pagePolicy } from '../../functions/mail-page/page';
import { bundleWebApp, generatedModule, webApps } from '../../lib/web-bundles';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the generated bundles', () => {
  it.each(Object.entries(webApps))('%s: the checked-in module is what web:build makes of the sources now (else run `npm run web:build`)', async (_name, app) => {
    // Act
    const fresh = generatedModule(app, await bundleWebApp(app, root));
    // Assess
    expect(readFileSync(join(root, app.generated), 'utf8')).toBe(fresh);
  });

  it.each([
    ['Mail', appScript],
    ['console', consoleBundle],
  ])('the %s bundle is one module with nothing left to import and nothing that would end its element', (_name, script) => {
    expect(script).not.toMatch(/<\/script|<!--/i);
    expect(script).not.toMatch(/(^|[;}])\s*import\s*[{*\w"']/);
    // The client's transport is in it: the page's calls take its one retry policy.
    expect(script).toContain('idempotency_key_in_use');
  });
});

describe('the Mail page', () => {
  it('inlines the bundle once, as its one module script, allowed by its SHA-256 and by nothing else', () => {
    const scripts = [...mailPage.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    const hash = createHash('sha256').update(appScript).digest('base64');

    expect(scripts.map((s) => [s[1]?.trim(), s[2]])).toEqual([['type="module"', appScript]]);
    expect(pagePolicy.split('; ').filter((d) => d.startsWith('script-src'))).toEqual([`script-src 'sha256-${hash}'`]);
  });
});

describe('the console page', () => {
  it('inlines the bundle once, as its one module script, allowed by its SHA-256 and by nothing else', () => {
    const scripts = [...consolePage.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    const hash = createHash('sha256').update(consoleBundle).digest('base64');

    expect(scripts.map((s) => [s[1]?.trim(), s[2]])).toEqual([['type="module"', consoleBundle]]);
    expect(consolePolicy.split('; ').filter((d) => d.startsWith('script-src'))).toEqual([`script-src 'sha256-${hash}'`]);
  });
});
