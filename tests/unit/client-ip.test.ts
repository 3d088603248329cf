import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { clientIpOf, proxyTrust } from '../../server/http/client-ip.js';
import { loadConfig, parseTrustProxy, type TrustProxy } from '../../server/config.js';

/**
 * The micro-cache keys hits by country, computed from clientIpOf before Fastify runs; the rest of the app uses
 * Fastify's request.ip. Both must name the same address, for every TRUST_PROXY form, and that address must be the
 * first one (from the right) that no trusted proxy added: whatever the client wrote left of it is ignored.
 */
const cases: [string, TrustProxy, Record<string, string | undefined>][] = [
  // [TRUST_PROXY, expected client per header case]
  ['none', 0, { none: '127.0.0.1', one: '127.0.0.1', forged: '127.0.0.1', internal: '127.0.0.1', malformed: '127.0.0.1' }],
  ['1 hop', 1, { none: '127.0.0.1', one: '81.2.69.160', forged: '81.2.69.160', internal: '10.0.0.3', malformed: undefined }],
  ['2 hops', 2, { none: '127.0.0.1', one: '81.2.69.160', forged: '6.6.6.6', internal: '10.0.0.2', malformed: undefined }],
  ['a CIDR list', ['127.0.0.0/8', '10.0.0.0/8'], { none: '127.0.0.1', one: '81.2.69.160', forged: '81.2.69.160', internal: '81.2.69.160', malformed: undefined }],
];

const headerCases: [string, Record<string, string>][] = [
  ['none', {}],
  ['one', { 'x-forwarded-for': '81.2.69.160' }],
  // The client sent "6.6.6.6" itself; the proxy in front appended the address it saw.
  ['forged', { 'x-forwarded-for': '6.6.6.6, 81.2.69.160' }],
  // A client behind two internal proxies.
  ['internal', { 'x-forwarded-for': '6.6.6.6, 81.2.69.160, 10.0.0.2, 10.0.0.3' }],
  ['malformed', { 'x-forwarded-for': ' , nonsense,' }],
];

describe.each(cases)('clientIpOf with TRUST_PROXY = %s', (_name, trustProxy, expected) => {
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

  it.each(headerCases)('agrees with request.ip and names the client: %s', async (what, headers) => {
    const { fastify, ours } = (await (await fetch(`${base}/ip`, { headers })).json()) as { fastify: string; ours: string };
    expect(ours).toBe(fastify);
    if (expected[what] !== undefined) expect(ours).toBe(expected[what]);
    else expect(ours).not.toBe('6.6.6.6');
  });
});

describe('TRUST_PROXY parsing', () => {
  it('reads none, a hop count, and a list of addresses or ranges', () => {
    expect(parseTrustProxy(undefined)).toBe(0);
    expect(parseTrustProxy('')).toBe(0);
    expect(parseTrustProxy('false')).toBe(0);
    expect(parseTrustProxy('0')).toBe(0);
    expect(parseTrustProxy('1')).toBe(1);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1 ,::1')).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
    expect(parseTrustProxy('loopback')).toEqual(['loopback']);
  });

  it('refuses "true" (trust every hop) at start, naming the forms to use instead', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY=true.*TRUST_PROXY=1.*CIDR/);
  });

  it('refuses what is neither a count nor an address list', () => {
    expect(() => parseTrustProxy('yes')).toThrow(/TRUST_PROXY must be/);
    expect(() => parseTrustProxy('10.0.0.0/99')).toThrow(/TRUST_PROXY must be/);
  });
});
