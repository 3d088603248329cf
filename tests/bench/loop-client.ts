import http from 'node:http';

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
 * `connections` visitors, each on its own keep-alive connection, asking for `pathOf(n)` (n counts every request)
 * as soon as its previous answer has been read in full: what a browser does. Used where every request must be a
 * render (the micro-cache never answering), at a few hundred requests per second, where node:http's client
 * costs little.
 *
 * Not autocannon there: on this machine, against a server saturated by renders, autocannon reported p99s of
 * 1–5 s (a maximum close to the run's length) for the same runs where a timer around every request inside the
 * server never saw one over 25 ms and this client saw a p99 of ~2× its median; autocannon stays for the
 * fast answers (micro-cache hits and the ceiling), where a node:http client would be the bottleneck.
 */
export async function loopRequests(base: string, pathOf: (n: number) => string, connections: number, seconds: number): Promise<LoopResult> {
  const { hostname, port } = new URL(base);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let n = 0;
  let non2xx = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const once = (path: string) =>
    new Promise<number>((resolve, reject) => {
      http
        .get({ agent, hostname, port, path }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        })
        .on('error', reject);
    });
  const visitor = async () => {
    while (performance.now() < deadline) {
      const t = performance.now();
      try {
        const status = await once(pathOf(n++));
        if (status < 200 || status >= 300) non2xx++;
        latencies.push(performance.now() - t);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, visitor));
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0);
  return { requests: latencies.length, rps: Math.round(latencies.length / elapsed), p50: at(0.5), p99: at(0.99), max: Math.round(latencies.at(-1) ?? 0), non2xx, errors };
}
