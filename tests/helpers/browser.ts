import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium, driven by playwright-core; never a downloaded browser. Playwright gives each launch a fresh temporary profile. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(chromiumPath);
if (!hasChromium) console.warn(`\n!!! ${chromiumPath} not found: browser tests are SKIPPED (apt-get install chromium). !!!\n`);

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
export function screenshotPath(name: string): string {
  fs.mkdirSync(screensDir, { recursive: true });
  return path.join(screensDir, `${name}.png`);
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
