import fs from 'node:fs';

/**
 * Which outside services this run of the suite has, decided in one place.
 *
 * A fresh machine's `npm test` has none of them and still passes: suites that need PostgreSQL, Redis, Chromium or a
 * built site are skipped there, each with a loud warning. On CI (`CI` set) the same absence would hide whole suites
 * behind green skips, so `tests/setup/require-services.ts` fails the run before any test starts instead.
 */
export const onCi = Boolean(process.env.CI) && process.env.CI !== 'false' && process.env.CI !== '0';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const services = {
  postgres: Boolean(process.env.DATABASE_URL),
  redis: Boolean(process.env.REDIS_URL),
  chromium: fs.existsSync(chromiumPath),
  builtSite: fs.existsSync('dist/server/entry.mjs'),
};

export type Service = keyof typeof services;

export const howToGet: Record<Service, string> = {
  postgres: 'set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)',
  redis: 'set REDIS_URL (e.g. redis://127.0.0.1:6379)',
  chromium: `install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH; looked at ${chromiumPath}`,
  builtSite: 'run `npx astro build` first (`npm test` does)',
};

/** Says once, loudly, which suites a local run skips; CI never gets here with a service missing. */
export function warnMissing(service: Service, skipped: string): void {
  if (!services[service]) console.warn(`\n!!! ${skipped} are SKIPPED: ${howToGet[service]}. !!!\n`);
}
