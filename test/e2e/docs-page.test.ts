// The API reference at GET /docs, served by the local runtime: a static page under a strict
// Content-Security-Policy that renders the document it fetches from its own origin. Opened in a
// real headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core), it must show one
// section per operation of docs/openapi.json, log no console error (a CSP violation is one) and
// request nothing outside its origin.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitted, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { operationsOf, type Json } from '../support/openapi';
import { needsTool, whereOnPath } from '../support/system-tools';

const chromium = needsTool('chromium', 'apt-get update && apt-get install -y chromium');
const doc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as Json;

let dataDir: string;
let runtime: RuntimeProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-docs-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir });
});
afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the docs routes, refused or asked for headers only', () => {
  it('answers HEAD with the headers of GET and no body', async () => {
    for (const path of ['/docs', '/v1/openapi.json']) {
      const get = await admitted(() => fetch(`${runtime.url}${path}`), `GET ${path}`);
      const head = await admitted(() => fetch(`${runtime.url}${path}`, { method: 'HEAD' }), `HEAD ${path}`);
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(head.headers.get('cache-control')).toBe('public, max-age=300');
    }
  });

  it('refuses another method with 405 and Allow, and an unknown path with 404, in the envelope', async () => {
    const post = await admitted(() => fetch(`${runtime.url}/docs`, { method: 'POST' }), 'POST /docs');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('GET');
    expect(((await post.json()) as { error: unknown }).error).toMatchObject({ code: 'method_not_allowed', status: 405 });
    const yaml = await admitted(() => fetch(`${runtime.url}/v1/openapi.yaml`), 'GET /v1/openapi.yaml');
    expect(yaml.status).toBe(404);
    expect(((await yaml.json()) as { error: unknown }).error).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('GET /docs', () => {
  it('answers HTML under a Content-Security-Policy that runs only its own script and reaches only its origin', async () => {
    const res = await admitted(() => fetch(`${runtime.url}/docs`), 'GET /docs');
    const policy = res.headers.get('content-security-policy') ?? '';

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toMatch(/^<!doctype html>/i);
    expect(policy).toContain("default-src 'none'");
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/);
    expect(policy).toContain("connect-src 'self'");
  });
});

chromium.describe(chromium.name('the reference page in a browser'), () => {
  let browser: Browser;

  beforeAll(async () => {
    const { chromium: driver } = await import('playwright-core');
    // Debian's Chromium (/usr/bin/chromium); playwright-core adds --no-sandbox itself.
    browser = await driver.launch({ executablePath: whereOnPath('chromium') });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('renders one section per operation, with no console error and no request outside its origin', async () => {
    const operationIds = operationsOf(doc).map((o) => String(o.op.operationId));
    const origin = new URL(runtime.url).origin;
    const page = await browser.newPage();
    const errors: string[] = [];
    const requested: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('request', (request) => requested.push(request.url()));

    const loaded = await page.goto(`${runtime.url}/docs`);
    // Rendered, or given up: the page says so when it cannot load or render the document.
    await page.waitForFunction(
      (count) => {
        // Runs in the page (the project's TypeScript has no DOM library).
        const page = (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number }; querySelector(s: string): { textContent: string | null } | null } }).document;
        return page.querySelectorAll('main section.op').length >= count || /Could not load/.test(page.querySelector('main')?.textContent ?? '');
      },
      operationIds.length,
      { timeout: 20_000 },
    );
    const sections = await page.$$eval('main section.op', (nodes) => nodes.map((n) => n.id));
    const failure = /Could not load.*/.exec((await page.textContent('main')) ?? '')?.[0];
    await page.close();

    expect(operationIds.length).toBeGreaterThan(0);
    expect(loaded?.status()).toBe(200);
    expect(failure).toBeUndefined();
    expect([...sections].sort()).toEqual([...operationIds].sort());
    expect(errors).toEqual([]);
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
    expect(requested.map((url) => new URL(url).pathname)).toEqual(expect.arrayContaining(['/docs', '/v1/openapi.json']));
  });
});
