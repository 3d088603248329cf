import { describe, expect, it } from 'vitest';
import { consoleErrorProblems, expectConsoleError } from '../helpers/console-errors.js';
import { failedRequest } from '../helpers/browser.js';

/**
 * The rule of tests/setup/console-errors.ts: a console.error a test did not declare fails it. Each case reads the
 * problems itself (which clears them), so the setup file's own check after the test finds nothing left.
 */
describe('console errors in tests', () => {
  it('names an undeclared console.error (the setup file then fails the test)', () => {
    console.error('something broke: %s', 'the widget');
    expect(consoleErrorProblems()).toEqual(['unexpected console.error: something broke: the widget']);
  });

  it('lets a declared one pass, by substring or pattern, as often as it comes', () => {
    expectConsoleError('Warning: a known one');
    expectConsoleError(/^Failed to load \d+ items$/);
    console.error('Warning: a known one, with details');
    console.error('Warning: a known one, again');
    console.error('Failed to load %d items', 3);
    expect(consoleErrorProblems()).toEqual([]);
  });

  it('fails when a declared one never comes', () => {
    expectConsoleError('never written');
    expect(consoleErrorProblems()).toEqual(['expected a console.error matching never written, none came']);
  });

  it('declared errors pass without help from the test', () => {
    expectConsoleError('left for the setup file to check');
    console.error('left for the setup file to check');
  });
});

describe('browser errors declared in e2e tests', () => {
  const logged = (status: string, url: string) => `guest /auth/login: console error: Failed to load resource: the server responded with a status of ${status} (${url})`;

  it('failedRequest matches the line chromium logs for that status and path only', () => {
    const login = failedRequest(400, '/api/auth/login');
    expect(login.test(logged('400 (Bad Request)', 'http://127.0.0.1:41783/api/auth/login'))).toBe(true);
    expect(login.test(logged('500 (Internal Server Error)', 'http://127.0.0.1:41783/api/auth/login'))).toBe(false);
    expect(login.test(logged('400 (Bad Request)', 'http://127.0.0.1:41783/api/auth/login/other'))).toBe(false);
    const home = failedRequest(503, '/');
    expect(home.test(logged('503 (OK)', 'http://127.0.0.1:38879/'))).toBe(true);
    expect(home.test(logged('503 (OK)', 'http://127.0.0.1:38879/performers'))).toBe(false);
    expect(failedRequest(404, '/search?q=a+b').test(logged('404 (Not Found)', 'http://127.0.0.1:1/search?q=a+b'))).toBe(true);
  });
});
