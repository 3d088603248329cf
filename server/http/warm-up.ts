import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/** Loops at once: as many as the PostgreSQL pool's connections (10), so that each opens and prepares its statements. */
const CONCURRENCY = 10;

/**
 * Warms a new process before it takes its first visitor: for `ms`, ten loops at once replay what visitors ask most
 * (the public lists, a video's and a performer's details, their pages and the home page) through `app.inject`, with
 * no network. A process starts cold: V8 runs its code unoptimised at first, Astro loads each page's module on its
 * first render, and the database pool opens its connections (each preparing its statements) as requests need them.
 * Measured on the 2,000-user crowd (docs/deploy.md, "The last statements, and the warm-up"): a cold process answered
 * its first four seconds with a p99 of 1.6–2.2 s while the same process, warm, took a second crowd of 2,000 new users
 * with no second over 125 ms.
 *
 * The requests change nothing. Each carries a bearer token no session has (the visitor stays a guest, and the
 * micro-cache, which never keeps a request with credentials, lets every one render), the age confirmation cookie,
 * and an address from TEST-NET-1 (192.0.2.0/24, RFC 5737), so no visitor's rate-limit bucket is touched. A catalogue
 * with nothing public warms the home page and the lists only.
 */
export async function warmUp(app: FastifyInstance, opts: { ms: number; apiBase: string; web: boolean; logger: Logger }): Promise<{ urls: string[]; requests: number; statuses: Record<number, number> }> {
  const { apiBase } = opts;
  const started = Date.now();
  const get = (url: string) =>
    app.inject({ method: 'GET', url, remoteAddress: '192.0.2.1', headers: { cookie: 'age_ok=1', authorization: 'Bearer warm-up' } });
  const newest = await get(`${apiBase}/user/assets/videos/search?limit=12`);
  const video = newest.statusCode === 200 ? (newest.json() as { items: Array<{ _id: string; performer?: { username: string } | null }> }).items[0] : undefined;
  const username = video?.performer?.username;
  const urls = [
    `${apiBase}/user/assets/videos/search?limit=12`,
    `${apiBase}/user/assets/videos/search?limit=12&sort=popular`,
    `${apiBase}/performers/search?limit=12`,
    ...(video ? [`${apiBase}/user/assets/videos/${video._id}`, `${apiBase}/comments/search?objectType=video&objectId=${video._id}&limit=10`] : []),
    ...(username ? [`${apiBase}/performers/${username}`] : []),
    ...(opts.web ? ['/', '/videos', ...(video ? [`/videos/${video._id}`] : []), ...(username ? [`/performers/${username}`] : [])] : []),
  ];
  const statuses = new Map<number, number>();
  let requests = 0;
  const loop = async () => {
    while (Date.now() - started < opts.ms) {
      for (const url of urls) {
        const res = await get(url);
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        requests++;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const summary = { urls, requests, statuses: Object.fromEntries(statuses) };
  opts.logger.info({ ...summary, ms: Date.now() - started }, 'warmed up');
  return summary;
}
