/**
 * `tsx tests/bench/render-cpu.ts [--renders=300] [--rounds=3] [dir ...]`: server CPU per render of signed-in pages
 * (a performer page, a video page, the feed, the videos list). Each directory is a checkout with its site built (`npx astro build`); default: this
 * one. Every directory's server runs at once (demo data, the demo fan signed in, warmed up), and the rounds take them
 * in turn (A B A B ...), so machine noise falls on all alike; the median round is kept.
 *
 * CPU is the server process's own (user + system, all threads, from /proc/<pid>/stat) over `renders` sequential
 * requests, divided by their number: what one render costs the machine, whatever else is running (measured once the
 * demo's media jobs are done). Signed-in pages
 * are never micro-cached, so every request renders.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { samplePages, sessionCookie } from './shipped-js.js';

const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const renders = arg('renders', 300);
const rounds = arg('rounds', 3);
const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (dirs.length === 0) dirs.push(process.cwd());

const TICKS_PER_SECOND = 100; // _SC_CLK_TCK on Linux

function cpuMs(pid: number): number {
  // Fields after the command name (which may hold spaces, so split after its closing parenthesis).
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** Waits until the demo's media jobs are done: the process idles (under 5% of a core) for two seconds running. */
async function settle(pid: number): Promise<void> {
  for (let quiet = 0, i = 0; quiet < 2 && i < 300; i++) {
    const before = cpuMs(pid);
    await new Promise((r) => setTimeout(r, 1000));
    quiet = cpuMs(pid) - before < 50 ? quiet + 1 : 0;
  }
}

interface Site {
  dir: string;
  server: ServerProcess;
  base: string;
  cookie: string;
  /** Page name → path, in the order of the report's columns. */
  pages: [string, string][];
}

async function start(dir: string): Promise<Site> {
  // As deployed (NODE_ENV=production): React and other libraries load their production builds; in development
  // React's server renderer alone costs several milliseconds more per page.
  const env = { NODE_ENV: 'production', APP_SECRET: 'bench-secret', SMTP_URL: 'smtp://127.0.0.1:9', DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'render-cpu-')) };
  const server = await startServerProcess(env, { cwd: dir, args: ['--seed-demo'], timeoutMs: 300_000 });
  await settle(server.child.pid!);
  const cookie = await sessionCookie(server.url, 'fan@example.com:demo-password-123');
  const { performer, video } = await samplePages(server.url, { cookie });
  return { dir, server, base: server.url, cookie, pages: [['performer page', performer], ['video page', video], ['home (feed)', '/home'], ['videos list', '/videos']] };
}

/** CPU ms per render of `p` over `n` sequential signed-in requests. */
async function measure(site: Site, p: string, n: number): Promise<number> {
  const before = cpuMs(site.server.child.pid!);
  for (let i = 0; i < n; i++) {
    const res = await fetch(site.base + p, { headers: { cookie: site.cookie } });
    if (res.status !== 200) throw new Error(`${site.dir} ${p}: HTTP ${res.status}`);
    await res.arrayBuffer();
  }
  return (cpuMs(site.server.child.pid!) - before) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const sites: Site[] = [];
try {
  for (const dir of dirs) sites.push(await start(path.resolve(dir)));
  for (const s of sites) for (const [, p] of s.pages) await measure(s, p, 100);
  const results = new Map<string, number[][]>(sites.map((s) => [s.dir, s.pages.map(() => [])]));
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 ? [...sites].reverse() : sites) {
      for (const [i, [, p]] of s.pages.entries()) results.get(s.dir)![i]!.push(await measure(s, p, renders));
    }
  }
  const names = sites[0]!.pages.map(([name]) => name);
  console.log(`| checkout | ${names.map((n) => `signed-in ${n}, CPU ms/render`).join(' | ')} | rounds |\n|---|${names.map(() => '---:|').join('')}---|`);
  for (const [dir, r] of results) {
    const rounds = r.map((xs) => xs.map((x) => x.toFixed(2)).join(' / ')).join('; ');
    console.log(`| ${path.basename(dir)} | ${r.map((xs) => median(xs).toFixed(2)).join(' | ')} | ${rounds} |`);
  }
  console.log(`\n${renders} renders per page per round, ${rounds} rounds, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}.`);
} finally {
  await Promise.all(sites.map((s) => s.server.stop()));
}
