import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { chromiumPath, services, warnMissing } from './services.js';

/** Debian's chromium, driven by playwright-core; never a downloaded browser. Playwright gives each launch a fresh temporary profile. */
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
  await page.screenshot({ path: path.join(screensDir, `${name}.png`), fullPage });
}

/** Waits until the first island of a component (matched in its component URL) has hydrated (no `ssr` attribute left). */
export function waitForIsland(page: Page, island: string, timeout = 10_000) {
  return page.waitForFunction(
    (name) => {
      const el = document.querySelector(`astro-island[component-url*="${name}"]`);
      return el !== null && !el.hasAttribute('ssr');
    },
    island,
    { timeout },
  );
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
