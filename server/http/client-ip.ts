import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { TrustProxy } from '../config.js';

/**
 * Which hops may be believed about the client's address, as proxy-addr calls it: `addr` is the socket's peer
 * (hop 0), then each X-Forwarded-For entry from the right. undefined: only the socket's peer.
 */
export type ProxyTrust = ((addr: string, hop: number) => boolean) | undefined;

/**
 * The trust function for TRUST_PROXY. With a hop count n, the socket's peer and the n-1 entries it appended before
 * are proxies; the next entry from the right is the client, and anything left of it (what the client itself sent)
 * is never looked at. With a list, a hop is a proxy when its address is in the list. This is a function (not the
 * number) for Fastify too: Fastify 5 ignores X-Forwarded-For altogether when given a bare hop count.
 */
export function proxyTrust(trustProxy: TrustProxy): ProxyTrust {
  if (Array.isArray(trustProxy)) return trustProxy.length ? proxyAddr.compile(trustProxy) : undefined;
  if (trustProxy > 0) {
    const hops = trustProxy;
    return (_addr, hop) => hop < hops;
  }
  return undefined;
}

/**
 * The visitor's address as Fastify's `request.ip` gives it (same library, same trust function, which app.ts also
 * hands Fastify): for the paths that answer before Fastify has built a request, the micro-cache's hits.
 */
export function clientIpOf(raw: IncomingMessage, trust: ProxyTrust): string | undefined {
  if (!trust) return raw.socket.remoteAddress;
  const addrs = proxyAddr.all(raw, trust);
  return addrs[addrs.length - 1];
}
