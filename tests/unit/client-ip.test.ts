import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { clientIpOf, proxyTrust } from '../../server/http/client-ip.js';

/**
 * The micro-cache keys hits by country, computed from clientIpOf before Fastify runs; the rest of the app uses
 * Fastify's request.ip. Both must name the same address, with and without TRUST_PROXY.
 */
describe.each([false, true])('clientIpOf with TRUST_PROXY=%s', (trustProxy) => {
  let app: FastifyInstance;
  let base: string;
  beforeAll(async () => {
    const trust = proxyTrust(trustProxy);
    app = Fastify({ trustProxy: trust ?? false });
    app.get('/ip', async (request) => ({ fastify: request.ip, ours: clientIpOf(request.raw, trust) }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it.each([
    ['no forwarding header', {}],
    ['one forwarded address', { 'x-forwarded-for': '81.2.69.160' }],
    ['a chain of proxies', { 'x-forwarded-for': '81.2.69.160, 10.0.0.2, 10.0.0.3' }],
    ['a malformed header', { 'x-forwarded-for': ' , nonsense,' }],
  ])('agrees with request.ip: %s', async (_what, headers: Record<string, string>) => {
    const { fastify, ours } = (await (await fetch(`${base}/ip`, { headers })).json()) as { fastify: string; ours: string };
    expect(ours).toBe(fastify);
    if (!trustProxy || !headers['x-forwarded-for']) expect(ours).toBe('127.0.0.1');
    else if (headers['x-forwarded-for'].startsWith('81.')) expect(ours).toBe('81.2.69.160');
  });
});
