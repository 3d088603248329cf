/**
 * Server CPU per signed-in request: pages (a performer page, a video page, the feed, the videos list) and API calls
 * (a list, a detail). Signed-in answers are never micro-cached, so every request renders or runs its queries.
 *
 * `tsx tests/bench/render-cpu.ts [--renders=300] [--rounds=3] [--postgres] [--only=<name>] [dir ...]` compares checkouts on SQLite (on
 * PostgreSQL with `--postgres`, DATABASE_URL): each directory
 * is a checkout with its site built (`npx astro build`); default: this one. `npm run bench` (part `signed`) measures
 * this checkout on SQLite and, with DATABASE_URL, PostgreSQL, against the targets.
 *
 * Every site runs at once as deployed (NODE_ENV=production, demo data, the demo fan signed in), measured once the
 * demo's media jobs are done and after a warm-up; the sites take turns target by target (A B, B A the next round),
 * so machine noise falls on all alike, each target warmed again (50 requests) before its window; the median round
 * is kept. CPU is the server process's own (user + system, all threads, from /proc/<pid>/stat) over `renders`
 * sequential requests, divided by their number: what one request costs the machine, whatever else is running.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPgSchema, startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { startSmtpSink } from '../helpers/smtp-sink.js';
import { samplePages, sessionCookie } from './shipped-js.js';

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

export interface SignedInTarget {
  name: string;
  kind: 'page' | 'api';
  path: string;
  /**
   * What a browser asks next for this page: a member-shell page (the same copy for every member, from memory) costs
   * its header's call, and its list again as the viewer when the header says something may be open to them that the
   * shared copy shows locked (not for the demo fan, who holds nothing). A performer's or a video's page asks the
   * header with the visitor's state there, the home feed with its first page. A view is the page and these together.
   */
  alsoAsks?: { header: string; list?: string };
}

/** The header's call (every member-shell page's), and the newest videos the home page and /videos list first. */
const NEWEST_VIDEOS_SHELL = { header: '/api/users/me/header', list: '/api/user/assets/videos/search?sort=newest&limit=12' };

interface Site {
  label: string;
  server: ServerProcess;
  cookie: string;
  targets: SignedInTarget[];
  drop: () => Promise<void>;
}

/**
 * The demo fan follows nobody, so their feed would be empty: they follow the three most popular performers first,
 * and the feed's page is a full one, each of its items decided for them (in every checkout measured alike).
 */
async function followPopular(base: string, cookie: string): Promise<void> {
  const popular = (await (await fetch(`${base}/api/performers/search?sort=popular&limit=3`)).json()) as { items: Array<{ _id: string }> };
  for (const p of popular.items) {
    const res = await fetch(`${base}/api/performers/${p._id}/follow`, { method: 'POST', headers: { cookie, origin: base } });
    if (!res.ok) throw new Error(`follow ${p._id}: HTTP ${res.status} ${await res.text()}`);
  }
  const feed = (await (await fetch(`${base}/api/feed?limit=12`, { headers: { cookie } })).json()) as { items: unknown[] };
  if (feed.items.length < 12) throw new Error(`the demo fan's feed holds ${feed.items.length} items after following, not a full page`);
}

async function start(dir: string, label: string, smtpUrl: string, databaseUrl?: string): Promise<Site> {
  const schema = databaseUrl ? await createPgSchema(databaseUrl, 'cpu') : undefined;
  // As deployed (NODE_ENV=production): React and other libraries load their production builds; in development
  // React's server renderer alone costs several milliseconds more per page. The demo data's mails go to a sink: a
  // closed port made each one a job retried (and logged) for minutes, inside the process being measured.
  const env = {
    NODE_ENV: 'production', APP_SECRET: 'bench-secret', SMTP_URL: smtpUrl, DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'render-cpu-')),
    DATABASE_URL: databaseUrl, PG_SCHEMA: schema?.schema,
  };
  const server = await startServerProcess(env, { cwd: dir, args: ['--seed-demo'], timeoutMs: 300_000 });
  await settle(server.child.pid!);
  const cookie = await sessionCookie(server.url, 'fan@example.com:demo-password-123');
  await followPopular(server.url, cookie);
  const { performer, video } = await samplePages(server.url, { cookie });
  const videoId = video.split('/').pop()!;
  const username = performer.split('/').pop()!;
  const performerId = ((await (await fetch(`${server.url}/api/performers/${username}`)).json()) as { _id: string })._id;
  const performerShell = {
    header: `${NEWEST_VIDEOS_SHELL.header}?performer=${performerId}`,
    list: `/api/user/assets/videos/search?performerId=${performerId}&sort=newest&limit=12`,
  };
  const videoPerformerId = ((await (await fetch(`${server.url}/api/user/assets/videos/${videoId}`)).json()) as { performerId: string }).performerId;
  const videoShell = {
    header: `${NEWEST_VIDEOS_SHELL.header}?video=${videoId}`,
    list: `/api/user/assets/videos/search?performerId=${videoPerformerId}&sort=newest&limit=4`,
  };
  const targets: SignedInTarget[] = [
    { name: 'performer page', kind: 'page', path: performer, alsoAsks: performerShell },
    { name: 'video page', kind: 'page', path: video, alsoAsks: videoShell },
    // The feed's first page comes with the header's request; nothing else is asked again.
    { name: 'home (feed)', kind: 'page', path: '/home', alsoAsks: { header: `${NEWEST_VIDEOS_SHELL.header}?feed=12` } },
    { name: 'home page (/), member shell', kind: 'page', path: '/', alsoAsks: NEWEST_VIDEOS_SHELL },
    { name: 'videos list', kind: 'page', path: '/videos', alsoAsks: NEWEST_VIDEOS_SHELL },
    { name: 'API videos list', kind: 'api', path: '/api/user/assets/videos/search?limit=12' },
    { name: 'API video detail', kind: 'api', path: `/api/user/assets/videos/${videoId}` },
    // What the member-shell pages ask for the visitor.
    { name: 'API member header', kind: 'api', path: NEWEST_VIDEOS_SHELL.header },
    { name: "API member header with a performer page's state", kind: 'api', path: performerShell.header },
    { name: "API member header with a video page's state", kind: 'api', path: videoShell.header },
  ];
  return { label, server, cookie, targets, drop: async () => schema?.drop() };
}

/** CPU ms per view of `t` (its page, then what it also asks) over `n` sequential signed-in views. */
async function measure(site: Site, t: SignedInTarget, n: number): Promise<number> {
  const get = async (p: string) => {
    const res = await fetch(site.server.url + p, { headers: { cookie: site.cookie } });
    if (res.status !== 200) throw new Error(`${site.label} ${p}: HTTP ${res.status}`);
    return res;
  };
  const before = cpuMs(site.server.child.pid!);
  for (let i = 0; i < n; i++) {
    const page = await get(t.path);
    await page.arrayBuffer();
    // A page the micro-cache did not see was rendered for this viewer (an older checkout): it holds it all already.
    if (!page.headers.get('x-cache') || !t.alsoAsks) continue;
    const header = (await (await get(t.alsoAsks.header)).json()) as { unlocksMore?: boolean };
    if (header.unlocksMore && t.alsoAsks.list) await (await get(t.alsoAsks.list)).arrayBuffer();
  }
  return (cpuMs(site.server.child.pid!) - before) / n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface SignedInCpu {
  label: string;
  /** Per target: the median CPU ms per request and every round's figure. */
  results: Array<SignedInTarget & { ms: number; rounds: number[] }>;
}

/** Starts one server per site (a checkout, optionally on PostgreSQL) and measures each target in interleaved rounds. */
export async function measureSignedInCpu(specs: Array<{ dir: string; label: string; databaseUrl?: string }>, opts: { renders: number; rounds: number; /** Only the targets whose name holds this. */ only?: string }): Promise<SignedInCpu[]> {
  const sites: Site[] = [];
  const mail = await startSmtpSink();
  try {
    for (const s of specs) sites.push(await start(path.resolve(s.dir), s.label, mail.url, s.databaseUrl));
    if (opts.only) for (const s of sites) s.targets = s.targets.filter((t) => t.name.includes(opts.only!));
    if (!sites[0]?.targets.length) throw new Error(`no target's name holds "${opts.only}"`);
    for (const s of sites) for (const t of s.targets) await measure(s, t, 100);
    const figures = new Map<Site, number[][]>(sites.map((s) => [s, s.targets.map(() => [])]));
    // The sites take turns target by target (A B, then B A the next round), each target warmed (50 requests)
    // before its window. Turns of a whole round each made a site idle for two of the others' rounds every other
    // round, and a process that sat idle that long paid more for its next few thousand requests (likely V8 shrinking
    // an idle heap; not measured): the rounds came out in two groups by their order, and the second site listed was measured mostly in
    // the slow one. A run of one checkout against a copy of itself showed it (docs/deploy.md).
    for (let r = 0; r < opts.rounds; r++) {
      for (let i = 0; i < sites[0]!.targets.length; i++) {
        for (const s of r % 2 ? [...sites].reverse() : sites) {
          const t = s.targets[i]!;
          await measure(s, t, 50);
          figures.get(s)![i]!.push(await measure(s, t, opts.renders));
        }
      }
    }
    return sites.map((s) => ({ label: s.label, results: s.targets.map((t, i) => ({ ...t, ms: median(figures.get(s)![i]!), rounds: figures.get(s)![i]! })) }));
  } finally {
    await Promise.all(sites.map((s) => s.server.stop()));
    await Promise.all(sites.map((s) => s.drop()));
    await mail.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string, fallback: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
  const renders = arg('renders', 300);
  const rounds = arg('rounds', 3);
  const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  if (dirs.length === 0) dirs.push(process.cwd());
  // `--postgres`: every site on PostgreSQL (DATABASE_URL, a schema of its own each) instead of SQLite.
  const databaseUrl = process.argv.includes('--postgres') ? process.env.DATABASE_URL : undefined;
  if (process.argv.includes('--postgres') && !databaseUrl) throw new Error('--postgres needs DATABASE_URL');
  // `--only=feed`: only the targets whose name holds that text (a change measured where it acts, in more rounds).
  const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
  const measured = await measureSignedInCpu(dirs.map((dir) => ({ dir, label: path.basename(path.resolve(dir)), databaseUrl })), { renders, rounds, only });
  const names = measured[0]!.results.map((r) => r.name);
  console.log(`| checkout | ${names.map((n) => `signed-in ${n}, CPU ms`).join(' | ')} | rounds |\n|---|${names.map(() => '---:|').join('')}---|`);
  for (const m of measured) {
    const all = m.results.map((r) => r.rounds.map((x) => x.toFixed(2)).join(' / ')).join('; ');
    console.log(`| ${m.label} | ${m.results.map((r) => r.ms.toFixed(2)).join(' | ')} | ${all} |`);
  }
  console.log(`\n${renders} requests per target per round, ${rounds} rounds, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}.`);
}
