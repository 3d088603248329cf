import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

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
