/**
 * `npm run audit:pages [baseUrl]`: Lighthouse (mobile defaults: a mid-range phone, simulated slow 4G and CPU) on the
 * home page, a performer page and a video page as a guest, in Debian's chromium. Without a URL it builds nothing:
 * it starts the built site (`npx astro build` first) with demo data on a free port and stops it after.
 *
 * Each page is audited RUNS times; the report keeps the median performance score (the one that moves with machine
 * noise) and the lowest of the other categories, and lists every audit that kept a page from 100. Writes
 * bench/lighthouse.md and bench/lighthouse.json. Targets: performance ≥ 95; accessibility, best practices, SEO 100.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../helpers/server-process.js';
import { samplePages } from '../bench/shipped-js.js';

const RUNS = Number(process.env.AUDIT_RUNS ?? 3);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;
const TARGET: Record<(typeof CATEGORIES)[number], number> = { performance: 95, accessibility: 100, 'best-practices': 100, seo: 100 };

interface LighthouseResult {
  categories: Record<string, { score: number | null; auditRefs: { id: string; weight: number }[] }>;
  audits: Record<string, { id: string; title: string; score: number | null; scoreDisplayMode: string; displayValue?: string }>;
}

/** The built site with demo data on a free port (server logs at warn, so only trouble shows). */
async function startSite(): Promise<ServerProcess> {
  if (!fs.existsSync('dist/server/entry.mjs')) throw new Error('no built site: run `npx astro build` first');
  return startServerProcess({ DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'audit-')) }, { args: ['--seed-demo'], timeoutMs: 300_000 });
}

function lighthouse(url: string): LighthouseResult {
  const out = path.join(os.tmpdir(), `lighthouse-${process.pid}-${Date.now()}.json`);
  const run = spawnSync(
    process.execPath,
    ['node_modules/lighthouse/cli/index.js', url, `--chrome-path=${CHROMIUM}`, '--chrome-flags=--headless=new --no-sandbox', '--output=json', `--output-path=${out}`, '--quiet', `--only-categories=${CATEGORIES.join(',')}`],
    { encoding: 'utf8' },
  );
  if (run.status !== 0 || !fs.existsSync(out)) throw new Error(`lighthouse failed on ${url}: ${run.stderr}`);
  const result = JSON.parse(fs.readFileSync(out, 'utf8')) as LighthouseResult;
  fs.rmSync(out);
  return result;
}

const given = process.argv.slice(2).find((a) => !a.startsWith('--'));
const server = given ? null : await startSite();
const base = given ? given.replace(/\/$/, '') : server!.url;
try {
  const { performer, video } = await samplePages(base);
  const pages: [string, string][] = [['home', '/'], ['performer page', performer], ['video page', video]];

  const report: { page: string; path: string; scores: Record<string, number>; runs: Record<string, number[]>; failing: string[]; pass: boolean }[] = [];
  for (const [name, p] of pages) {
    const runs: LighthouseResult[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(lighthouse(base + p));
    const scoresOf = (c: string) => runs.map((r) => Math.round((r.categories[c]?.score ?? 0) * 100));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const scores = Object.fromEntries(CATEGORIES.map((c) => [c, c === 'performance' ? median(scoresOf(c)) : Math.min(...scoresOf(c))]));
    const failing = new Set<string>();
    for (const r of runs) {
      for (const c of CATEGORIES) {
        for (const ref of r.categories[c]?.auditRefs ?? []) {
          const a = r.audits[ref.id];
          if (a && ref.weight > 0 && a.score !== null && a.score < 1) failing.add(`${c}: ${a.title}${a.displayValue ? ` (${a.displayValue})` : ''}`);
        }
      }
    }
    const pass = CATEGORIES.every((c) => scores[c]! >= TARGET[c]);
    report.push({ page: name, path: p, scores, runs: Object.fromEntries(CATEGORIES.map((c) => [c, scoresOf(c)])), failing: [...failing].sort(), pass });
    console.log(`${name}: ${CATEGORIES.map((c) => `${c} ${scores[c]}`).join(', ')}${pass ? '' : '  (below target)'}`);
  }

  const version = (JSON.parse(fs.readFileSync('node_modules/lighthouse/package.json', 'utf8')) as { version: string }).version;
  const chromium = spawnSync(CHROMIUM, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const md = [
    '# Lighthouse, guest pages',
    '',
    `Lighthouse ${version}, mobile defaults, ${chromium}; ${RUNS} runs per page: performance is the median, the other categories the lowest run. Written by \`npm run audit:pages\` on ${new Date().toISOString()}.`,
    `Targets: performance ≥ ${TARGET.performance}, accessibility, best practices and SEO 100.`,
    '',
    `| page | path | ${CATEGORIES.join(' | ')} | performance runs | target |`,
    `|---|---|${CATEGORIES.map(() => '---:').join('|')}|---|---|`,
    ...report.map((r) => `| ${r.page} | \`${r.path}\` | ${CATEGORIES.map((c) => r.scores[c]).join(' | ')} | ${r.runs.performance!.join(' / ')} | ${r.pass ? 'pass' : 'FAIL'} |`),
    '',
    '## Audits below 100 in any run',
    '',
    ...report.flatMap((r) => [`- ${r.page}: ${r.failing.length ? r.failing.join('; ') : 'none'}`]),
    '',
  ].join('\n');
  fs.mkdirSync('bench', { recursive: true });
  fs.writeFileSync('bench/lighthouse.md', md);
  fs.writeFileSync('bench/lighthouse.json', JSON.stringify({ lighthouse: version, chromium, runs: RUNS, pages: report }, null, 2));
  console.log(`\n${md}`);
  if (report.some((r) => !r.pass)) process.exitCode = 1;
} finally {
  await server?.stop();
}
