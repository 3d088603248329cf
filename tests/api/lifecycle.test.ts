import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../helpers/test-app.js';
import { services, warnMissing } from '../helpers/services.js';

const built = services.builtSite;
warnMissing('builtSite', 'the process-level SIGTERM test');

describe('graceful shutdown', () => {
  it('close() lets an in-flight request finish, then closes the database', async () => {
    const t = await startTestApp('sqlite', {
      beforeListen: (b) => {
        b.app.get('/__slow', async () => {
          await new Promise((r) => setTimeout(r, 400));
          return { done: true };
        });
      },
    });
    const inFlight = fetch(`${t.url}/__slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
    await new Promise((r) => setTimeout(r, 100));
    const closing = t.built.close();
    const result = await inFlight;
    await closing;
    expect(result).toEqual({ status: 200, body: { done: true } });
    // New connections are refused once closed.
    await expect(fetch(`${t.url}/api/settings/public`)).rejects.toThrow();
    // The database handle is closed.
    await expect(t.ctx.db.selectFrom('users').selectAll().execute()).rejects.toThrow();
    await t.close();
  });

  it.skipIf(!built)('the server process drains on SIGTERM, exits 0 and leaves the SQLite file checkpointed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'site-sigterm-'));
    const port = 20000 + Math.floor(Math.random() * 20000);
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: { ...process.env, DATABASE_URL: '', REDIS_URL: '', DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_ENV: 'development' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 30_000;
    while (!out.includes('site is up')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`server did not start:\n${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const res = await fetch(`http://127.0.0.1:${port}/api/settings/public`);
    expect(res.status).toBe(200);
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('shut down cleanly');
    // better-sqlite3 checkpoints and removes the WAL file when the last connection closes cleanly.
    expect(fs.existsSync(path.join(dir, 'site.db'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'site.db-wal'))).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
