/**
 * `tsx tests/bench/page-js.ts [baseUrl]`: gzipped JavaScript shipped by the home page, /performers, a performer page
 * and a video page of a running site (e.g. `npm run build && PORT=4400 DATA_DIR=$(mktemp -d) tsx server/main.ts --seed-demo`).
 * Counted like `npm run bench` does (tests/bench/shipped-js.ts). `--files` lists every file with its size.
 */
import { shippedJs } from './shipped-js.js';

const base = (process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'http://127.0.0.1:4400').replace(/\/$/, '');
const listFiles = process.argv.includes('--files');

async function html(p: string): Promise<string> {
  const res = await fetch(base + p);
  if (!res.ok) throw new Error(`${p}: HTTP ${res.status}`);
  return res.text();
}

const performers = await html('/performers');
const performer = performers.match(/href="(\/performers\/[A-Za-z0-9_.-]+)"/)?.[1];
if (!performer) throw new Error('no performer link on /performers');
const video = (await html('/videos')).match(/href="(\/videos\/[A-Za-z0-9_-]+)"/)?.[1];
if (!video) throw new Error('no video link on /videos');

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log('| page | path | files | raw | gzip |\n|---|---|---|---|---|');
const details: string[] = [];
for (const [name, p] of [['home', '/'], ['performers', '/performers'], ['performer page', performer], ['video page', video]] as const) {
  const r = await shippedJs(base, p);
  console.log(`| ${name} | ${p} | ${r.files.length} | ${kib(r.raw)} | ${kib(r.gzip)} |`);
  if (listFiles) details.push(`\n${name} (${p}):`, ...r.files.sort((a, b) => b.gzip - a.gzip).map((f) => `  ${kib(f.gzip).padStart(10)}  ${f.url}`));
}
if (details.length) console.log(details.join('\n'));
