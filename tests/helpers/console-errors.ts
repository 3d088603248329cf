import { format } from 'node:util';

/**
 * Console errors fail tests. `tests/setup/console-errors.ts` (a vitest setup file) routes `console.error` here for
 * every test; what a test did not declare with `expectConsoleError` fails it when it ends, and so does a declared one
 * that never came (a declaration must stay true). Browser tests have the same rule for the page's console and its
 * uncaught errors (tests/helpers/browser.ts, `openPage`).
 */

interface Expectation {
  pattern: string | RegExp;
  seen: number;
}

let expected: Expectation[] = [];
let unexpected: string[] = [];

const matches = (pattern: string | RegExp, text: string) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));

/** Declares that this test writes a console.error matching `pattern` (a substring or a RegExp), at least once. */
export function expectConsoleError(pattern: string | RegExp): void {
  expected.push({ pattern, seen: 0 });
}

/** The replacement of console.error while tests run: swallows what was declared, keeps (and still prints) the rest. */
export function recordConsoleError(print: (...args: unknown[]) => void, args: unknown[]): void {
  const text = format(...args);
  const hit = expected.find((e) => matches(e.pattern, text));
  if (hit) {
    hit.seen++;
    return;
  }
  unexpected.push(text);
  print(...args);
}

/** What went wrong since the last check (an unexpected error, a declared one missing); clears the declarations. */
export function consoleErrorProblems(): string[] {
  const problems = [
    ...unexpected.map((text) => `unexpected console.error: ${text.split('\n').slice(0, 8).join('\n')}`),
    ...expected.filter((e) => e.seen === 0).map((e) => `expected a console.error matching ${String(e.pattern)}, none came`),
  ];
  expected = [];
  unexpected = [];
  return problems;
}
