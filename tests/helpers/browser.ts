import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type ConsoleMessage, type Page } from 'playwright-core';
import { chromiumPath, services, warnMissing } from './services.js';

/**
 * Debian's chromium, driven by playwright-core; never a downloaded browser. Playwright gives each launch a fresh
 * temporary profile. Tests use it through `useBrowser` (below).
 */
export { chromiumPath };
export const hasChromium = services.chromium;
warnMissing('chromium', 'browser tests');

export async function launchBrowser(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

/** Who a context is: a guest (null), or a signed-in user by its session token (tests/helpers/sessions.ts `createUser`). */
export type Visitor = { token: string; username?: string } | null;

export interface ContextOptions extends BrowserContextOptions {
  /** Signed in as this user (its session cookie), or a guest. */
  as?: Visitor;
  /** A phone's touch screen at 390×844 (isMobile, hasTouch, device scale 2), unless `viewport` says otherwise. */
  phone?: boolean;
  /** The site the session cookie is for; the fixture's site by default. */
  site?: string;
  /** Items the site's pages find in localStorage (set when a page loads and the key is not there yet), e.g. a cart. */
  localStorage?: Record<string, string>;
}

export interface BrowserFixture {
  /** The browser, once the fixture's beforeAll has launched it. */
  readonly browser: Browser;
  /** A new context (signed in with `as`); every page opened in it is watched for errors. */
  context(opts?: ContextOptions): Promise<BrowserContext>;
  /** A page in a new context of its own (`page.context().close()` ends both). */
  page(opts?: ContextOptions): Promise<Page>;
  /**
   * Browser errors this test may cause on purpose: a console error whose text (with the address it came from) or an
   * uncaught error whose message matches one of the patterns does not fail it. For this test only.
   */
  expectErrors(...patterns: Array<string | RegExp>): void;
  /** The errors seen and not declared so far (the fixture fails the test with them when it ends). */
  problems(): string[];
}

export const PHONE_VIEWPORT = { width: 390, height: 844 };

/**
 * The console error chromium logs for a response with an error status (an API call refused on purpose, a page
 * answered 503 or 451): for `expectErrors`. `path` is the address's path (and query), from the site's root.
 */
export function failedRequest(status: number, path: string): RegExp {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`: console error: Failed to load resource: the server responded with a status of ${status} \\(.*\\) \\(https?://[^/]+${escaped}\\)$`);
}

/**
 * The one way e2e tests use chromium: call it in a describe block. It launches the browser before the block's tests
 * and closes it after them, makes contexts signed in as a given user, and watches every page they open: a console
 * error or an uncaught page error that the test did not declare with `expectErrors` (or the block with `allow`)
 * fails the test it happened in.
 */
export function useBrowser(site: () => string, opts: { allow?: Array<string | RegExp> } = {}): BrowserFixture {
  let launched: { browser: Browser; close(): Promise<void> } | undefined;
  let expected: Array<string | RegExp> = [];
  let seen: string[] = [];
  const declared = (text: string) => [...(opts.allow ?? []), ...expected].some((p) => (typeof p === 'string' ? text.includes(p) : p.test(text)));
  const where = (page: Page) => {
    try {
      return new URL(page.url()).pathname;
    } catch {
      return page.url();
    }
  };
  const record = (text: string) => {
    if (!declared(text)) seen.push(text);
  };
  const watch = (label: string) => (page: Page) => {
    page.on('console', (msg: ConsoleMessage) => {
      if (msg.type() !== 'error') return;
      const from = msg.location().url;
      record(`${label} ${where(page)}: console error: ${msg.text()}${from ? ` (${from})` : ''}`);
    });
    page.on('pageerror', (err) => record(`${label} ${where(page)}: page error: ${err.message}`));
  };

  beforeAll(async () => {
    launched = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await launched?.close();
  });
  afterEach(() => {
    const problems = seen;
    seen = [];
    expected = [];
    if (problems.length) throw new Error(`browser errors the test did not expect:\n${problems.join('\n')}`);
  });

  const fixture: BrowserFixture = {
    get browser() {
      if (!launched) throw new Error('useBrowser: the browser is launched in beforeAll; use it in a hook or a test');
      return launched.browser;
    },
    async context({ as = null, phone = false, site: url = site(), localStorage: stored, ...options }: ContextOptions = {}) {
      const context = await fixture.browser.newContext({
        ...(phone ? { viewport: PHONE_VIEWPORT, isMobile: true, hasTouch: true, deviceScaleFactor: 2 } : {}),
        ...options,
      });
      if (as) await context.addCookies([{ name: 'token', value: as.token, url, httpOnly: true, sameSite: 'Lax' }]);
      if (stored) {
        await context.addInitScript((items) => {
          // Not on about:blank, whose storage is refused (an uncaught error there).
          if (!location.protocol.startsWith('http')) return;
          for (const [key, value] of Object.entries(items)) if (localStorage.getItem(key) === null) localStorage.setItem(key, value);
        }, stored);
      }
      context.on('page', watch(as ? (as.username ?? 'signed in') : 'guest'));
      return context;
    },
    async page(options: ContextOptions = {}) {
      return (await fixture.context(options)).newPage();
    },
    expectErrors(...patterns) {
      expected.push(...patterns);
    },
    problems: () => [...seen],
  };
  return fixture;
}

export const screensDir = path.resolve('tests/e2e/screens');

/**
 * A screenshot for reviewers in tests/e2e/screens/<name>.png (not committed). Lazy images get their `src` only 200 ms
 * after they come into view, so the page is scrolled through first and the shot waits (3 s at most) until
 * every lazy image in the shot has loaded: otherwise a full-page shot showed empty avatars and thumbnails.
 */
export async function saveScreen(page: Page, name: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  fs.mkdirSync(screensDir, { recursive: true });
  const fullPage = opts.fullPage ?? false;
  if (fullPage) {
    await page.evaluate(async () => {
      for (let y = 0; y < document.body.scrollHeight; y += window.innerHeight / 2) {
        window.scrollTo(0, y);
        await new Promise((r) => setTimeout(r, 50));
      }
      window.scrollTo(0, 0);
    });
  }
  await page
    .waitForFunction(
      (all) => [...document.querySelectorAll<HTMLImageElement>('img[data-lazy]')]
        .filter((img) => all || img.getBoundingClientRect().top < window.innerHeight)
        .every((img) => img.dataset.lazy === 'loaded' && img.complete),
      fullPage,
      { timeout: 3000 },
    )
    .catch(() => undefined);
  // The picture is for reviewers, not an assertion: on a loaded machine a full-page capture (a playing video, a long
  // page) can take longer than a test allows, and that must not fail the test whose assertions all passed. Animations are
  // frozen (a capture waits for a settled frame), and a capture that still fails is reported, not thrown.
  try {
    await page.screenshot({ path: path.join(screensDir, `${name}.png`), fullPage, animations: 'disabled', timeout: 20_000 });
  } catch (err) {
    console.warn(`screenshot ${name} not saved: ${(err as Error).message.split('\n')[0]}`);
  }
}

/**
 * Waits until the first island of a component (matched in its component URL) has hydrated (no `ssr` attribute left).
 * An island below the fold hydrates when it comes into view (client:visible), so it is scrolled to first, as a
 * visitor would; the page's layout above it then cannot decide whether the test passes.
 */
export async function waitForIsland(page: Page, island: string, timeout = 10_000) {
  await page.evaluate((name) => {
    const el = document.querySelector(`astro-island[component-url*="${name}"]`);
    // The island element itself has no box (display: contents): its first rendered child is what comes into view.
    if (el?.hasAttribute('ssr') && el.getAttribute('client') === 'visible') (el.firstElementChild ?? el).scrollIntoView({ block: 'nearest' });
  }, island);
  return page.waitForFunction(
    (name) => {
      const el = document.querySelector(`astro-island[component-url*="${name}"]`);
      return el !== null && !el.hasAttribute('ssr');
    },
    island,
    { timeout },
  );
}

/**
 * A performer's page's controls for the signed-in visitor (Follow, Message, Tip, Report, the subscribe buttons):
 * hydrated, and the visitor's state there asked and shown (on the member shell it comes from one request).
 */
export async function waitForPerformerControls(page: Page, timeout = 10_000) {
  await waitForIsland(page, 'PerformerActions', timeout);
  await waitForIsland(page, 'PerformerSubscribe', timeout);
  return page.waitForFunction(() => !document.querySelector('[data-testid="performer-actions-pending"], [data-testid="subscribe-pending"]'), undefined, { timeout });
}

/**
 * A video's page's controls for the signed-in visitor (the player or the paywall, reactions, Tip, Report): hydrated,
 * and the visitor's state there asked and shown (on the member shell it comes with the header's one request).
 */
export async function waitForVideoControls(page: Page, timeout = 10_000) {
  await waitForIsland(page, 'VideoActions', timeout);
  return page.waitForFunction(() => !document.querySelector('[data-testid="paywall-pending"], [data-testid="reaction-like"][disabled]'), undefined, { timeout });
}

/** The home feed: hydrated, and its first page shown (on the member shell it comes with the header's one request). */
export async function waitForFeed(page: Page, timeout = 10_000) {
  await waitForIsland(page, 'Feed', timeout);
  return page.waitForFunction(() => !document.querySelector('[data-testid="feed-pending"]'), undefined, { timeout });
}

/** One axe-core finding a page must not have: its rule, impact, help text and the elements it was found on. */
export interface AxeProblem {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (npm, injected into the page as a script) against the page as it is now and returns the serious and
 * critical violations, WCAG 2.x A/AA rules and best practices. Call after the islands have hydrated.
 */
export async function axeProblems(page: Page): Promise<AxeProblem[]> {
  const { source } = (await import('axe-core')).default as unknown as { source: string };
  await page.addScriptTag({ content: source });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({ rule: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.map(String).join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
