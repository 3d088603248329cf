/**
 * The simulated users of `npm run load` in a process of their own, as real visitors are: in the server's process
 * they shared its event loop with it, and the first requests of 500 users starting at once waited behind the
 * others' for the whole run (a client-side p99 equal to the run's length on SQLite). Reads the fixture and options
 * as JSON from stdin, runs tests/load/core.ts's runLoad and writes its result as JSON to stdout.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runLoad, type LoadFixture, type LoadOptions, type LoadResult } from './core.js';

type Outcome = Awaited<ReturnType<typeof runLoad>>;

/** Runs runLoad in a child process (node --import tsx this file) and returns what it measured. */
export function runLoadInProcess(fx: LoadFixture, opts: LoadOptions): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`load users process exited with ${code}`));
      const r = JSON.parse(out) as LoadResult & { effects: { likes: [string, number][]; comments: [string, number][] } };
      resolve({ ...r, effects: { likes: new Map(r.effects.likes), comments: new Map(r.effects.comments) } });
    });
    child.stdin.end(JSON.stringify({ fx, opts }));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let input = '';
  process.stdin.on('data', (c: Buffer) => (input += c.toString()));
  process.stdin.on('end', async () => {
    const { fx, opts } = JSON.parse(input) as { fx: LoadFixture; opts: LoadOptions };
    const r = await runLoad(fx, opts);
    process.stdout.write(JSON.stringify({ ...r, effects: { likes: [...r.effects.likes], comments: [...r.effects.comments] } }));
  });
}
