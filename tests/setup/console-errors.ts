import { afterAll, afterEach } from 'vitest';
import { consoleErrorProblems, recordConsoleError } from '../helpers/console-errors.js';

/**
 * Setup file (vitest.config.ts `setupFiles`, every test file): a `console.error` the test did not declare with
 * `expectConsoleError` (tests/helpers/console-errors.ts) fails the test it happened in; one written outside a test
 * (a beforeAll) fails the next test to end, or the file once its tests are done (an afterAll).
 */

const print = console.error.bind(console);
console.error = (...args: unknown[]) => recordConsoleError(print, args);

function check(): void {
  const problems = consoleErrorProblems();
  if (problems.length) throw new Error(problems.join('\n\n'));
}

afterEach(check);
afterAll(check);
