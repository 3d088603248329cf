/**
 * Two costs Astro's renderer pays on every render for answers that do not change, removed in the server build
 * (measured in docs/architecture.md, "What a signed-in render costs"):
 *
 * - `addAttribute` asks `isHttpUrl` whether each attribute value holding `&` is an http(s) URL, with `new URL()`.
 *   Our signed media addresses are relative (`/media/...?exp=...&sig=...`), so each ask threw and was caught: about
 *   0.3 ms a signed-in page. A value is tested first for what an http(s) URL must start with; only a value that may
 *   be one still goes to `new URL()`, so every answer stays what it was (tests/unit/astro-render-costs.test.ts
 *   compares the two on the awkward cases).
 * - With CSP on, every render hashes the page's inline scripts and styles again, though they come from the build
 *   and are the same each time (about 0.2 ms a page). The digest is kept by algorithm and content.
 *
 * Each rewrite fails the build if the code it expects is no longer there (an Astro upgrade), rather than silently
 * doing nothing.
 */

const UTIL = /\/astro\/dist\/runtime\/server\/render\/util\.js$/;
const ENCRYPTION = /\/astro\/dist\/core\/encryption\.js$/;

const IS_HTTP_URL = 'function isHttpUrl(url) {\n';
/**
 * The URL parser drops leading C0 controls and spaces and removes tabs and newlines anywhere, so a value that, after
 * that, does not start with "http:" or "https:" cannot have either protocol.
 */
export const IS_HTTP_URL_GUARD = '  if (!/^[\\x00-\\x20]*https?:/i.test(url) && !/[\\t\\n\\r]/.test(url)) return false;\n';

const CSP_DIGEST = 'async function generateCspDigest(data, algorithm) {';
/** Bounded: the inline scripts and styles of a build are a few dozen; a runaway would be someone else's content. */
export const CSP_DIGEST_MEMO = `
const keptCspDigests = new Map();
async function generateCspDigest(data, algorithm) {
  const key = algorithm + "\\u0000" + data;
  let digest = keptCspDigests.get(key);
  if (digest === undefined) {
    digest = await computeCspDigest(data, algorithm);
    if (keptCspDigests.size < 1000) keptCspDigests.set(key, digest);
  }
  return digest;
}
`;

/** The rewrite of one module's source, or null when `id` is not one it rewrites; throws when the code moved. */
export function rewriteAstroModule(code, id) {
  const file = id.split('?')[0];
  if (UTIL.test(file)) {
    if (!code.includes(IS_HTTP_URL)) throw new Error(`${file}: "${IS_HTTP_URL.trim()}" not found`);
    return code.replace(IS_HTTP_URL, IS_HTTP_URL + IS_HTTP_URL_GUARD);
  }
  if (ENCRYPTION.test(file)) {
    if (!code.includes(CSP_DIGEST)) throw new Error(`${file}: "${CSP_DIGEST}" not found`);
    return code.replace(CSP_DIGEST, 'async function computeCspDigest(data, algorithm) {') + CSP_DIGEST_MEMO;
  }
  return null;
}

/** The Vite plugin: the server build only (the browser never renders pages). */
export function astroRenderCosts() {
  const seen = new Set();
  let serverBuild = false;
  return {
    name: 'fanstage:astro-render-costs',
    apply: 'build',
    configResolved(config) {
      serverBuild = Boolean(config.build.ssr);
    },
    buildStart() {
      seen.clear();
    },
    transform(code, id, options) {
      if (!options?.ssr) return null;
      let rewritten;
      try {
        rewritten = rewriteAstroModule(code, id);
      } catch (error) {
        this.error(error.message);
      }
      if (rewritten === null) return null;
      seen.add(UTIL.test(id.split('?')[0]) ? 'util' : 'encryption');
      return { code: rewritten, map: null };
    },
    buildEnd(error) {
      // Only the server build bundles the renderer: there, both modules must have been seen and rewritten.
      if (error || !serverBuild || this.meta.watchMode) return;
      if (seen.size < 2) this.error(`Astro's util.js and encryption.js were not both rewritten (seen: ${[...seen].join(', ') || 'none'}): did their paths move?`);
    },
  };
}
