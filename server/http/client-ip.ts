import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

/** Which hops may be believed about the client's address (TRUST_PROXY); undefined: only the socket's peer. */
export type ProxyTrust = ((addr: string, hop: number) => boolean) | undefined;

export function proxyTrust(trustProxy: boolean): ProxyTrust {
  return trustProxy ? () => true : undefined;
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
