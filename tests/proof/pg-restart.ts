/**
 * `npm run proof:pg-restart` (needs DATABASE_URL and the right to restart the local PostgreSQL, e.g. root with
 * Debian's pg_ctlcluster): the real server as a child process on a fresh PostgreSQL schema, simulated users browsing,
 * liking and commenting (tests/load/core.ts), and PostgreSQL itself restarted in the middle of it
 * (PG_RESTART_COMMAND, default `pg_ctlcluster <version> main restart`). Checks that the same server process
 * answers again without a restart of its own, that nothing answered 500 (only 503 `UNAVAILABLE` while the
 * database was away), and that every write answered 2xx is in the database (comments, like rows and counters).
 * Not part of `npm test`: restarting the shared PostgreSQL would break the suites running next to it. The CI suite
 * covers the same recovery with a connection cut by a TCP proxy (tests/api/faults.test.ts).
 * Writes bench/pg-restart-report.md.
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../server/db/database.js';
import { createPgSchema, startServerProcess } from '../helpers/server-process.js';
import { prepareLoad, runLoad, snapshot, verifyLoad } from '../load/core.js';

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error('DATABASE_URL is required');
const seconds = Number(process.env.SECONDS ?? 30);
const users = Number(process.env.USERS ?? 100);
const restartAt = Number(process.env.RESTART_AT_S ?? 8);

function restartCommand(): string {
  if (process.env.PG_RESTART_COMMAND) return process.env.PG_RESTART_COMMAND;
  const version = execSync('pg_lsclusters -h', { encoding: 'utf8' }).trim().split(/\s+/)[0];
  return `pg_ctlcluster ${version} main restart`;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-restart-'));
const s = await createPgSchema(databaseUrl, 'pr');
const env = { DATA_DIR: dir, APP_SECRET: 'proof', DATABASE_URL: databaseUrl, PG_SCHEMA: s.schema, REDIS_URL: '', LOG_LEVEL: 'warn', NODE_ENV: 'production', SMTP_URL: 'smtp://127.0.0.1:9', PAGE_CACHE_MS: '0' };
const database = await openDatabase({ databaseUrl, pgSchema: s.schema, poolSize: 2 });
const server = await startServerProcess(env);
const pid = server.child.pid;
try {
  const fx = await prepareLoad(database.db, { users, performers: 50, videos: 2000 });
  const before = await snapshot(database.db, fx.videoIds);
  const pages = fs.existsSync('dist/server/entry.mjs');

  // Health probe every 100 ms: when the database went away and when this same process answered again.
  const health: Array<{ at: number; status: number }> = [];
  const started = Date.now();
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const status = await fetch(`${server.url}/health`).then((r) => r.status, () => 0);
      health.push({ at: Date.now() - started, status });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();

  const command = restartCommand();
  let restart: { at: number; ms: number } | undefined;
  const restarting = new Promise<void>((resolve, reject) => {
    setTimeout(() => {
      const t0 = Date.now();
      try {
        execSync(command, { stdio: 'inherit' });
        restart = { at: t0 - started, ms: Date.now() - t0 };
        resolve();
      } catch (err) {
        reject(err);
      }
    }, restartAt * 1000);
  });

  const result = await runLoad(fx, { base: server.url, apiBase: '/api', seconds, pages, thinkMs: 100 });
  await restarting;
  probing = false;
  await probe;
  // The database may need a moment after the restart before verification can read it.
  let check;
  for (let i = 0; ; i++) {
    try {
      check = await verifyLoad(database.db, fx, before, result);
      break;
    } catch (err) {
      if (i > 50) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const firstDown = health.find((h) => h.status !== 200);
  const lastDown = [...health].reverse().find((h) => h.status !== 200);
  const recoveredAt = lastDown ? health.find((h) => h.at > lastDown.at && h.status === 200)?.at : undefined;
  const samePid = server.child.exitCode === null && server.child.pid === pid;
  const by = result.byStatus;
  const fiveHundreds = Object.entries(by).filter(([k]) => Number(k) >= 500 && Number(k) !== 503).reduce((a, [, n]) => a + n, 0);
  // 503 is the designed answer while the database is away; anything else 5xx is a bug.
  const violations = check.violations.filter((v) => !/responses were 5xx/.test(v));
  if (fiveHundreds) violations.push(`${fiveHundreds} responses were 5xx other than 503`);
  if (!samePid) violations.push('the server process did not survive');
  if (recoveredAt === undefined && lastDown) violations.push('the server never answered /health 200 again');

  const md = [
    '# PostgreSQL restart under load',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} cores, Node ${process.version}: the server as a child process on PostgreSQL (fresh schema),`,
    `${users} simulated users for ${seconds} s (tests/load/core.ts: pages, lists, like/unlike, comment), \`${command}\` at ${restartAt} s.`,
    '',
    `- PostgreSQL restart took ${restart?.ms ?? '?'} ms (started at ${restart?.at ?? '?'} ms).`,
    `- /health: first non-200 at ${firstDown?.at ?? '–'} ms, last at ${lastDown?.at ?? '–'} ms, 200 again at ${recoveredAt ?? '–'} ms; same server process throughout: ${samePid ? 'yes' : 'NO'} (pid ${pid}).`,
    `- Requests: ${result.requests} (${result.rps}/s); by status ${JSON.stringify(by)}; network errors ${result.networkErrors}.`,
    `- Writes answered 2xx: ${check.commentsExpected} comments (rows created ${check.commentsCreatedInDb}), like rows net ${check.likeRowsExpected} (in the database ${check.likeRowsDelta}); counter mismatches ${check.likeCounterMismatches.length + check.commentCounterMismatches.length}.`,
    `- Result: ${violations.length ? 'FAIL: ' + violations.join('; ') : 'pass'}.`,
    '',
    ...(fiveHundreds ? ['Server errors logged (first 5):', '', ...server.logs.filter((l) => /"level":50|statusCode":500|Internal/.test(l)).slice(0, 5).map((l) => `    ${l.slice(0, 600)}`), ''] : []),
  ].join('\n');
  fs.mkdirSync('bench', { recursive: true });
  fs.writeFileSync('bench/pg-restart-report.md', md);
  if (process.env.DEBUG_LOGS) fs.writeFileSync('/tmp/pg-restart-server.log', server.logs.join('\n'));
  console.log(md);
  process.exitCode = violations.length ? 1 : 0;
} finally {
  await server.stop();
  await database.close();
  await s.drop().catch(() => {});
  fs.rmSync(dir, { recursive: true, force: true });
}
