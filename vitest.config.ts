import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // With CI set, a missing PostgreSQL, Redis, Chromium or built site fails the run instead of skipping suites.
    globalSetup: ['tests/setup/require-services.ts'],
    // A console.error no test declared fails the test (tests/helpers/console-errors.ts).
    setupFiles: ['tests/setup/console-errors.ts'],
    projects: [
      {
        // Unit and island tests mock modules and swap globals (jsdom, timers): each file gets fresh modules.
        extends: true,
        test: { name: 'unit', include: ['tests/unit/**/*.test.{ts,tsx}'] },
      },
      {
        // API and browser tests build whole apps from the same server modules. Importing them anew for every file
        // cost ~4 s a file (measured: five files importing the test app, 25 s isolated, 7 s shared), over a third
        // of the suite. These files share one module cache; each still builds its own app, database and browser,
        // and none mocks a module.
        extends: true,
        test: { name: 'server', include: ['tests/api/**/*.test.{ts,tsx}', 'tests/e2e/**/*.test.{ts,tsx}'], isolate: false },
      },
    ],
  },
});
