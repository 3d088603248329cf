/**
 * `npm run test:mutation [name ...]`: Stryker on each module of tests/mutation/modules.ts (all of them by default),
 * incremental (a rerun tests only mutants whose code or tests changed), then a table of scores in
 * bench/mutation-report.md and .json. PostgreSQL runs too when DATABASE_URL is set (some rules, such as row locks,
 * only show there).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { MUTATION_MODULES } from './modules.js';

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
// `--report`: only rewrite bench/mutation-report.md from the .json (after merging runs from elsewhere).
const reportOnly = process.argv.includes('--report');
const modules = wanted.length ? MUTATION_MODULES.filter((m) => wanted.includes(m.name)) : MUTATION_MODULES;
if (wanted.length && modules.length !== wanted.length) throw new Error(`unknown module; known: ${MUTATION_MODULES.map((m) => m.name).join(', ')}`);

const outDir = path.resolve('reports/mutation');
fs.mkdirSync(outDir, { recursive: true });
const scores: Record<string, { score: number; killed: number; survived: number; timeout: number; noCoverage: number; total: number; survivors: string[]; seconds: number; services?: string }> = {};

// Suites that render pages (startTestApp with web: true) need the built site; Stryker copies it into each sandbox.
if (!reportOnly && !fs.existsSync('dist/server/entry.mjs')) {
  const build = spawnSync('npx', ['astro', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) throw new Error('astro build failed');
}

for (const m of reportOnly ? [] : modules) {
  const vitestConfig = path.join(outDir, `${m.name}.vitest.config.ts`);
  fs.writeFileSync(
    vitestConfig,
    // Spread, not mergeConfig: that would append these files to the base config's include (the whole suite).
    `import base from '../../vitest.config.ts';\n` +
      `export default { ...base, test: { ...base.test, include: ${JSON.stringify(m.tests)}, globalSetup: [] } };\n`,
  );
  const config = {
    $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
    testRunner: 'vitest',
    vitest: { configFile: vitestConfig, related: false },
    mutate: m.mutate,
    coverageAnalysis: 'perTest',
    incremental: true,
    incrementalFile: path.join(outDir, `${m.name}.incremental.json`),
    reporters: ['json', 'clear-text', 'progress-append-only'],
    jsonReporter: { fileName: path.join(outDir, `${m.name}.json`) },
    tempDirName: `.stryker-tmp/${m.name}`,
    concurrency: 2,
    timeoutMS: 30_000,
    cleanTempDir: 'always',
    plugins: ['@stryker-mutator/vitest-runner'],
  };
  const configFile = path.join(outDir, `${m.name}.stryker.json`);
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  const started = Date.now();
  console.log(`\n=== ${m.name}: ${m.mutate.join(', ')} against ${m.tests.join(', ')}`);
  // Only the services the module asks for: the others' suites stay on SQLite and in memory (a mutant run costs less).
  const env: Record<string, string | undefined> = { ...process.env, CI: '', DATABASE_URL: undefined, REDIS_URL: undefined };
  if (m.services?.includes('postgres')) env.DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  if (m.services?.includes('redis')) env.REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const run = spawnSync('npx', ['stryker', 'run', configFile], { stdio: 'inherit', env });
  if (run.status !== 0) throw new Error(`stryker failed on ${m.name}`);
  const report = JSON.parse(fs.readFileSync(path.join(outDir, `${m.name}.json`), 'utf8')) as {
    files: Record<string, { source: string; mutants: { id: string; mutatorName: string; status: string; replacement?: string; location: { start: { line: number; column: number } } }[] }>;
  };
  const all = Object.entries(report.files).flatMap(([file, f]) => f.mutants.map((mu) => ({ file, ...mu })));
  const count = (s: string) => all.filter((mu) => mu.status === s).length;
  const killed = count('Killed');
  const timeout = count('Timeout');
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const valid = killed + timeout + survived + noCoverage;
  scores[m.name] = {
    score: valid ? Math.round(((killed + timeout) / valid) * 1000) / 10 : 100,
    killed,
    survived,
    timeout,
    noCoverage,
    total: all.length,
    survivors: all
      .filter((mu) => mu.status === 'Survived' || mu.status === 'NoCoverage')
      .map((mu) => `${mu.file}:${mu.location.start.line}:${mu.location.start.column} ${mu.mutatorName} → ${JSON.stringify(mu.replacement ?? '')}`),
    seconds: Math.round((Date.now() - started) / 1000),
    services: ['SQLite', ...(m.services ?? []).map((x) => (x === 'postgres' ? 'PostgreSQL' : 'Redis'))].join(', '),
  };
  writeReport();
}
if (reportOnly) writeReport();


/** Writes bench/mutation-report.md and .json: the modules measured now over the earlier ones (after each module, so a
 * run stopped half-way keeps what it measured). */
function writeReport(): void {
  // Read now, not at start: another run (another module, another worktree merged in) may have written since.
  const previous = fs.existsSync('bench/mutation-report.json') ? (JSON.parse(fs.readFileSync('bench/mutation-report.json', 'utf8')) as { modules: typeof scores }).modules : {};
  const all = { ...previous, ...scores };
  // In the order of modules.ts, so reruns do not reshuffle the table.
  const merged = Object.fromEntries(MUTATION_MODULES.filter((m) => all[m.name]).map((m) => [m.name, all[m.name]!]));
  fs.mkdirSync('bench', { recursive: true });
  fs.writeFileSync('bench/mutation-report.json', JSON.stringify({ at: new Date().toISOString(), modules: merged }, null, 2));
  const lines = [
    '# Mutation scores',
    '',
    'Written by `npm run test:mutation` (Stryker, per-test coverage, incremental). "Against": where the module\'s tests ran.',
    '',
    '| module | score | killed | timeout | survived | no coverage | seconds | against |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...Object.entries(merged).map(([n, s]) => `| ${n} | ${s.score}% | ${s.killed} | ${s.timeout} | ${s.survived} | ${s.noCoverage} | ${s.seconds} | ${s.services ?? 'SQLite'} |`),
    '',
    '## Survivors',
    '',
    ...Object.entries(merged).flatMap(([n, s]) => (s.survivors.length ? [`### ${n}`, '', ...s.survivors.map((x) => `- ${x}`), ''] : [])),
  ];
  fs.writeFileSync('bench/mutation-report.md', lines.join('\n'));
  console.log(lines.slice(4, 6 + Object.keys(merged).length).join('\n'));
}
