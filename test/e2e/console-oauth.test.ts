// Signing in to the console with GitHub in a real headless Chromium, against the local runtime
// started as a process (one for the file) and configured by its environment (OAUTH_GITHUB_*) to a
// loopback stand-in of GitHub; Google is left unconfigured, as a deployment without it is. The
// browser follows the real redirects: console → start → the stand-in's authorize page → the
// callback → the console. Screenshots go to test-artifacts/console/ with the console's others.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { githubStandInEnv, startOAuthStandIn, type OAuthStandIn } from '../support/oauth-stand-in';
import { pageSession } from '../support/sessions';
import { needsTool, whereOnPath } from '../support/system-tools';
import { waitFor } from '../support/wait';

// The page's side of page.evaluate (the project's TypeScript has no DOM library).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type InPage = any;

const chromium = needsTool('chromium', 'apt-get update && apt-get install -y chromium');
const shots = new URL('../../test-artifacts/console/', import.meta.url).pathname;

let dataDir: string;
let runtime: RuntimeProcess;
let github: OAuthStandIn;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-console-oauth-'));
  mkdirSync(shots, { recursive: true });
  github = await startOAuthStandIn();
  runtime = await startRuntimeProcess({
    DATA_DIR: dataDir,
    ...githubStandInEnv(github),
  });
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await github?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

chromium.describe(chromium.name('signing in to the console with a provider'), () => {
  let browser: Browser;
  /** Script errors and policy violations (a refused request's "Failed to load resource" line is the browser's, not the page's). */
  const errors: string[] = [];
  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    return page;
  };
  const status = async (p: Page): Promise<string> => (await p.textContent('#status')) ?? '';
  const shown = (p: Page, view: string) => p.waitForSelector(`[data-view="${view}"]:not([hidden])`);
  // The page loads share the per-IP limit with the console's own requests: on a fast machine the
  // next load may come inside the same second and be refused (429), so it is opened once admitted.
  const open = (p: Page, url: string) =>
    waitFor(
      async () => {
        // From a blank page each time: a refused load left its URL in the address bar, and going to
        // the same URL with a fragment again would only move to the fragment, loading nothing.
        await p.goto('about:blank');
        const res = await p.goto(url);
        return res !== null && res.status() !== 429;
      },
      { what: `the rate limiter to admit the page load of ${url}`, timeoutMs: 15_000, intervalMs: 250 },
    );
  /**
   * Waits for the console to say something in #status. A page the limiter refused (its body the
   * 429 envelope, no console in it) is not an answer: `again` repeats the step that led there.
   */
  const statusShown = (p: Page, again: () => Promise<unknown>) =>
    waitFor(
      async () => {
        const seen = await p
          .evaluate(() => {
            const d = (globalThis as InPage).document;
            return { status: d.getElementById('status')?.textContent ?? '', body: d.body?.innerText ?? '' };
          })
          .catch(() => ({ status: '', body: '' })); // mid-navigation: look again
        // The console saying the provider's start answered 429 is the per-IP limiter too: the step is repeated.
        const limited = seen.body.includes('"rate_limit_exceeded"') || /\(HTTP 429\)/.test(seen.status);
        if (limited) {
          await again();
          return false;
        }
        return seen.status !== '';
      },
      { what: 'the console to show a status', timeoutMs: 30_000, intervalMs: 100 },
    );
  /** Opens the console's `view` and clicks its `provider` button: a flow's first step, repeated when the limiter refused it. */
  const clickProvider = (p: Page, view: 'signin' | 'signup', provider: 'GitHub' | 'Google') => async (): Promise<void> => {
    await open(p, `${runtime.url}/#/${view}`);
    await shown(p, view);
    await p.click(`[data-view="${view}"] a[data-oauth="${provider}"]`);
  };
  const shoot = async (p: Page, name: string): Promise<void> => {
    for (const width of [375, 1280]) {
      await p.setViewportSize({ width, height: 740 });
      await p.screenshot({ path: join(shots, `${name}-${width}.png`), fullPage: true });
    }
  };

  beforeAll(async () => {
    const { chromium: driver } = await import('playwright-core');
    browser = await driver.launch({ executablePath: whereOnPath('chromium') });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('clicks GitHub, is authorized by the stand-in, and lands on the overview signed in as the verified address', async () => {
    github.reset();
    const page = await newPage();
    await open(page, `${runtime.url}/`);
    await shown(page, 'signin');
    await page.click('[data-view="signin"] a[data-oauth="GitHub"]');
    await shown(page, 'overview');
    await page.waitForSelector('#overview-body .badge');

    expect(page.url()).toBe(`${runtime.url}/#/overview`);
    // The console's check of the start, then the start itself: only the second reaches the provider.
    expect(github.authorizations).toHaveLength(1);
    expect(github.tokenRequests.map((t) => t.granted)).toEqual([true]);
    const session = await pageSession<InPage>(page);
    const address = String(github.github.emails[1]!.email).toLowerCase();
    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ email: address, email_verified: true });
    expect(await page.textContent('#who')).toContain(address);
    await shoot(page, 'oauth-1-overview');
    await page.context().close();
  });

  it('says a refused authorization in a sentence, and takes the reason out of the address bar', async () => {
    github.reset();
    github.deny = true;
    const page = await newPage();
    const start = clickProvider(page, 'signin', 'GitHub');
    await start();
    await statusShown(page, start);

    expect(await status(page)).toBe('Sign-in was cancelled at the provider, and nothing was shared. Try again, or sign in another way.');
    expect(await page.getAttribute('#status', 'class')).toBe('error');
    expect(await page.isVisible('[data-view="signin"]')).toBe(true);
    expect(page.url()).toBe(`${runtime.url}/#/signin`);
    expect((await pageSession(page)).status).toBe(401);
    await shoot(page, 'oauth-2-denied');
    await page.context().close();
  });

  it('says each reason the callback can give, and an unknown one in general words', async () => {
    const page = await newPage();
    const sentences: Record<string, string> = {
      oauth_failed: 'Sign-in with the provider did not complete. Try again, or sign in another way.',
      oauth_email_unverified: 'The provider has no verified email address for you. Verify your address there, or sign in another way.',
      account_suspended: 'This account is suspended. Contact support to have it lifted.',
      constructor: 'Sign-in did not complete. Try again, or sign in another way.',
    };
    for (const [reason, sentence] of Object.entries(sentences)) {
      await open(page, `${runtime.url}/#/sign-in?error=${reason}`);
      await shown(page, 'signin');
      await statusShown(page, () => open(page, `${runtime.url}/#/sign-in?error=${reason}`));
      expect(await status(page), reason).toBe(sentence);
      expect(page.url()).toBe(`${runtime.url}/#/signin`);
    }
    await page.context().close();
  });

  it('says Google is not set up on this deployment, and stays on the page', async () => {
    github.reset();
    const page = await newPage();
    const start = clickProvider(page, 'signup', 'Google');
    await start();
    await statusShown(page, start);

    expect(await status(page)).toBe('Sign-in with Google is not set up on this deployment.');
    expect(page.url()).toBe(`${runtime.url}/#/signup`);
    expect(github.authorizations).toEqual([]);
    await shoot(page, 'oauth-3-google-not-set-up');
    await page.context().close();
  });

  it('logged no script error nor policy violation', () => {
    expect(errors).toEqual([]);
  });
});
