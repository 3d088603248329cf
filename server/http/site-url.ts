import net from 'node:net';
import os from 'node:os';
import type { AppConfig } from '../config.js';

/**
 * The address to send THIS visitor's browser back to (payment return and cancel pages, the sandbox's hosted page).
 *
 * PUBLIC_URL, when set, always wins: on a real site the address is configured, and nothing a request says changes it.
 * Without it the default is http://localhost:PORT, which sends a fan who opened the site at 127.0.0.1 (or at the
 * machine's LAN address, from a phone) to another origin halfway through paying, where their session cookie does not
 * exist. So, only then, the host the request was addressed to is used: the Host header, or X-Forwarded-Host when
 * the peer is a trusted proxy (TRUST_PROXY; Fastify's `request.host` applies the same trust function as `request.ip`).
 *
 * That host is client-controlled, so it is accepted only when it names this machine: a loopback name or address, an
 * address of one of this machine's network interfaces, or the host of the configured address. A forged or hostile
 * Host (another domain, userinfo tricks, a path) falls back to the configured address, so no request can make a
 * checkout send a buyer to a site of the sender's choosing.
 */
export function visitorSiteUrl(request: { protocol: string; host: string }, config: Pick<AppConfig, 'publicUrl' | 'publicUrlConfigured'>): string {
  if (config.publicUrlConfigured) return config.publicUrl;
  const candidate = ownHostUrl(request.protocol, request.host, config.publicUrl);
  return candidate ?? config.publicUrl;
}

/** `protocol://host` when `host` is a bare host[:port] naming this machine, else null. */
export function ownHostUrl(protocol: string, host: string, publicUrl: string): string | null {
  if (protocol !== 'http' && protocol !== 'https') return null;
  // A bare authority only: no userinfo, path, query, whitespace or control characters.
  if (!host || host.length > 255 || !/^[A-Za-z0-9.\-:[\]]+$/.test(host)) return null;
  let url: URL;
  try {
    url = new URL(`${protocol}://${host}`);
  } catch {
    return null;
  }
  if (url.host !== host.toLowerCase() && url.host !== normalisedDefaultPort(host.toLowerCase(), protocol)) return null;
  return isOwnHostname(url.hostname, publicUrl) ? url.origin : null;
}

/** `example:80` on http is written `example` by URL: the same authority. */
function normalisedDefaultPort(host: string, protocol: string): string {
  const suffix = protocol === 'https' ? ':443' : ':80';
  return host.endsWith(suffix) ? host.slice(0, -suffix.length) : host;
}

/** Whether a URL hostname (IPv6 in brackets, as URL writes it) is this machine's. */
export function isOwnHostname(hostname: string, publicUrl: string): boolean {
  const name = hostname.toLowerCase();
  if (name === 'localhost') return true;
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (net.isIPv4(bare) && bare.startsWith('127.')) return true;
  if (net.isIPv6(bare) && (bare === '::1' || bare === '::ffff:127.0.0.1' || bare === '::ffff:7f00:1')) return true;
  try {
    if (new URL(publicUrl).hostname.toLowerCase() === name) return true;
  } catch {
    // an unparsable configured address names nothing
  }
  return net.isIP(bare) !== 0 && interfaceAddresses().has(bare);
}

/** This machine's interface addresses (read on each call: interfaces come and go, and checkouts are rare). */
function interfaceAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(os.networkInterfaces())) {
    for (const i of list ?? []) out.add(i.address.toLowerCase());
  }
  return out;
}
