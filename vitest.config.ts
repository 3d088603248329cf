import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // With CI set, a missing PostgreSQL, Redis, Chromium or built site fails the run instead of skipping suites.
    globalSetup: ['tests/setup/require-services.ts'],
    // A console.error no test declared fails the test (tests/helpers/console-errors.ts).
    setupFiles: ['tests/setup/console-errors.ts'],
  },
});
