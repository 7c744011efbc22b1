// The console's page (GET /): its headers, a policy that allows its one script and its one style by
// hash and nothing inline, nothing fetched from another origin, a label for every control, a
// heading for every view, a script that parses, and the route answered by its function.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { consoleHeaders, consolePage, consolePolicy, consoleScript } from '../../functions/console-page/page';
import { style } from '../../functions/console-page/style';
import { callRaw } from '../support/api';
import { useTestbed } from '../support/testbed';

const sha = (text: string): string => createHash('sha256').update(text).digest('base64');
const directives = new Map(consolePolicy.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]));
const markup = consolePage.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '').replace(/<style>[\s\S]*?<\/style>/g, '');

describe('the console page', () => {
  it('is served under a strict policy: same origin only, its script and style by hash, nothing inline, never framed', () => {
    const scripts = [...consolePage.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    const styles = [...consolePage.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '').matchAll(/<style>([\s\S]*?)<\/style>/g)];
    expect(consolePolicy).not.toContain('unsafe-');
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('form-action')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]![2]).toBe(consoleScript);
    expect(directives.get('script-src')).toEqual([`'sha256-${sha(scripts[0]![2]!)}'`]);
    expect(styles.map((s) => s[1])).toEqual([style]);
    expect(directives.get('style-src')).toEqual([`'sha256-${sha(style)}'`]);
    expect(consoleHeaders).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer', 'cache-control': 'no-cache' });
  });

  it('names no other origin anywhere, has no inline handler or style attribute, and no script URL', () => {
    const urls = [...consolePage.matchAll(/https?:\/\/[^\s'"<)]+/g)].map((m) => m[0]);
    // The SVG namespace is a name, never fetched; the Stripe check only tests a link's scheme.
    expect(urls.filter((u) => u !== 'http://www.w3.org/2000/svg')).toEqual([]);
    expect(markup).not.toMatch(/\son[a-z]+=/i);
    expect(markup).not.toMatch(/\sstyle=/i);
    expect(markup).not.toMatch(/javascript:/i);
    expect(markup).not.toMatch(/(src|href)="(?!data:|#|\/)/);
  });

  it('gives every input, select and textarea a label naming its id, and no id twice', () => {
    const ids = [...markup.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
    const labelled = new Set([...markup.matchAll(/<label for="([^"]+)"/g)].map((m) => m[1]));
    const controls = [...markup.matchAll(/<(input|select|textarea)\b([^>]*)>/g)].map((m) => /\sid="([^"]+)"/.exec(m[2]!)?.[1] ?? `(no id) ${m[0]}`);
    expect(controls.length).toBeGreaterThan(30);
    expect(controls.filter((id) => !labelled.has(id))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('has a focusable heading for every view, and every navigation entry names a view', () => {
    const views = [...markup.matchAll(/<section data-view="([^"]+)" aria-labelledby="h-\1" hidden><h2 id="h-\1" tabindex="-1">/g)].map((m) => m[1]);
    const navigated = [...markup.matchAll(/data-nav="([^"]+)"/g)].map((m) => m[1]);
    expect(views).toEqual(expect.arrayContaining(['signin', 'signup', 'code', 'forgot', 'reset-password', 'verify-email', 'overview', 'keys', 'domains', 'messages', 'suppressions', 'webhooks', 'templates', 'broadcasts', 'contacts', 'usage', 'billing', 'accounts', 'dead-letters']));
    expect(navigated.filter((n) => !views.includes(n))).toEqual([]);
    expect(markup).toMatch(/<header[\s>]/);
    expect(markup).toMatch(/<nav aria-label="Console">/);
    expect(markup.match(/<main\b/g)).toHaveLength(2);
  });

  it('has a script that parses and builds nothing from markup (no innerHTML, no insertAdjacentHTML, no document.write)', () => {
    // An inline module may declare exports (the shared sanitizer does); as a function body it may not.
    expect(() => new Function(consoleScript.replace(/^export /gm, ''))).not.toThrow();
    expect(consoleScript).not.toMatch(/\.innerHTML\s*=|outerHTML\s*=|insertAdjacentHTML|document\.write/);
    expect(consoleScript).not.toMatch(/localStorage|sessionStorage/);
  });

  it('stays lean: under 24 KB gzipped', () => {
    expect(gzipSync(consolePage).length).toBeLessThan(24 * 1024);
  });
});

describe('GET /', () => {
  useTestbed({ sandbox: true });

  it('answers the page with its headers, and another method 405 in the envelope', async () => {
    const page = await callRaw({ method: 'GET', path: '/' });
    const post = await callRaw({ method: 'POST', path: '/', body: {} });
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe(consolePage);
    expect(page.headers).toMatchObject({ 'content-security-policy': consolePolicy, 'content-type': 'text/html; charset=utf-8', 'x-content-type-options': 'nosniff' });
    expect(post.statusCode).toBe(405);
    expect(JSON.parse(post.body ?? '{}')).toMatchObject({ error: { code: 'method_not_allowed', status: 405 } });
  });
});
