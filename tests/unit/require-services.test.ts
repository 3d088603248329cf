import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * A missing service on CI must fail the run, never turn suites into green skips. Each case runs a real vitest (this
 * repository's config, so the global setup is the one CI uses) on a small unit test file with a changed environment.
 */
function vitest(env: Record<string, string | undefined>): { status: number | null; output: string } {
  const childEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env })) if (v !== undefined) childEnv[k] = v;
  const res = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'tests/unit/page-access.test.ts'], {
    env: childEnv,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: res.status, output: `${res.stdout}\n${res.stderr}` };
}

const everything = {
  DATABASE_URL: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
};

describe('with CI set, a missing service fails the run', () => {
  it('without DATABASE_URL', () => {
    const run = vitest({ ...everything, CI: 'true', DATABASE_URL: undefined });
    expect(run.status).not.toBe(0);
    expect(run.output).toContain('postgres: set DATABASE_URL');
  });

  it('with a DATABASE_URL and a REDIS_URL nothing answers on', () => {
    const run = vitest({ CI: 'true', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test', REDIS_URL: 'redis://127.0.0.1:1' });
    expect(run.status).not.toBe(0);
    expect(run.output).toContain('postgres: cannot connect to DATABASE_URL');
    expect(run.output).toContain('redis: cannot reach REDIS_URL');
  });

  it('without Chromium', () => {
    const run = vitest({ ...everything, CI: 'true', CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(run.status).not.toBe(0);
    expect(run.output).toContain('chromium: install Debian');
  });

  it('without CI the same run skips what it lacks and passes', () => {
    const run = vitest({ CI: undefined, DATABASE_URL: undefined, REDIS_URL: undefined, CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(run.output).toMatch(/Tests\s+\d+ passed/);
    expect(run.status).toBe(0);
  });
});
