/**
 * `tsx tests/bench/render-cpu.ts [--renders=300] [--rounds=3] [dir ...]`: server CPU per render of a signed-in
 * performer page and video page. Each directory is a checkout with its site built (`npx astro build`); default: this
 * one. Every directory's server runs at once (demo data, the demo fan signed in, warmed up), and the rounds take them
 * in turn (A B A B ...), so machine noise falls on all alike; the median round is kept.
 *
 * CPU is the server process's own (user + system, all threads, from /proc/<pid>/stat) over `renders` sequential
 * requests, divided by their number: what one render costs the machine, whatever else is running. Signed-in pages
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

interface Site {
  dir: string;
  server: ServerProcess;
  base: string;
  cookie: string;
  performer: string;
  video: string;
}

async function start(dir: string): Promise<Site> {
  const server = await startServerProcess({ DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'render-cpu-')) }, { cwd: dir, args: ['--seed-demo'], timeoutMs: 300_000 });
  const cookie = await sessionCookie(server.url, 'fan@example.com:demo-password-123');
  const { performer, video } = await samplePages(server.url, { cookie });
  return { dir, server, base: server.url, cookie, performer, video };
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
  for (const s of sites) {
    await measure(s, s.performer, 100);
    await measure(s, s.video, 100);
  }
  const results = new Map<string, { performer: number[]; video: number[] }>(sites.map((s) => [s.dir, { performer: [], video: [] }]));
  for (let r = 0; r < rounds; r++) {
    for (const s of r % 2 ? [...sites].reverse() : sites) {
      results.get(s.dir)!.performer.push(await measure(s, s.performer, renders));
      results.get(s.dir)!.video.push(await measure(s, s.video, renders));
    }
  }
  console.log(`| checkout | signed-in performer page, CPU ms/render | signed-in video page, CPU ms/render | rounds (performer; video) |\n|---|---:|---:|---|`);
  for (const [dir, r] of results) {
    const f = (xs: number[]) => xs.map((x) => x.toFixed(2)).join(' / ');
    console.log(`| ${path.basename(dir)} | ${median(r.performer).toFixed(2)} | ${median(r.video).toFixed(2)} | ${f(r.performer)}; ${f(r.video)} |`);
  }
  console.log(`\n${renders} renders per page per round, ${rounds} rounds, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}.`);
} finally {
  await Promise.all(sites.map((s) => s.server.stop()));
}
