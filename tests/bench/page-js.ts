/**
 * `tsx tests/bench/page-js.ts [baseUrl]`: gzipped JavaScript shipped by the home page, /performers, a performer page
 * and a video page of a running site (e.g. `npm run build && PORT=4400 DATA_DIR=$(mktemp -d) tsx server/main.ts --seed-demo`).
 * Counted like `npm run bench` does (tests/bench/shipped-js.ts). `--files` lists every file with its size.
 * `--login=email:password` also measures the pages as that signed-in visitor (e.g. the demo fan
 * `--login=fan@example.com:demo-password-123`).
 */
import { samplePages, sessionCookie, shippedJs } from './shipped-js.js';

const base = (process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'http://127.0.0.1:4400').replace(/\/$/, '');
const listFiles = process.argv.includes('--files');
const login = process.argv.find((a) => a.startsWith('--login='))?.slice('--login='.length);

const { performer, video } = await samplePages(base);


const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
const pages = [['home', '/'], ['performers', '/performers'], ['performer page', performer], ['video page', video]] as const;
const visitors: Array<[string, Record<string, string>]> = [['guest', {}]];
if (login) visitors.push([`signed in (${login.slice(0, login.indexOf(':'))})`, { cookie: await sessionCookie(base, login) }]);

console.log('| visitor | page | path | files | raw | gzip |\n|---|---|---|---|---|---|');
const details: string[] = [];
for (const [who, headers] of visitors) {
  for (const [name, p] of pages) {
    const r = await shippedJs(base, p, headers);
    console.log(`| ${who} | ${name} | ${p} | ${r.files.length} | ${kib(r.raw)} | ${kib(r.gzip)} |`);
    if (listFiles) details.push(`\n${who}, ${name} (${p}):`, ...r.files.sort((a, b) => b.gzip - a.gzip).map((f) => `  ${kib(f.gzip).padStart(10)}  ${f.url}`));
  }
}
if (details.length) console.log(details.join('\n'));
