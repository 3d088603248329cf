import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';

export interface LoopResult {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
}

/**
 * `connections` visitors, each on its own keep-alive connection, asking for `${pathPrefix}${n}` (n counts every
 * request) as soon as its previous answer has been read in full: what a browser does. Used where every request
 * must be a render (the micro-cache never answering), at a few hundred requests per second, where node:http's
 * client costs little. Runs in a process of its own, as clients do: in the app's process (even on a worker
 * thread) it competed with the app for its CPU and counted that as latency.
 *
 * Not autocannon there: on this machine, against a server saturated by renders, autocannon reported p99s of
 * 1–5 s, with a maximum close to the run's length, in runs where a timer around every request inside the
 * server never saw one over 25 ms and this client saw a p99 of about twice its median.
 */
export function loopRequests(base: string, pathPrefix: string, connections: number, seconds: number): Promise<LoopResult> {
  const args = JSON.stringify({ base, pathPrefix, connections, seconds });
  return runJson<LoopResult>(process.execPath, ['-e', LOOP_SOURCE, args]);
}

/** autocannon (its CLI, in a process of its own) against `url`: its JSON result. */
export function autocannonRun(url: string, connections: number, seconds: number): Promise<AutocannonJson> {
  const bin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  return runJson<AutocannonJson>(process.execPath, [bin, '-c', String(connections), '-d', String(seconds), '-p', '1', '-j', url]);
}

export interface AutocannonJson {
  requests: { average: number };
  latency: { p50: number; p99: number };
  errors: number;
  non2xx: number;
}

function runJson<T>(file: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`${err.message}\n${stderr}`));
      try {
        resolve(JSON.parse(stdout) as T);
      } catch {
        reject(new Error(`not JSON: ${stdout.slice(0, 200)} ${stderr.slice(0, 200)}`));
      }
    });
  });
}

const LOOP_SOURCE = `
const http = require('node:http');
const { base, pathPrefix, connections, seconds } = JSON.parse(process.argv[1]);
const { hostname, port } = new URL(base);
const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
const latencies = [];
let n = 0, non2xx = 0, errors = 0;
const started = performance.now();
const deadline = started + seconds * 1000;
const once = (path) => new Promise((resolve, reject) => {
  http.get({ agent, hostname, port, path }, (res) => {
    res.resume();
    res.on('end', () => resolve(res.statusCode || 0));
    res.on('error', reject);
  }).on('error', reject);
});
const visitor = async () => {
  while (performance.now() < deadline) {
    const t = performance.now();
    try {
      const status = await once(pathPrefix + n++);
      if (status < 200 || status >= 300) non2xx++;
      latencies.push(performance.now() - t);
    } catch {
      errors++;
    }
  }
};
Promise.all(Array.from({ length: connections }, visitor)).then(() => {
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] || 0);
  process.stdout.write(JSON.stringify({ requests: latencies.length, rps: Math.round(latencies.length / elapsed), p50: at(0.5), p99: at(0.99), max: Math.round(latencies.at(-1) || 0), non2xx, errors }));
});
`;
