import type { TestApp } from './test-app.js';

/**
 * Wraps `t.api` so a suite can assert at the end that nothing answered 5xx (a 5xx is a bug) and so requests read
 * as `get(path, who)` where `who` is a TestUser (bearer) or undefined (guest).
 */
export function recordingClient(t: () => TestApp) {
  const serverErrors: string[] = [];
  async function get(path: string, who?: { headers: Record<string, string> }) {
    const res = await t().api(path, { headers: who?.headers });
    if (res.status >= 500) serverErrors.push(`${res.status} GET ${path}: ${JSON.stringify(res.body)}`);
    return res;
  }
  return { get, serverErrors };
}
