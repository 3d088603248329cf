import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { DEFAULT_DEMO_PASSWORD } from '../../server/config.js';

/**
 * What a newcomer sees after `npm start` (the real process with `--seed-demo`, on its own SQLite data dir): where
 * the site is and the demo logins, in plain lines. Without the flag (`npm run serve`, production) every line stays
 * a JSON log line for collectors.
 */
describe('server start-up output', () => {
  let server: ServerProcess | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    dataDir = undefined;
  });

  const start = async (args: string[], opts: { logLevel?: 'unset' } = {}) => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'start-banner-'));
    // LOG_LEVEL info: the JSON lines a production log shows, so the plain block is seen among them.
    server = await startServerProcess({ DATA_DIR: dataDir, LOG_LEVEL: 'info', DEMO_PASSWORD: undefined }, { args, timeoutMs: 300_000, unset: opts.logLevel === 'unset' ? ['LOG_LEVEL'] : [] });
    // The block follows the listen; give the pipe a moment after /health answered.
    for (let i = 0; i < 50 && !server.logs.some((l) => l.startsWith('Stop it with')); i++) await new Promise((r) => setTimeout(r, 100));
    return server;
  };

  it('--seed-demo prints the URL and the admin, performer and fan logins in plain words', { timeout: 360_000 }, async () => {
    const s = await start(['--seed-demo', '--scale=0.05']);
    const plain = s.logs.filter((l) => !l.startsWith('{'));
    const text = plain.join('\n');
    expect(plain).toContain(`Fanstage is running at ${s.url}`);
    expect(text).toContain(`Demo logins (password for all: ${process.env.DEMO_PASSWORD || DEFAULT_DEMO_PASSWORD})`);
    expect(plain.some((l) => /^\s+admin\s+admin@example\.com$/.test(l)), text).toBe(true);
    expect(plain.some((l) => /^\s+performer\s+\S+@example\.com$/.test(l)), text).toBe(true);
    expect(plain.some((l) => /^\s+fan\s+fan@example\.com$/.test(l)), text).toBe(true);
    // The logins printed work.
    const performerEmail = plain.find((l) => /^\s+performer\s/.test(l))!.trim().split(/\s+/)[1]!;
    for (const email of ['admin@example.com', performerEmail, 'fan@example.com']) {
      const res = await fetch(`${s.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: process.env.DEMO_PASSWORD || DEFAULT_DEMO_PASSWORD }),
      });
      expect(res.status, email).toBe(200);
    }
  });

  it('npm start (--seed-demo, LOG_LEVEL unset) speaks plainly: no JSON lines below a warning, and says when it stopped', { timeout: 360_000 }, async () => {
    const s = await start(['--seed-demo', '--scale=0.05'], { logLevel: 'unset' });
    expect((await fetch(`${s.url}/`)).status).toBe(200);
    const json = s.logs.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(json.filter((l) => l.level < 40), s.logs.join('\n')).toEqual([]);
    expect(s.logs[0]).toMatch(/^Preparing the demo site/);
    expect(s.logs).toContain(`Fanstage is running at ${s.url}`);
    await s.stop();
    expect(s.logs.at(-1)).toBe('Fanstage stopped.');
  });

  it('without --seed-demo (serve) every line is a JSON log line', { timeout: 120_000 }, async () => {
    const s = await start([]);
    const lines = s.logs.filter((l) => !/^npm warn/.test(l));
    expect(lines.some((l) => l.includes('site is up')), lines.join('\n')).toBe(true);
    for (const l of lines) expect(() => JSON.parse(l), l).not.toThrow();
    expect(lines.join('\n')).not.toContain('Fanstage is running at');
  });
});
