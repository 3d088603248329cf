/**
 * Costs the renderer pays on every page for answers that do not change, removed in the server build (measured in
 * docs/architecture.md, "What a signed-in render costs"):
 *
 * - Astro's `addAttribute` asks `isHttpUrl` whether each attribute value holding `&` is an http(s) URL, with
 *   `new URL()`. Our signed media addresses are relative (`/media/...?exp=...&sig=...`), so each ask threw and was
 *   caught. A value is tested first for what an http(s) URL must start with; only a value that may be one still goes
 *   to `new URL()`, so every answer stays what it was (tests/unit/astro-render-costs.test.ts compares the two).
 * - With CSP on, every render hashes the page's inline scripts and styles again, though they come from the build and
 *   are the same each time. The digest is kept by algorithm and content.
 * - @astrojs/react renders each island through React's streaming renderer and then reads the stream whole into a
 *   string: web streams, text encoding and decoding, and an AsyncLocalStorage run per island. Its
 *   `experimentalDisableStreaming` option (astro.config.mjs) renders with `renderToString` instead, but drops the
 *   island's id prefix, which `useId` needs to match the browser's hydration; the rewrite passes it. (Islands suspend
 *   only on a click: their lazy parts never render on the server.)
 * - The Node adapter runs each render inside an AsyncLocalStorage only to name the page in its log line about an
 *   unhandled rejection. An AsyncLocalStorage in use turns on Node's promise hooks for every promise of the process;
 *   with React's no longer running either, the hooks stay off. The log line still prints the rejection.
 *
 * Each rewrite fails the build if the code it expects is no longer there (an upgrade), rather than silently doing
 * nothing, and the server build fails unless every one was applied.
 */

/** The URL parser drops leading C0 controls and spaces and removes tabs and newlines anywhere: a value that does not start with http: or https: after that cannot be one. */
export const IS_HTTP_URL_GUARD = '  if (!/^[\\x00-\\x20]*https?:/i.test(url) && !/[\\t\\n\\r]/.test(url)) return false;\n';

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

const REWRITES = [
  {
    name: "Astro's isHttpUrl",
    file: /\/astro\/dist\/runtime\/server\/render\/util\.js$/,
    find: 'function isHttpUrl(url) {\n',
    rewrite: (code, found) => code.replace(found, found + IS_HTTP_URL_GUARD),
  },
  {
    name: "Astro's CSP digest",
    file: /\/astro\/dist\/core\/encryption\.js$/,
    find: 'async function generateCspDigest(data, algorithm) {',
    rewrite: (code, found) => code.replace(found, 'async function computeCspDigest(data, algorithm) {') + CSP_DIGEST_MEMO,
  },
  {
    name: "@astrojs/react's renderToString",
    file: /\/@astrojs\/react\/dist\/server\.js$/,
    find: 'html = ReactDOM.renderToString(vnode);',
    rewrite: (code, found) => code.replace(found, 'html = ReactDOM.renderToString(vnode, renderOptions);'),
  },
  {
    name: "@astrojs/node's AsyncLocalStorage",
    file: /\/@astrojs\/node\/dist\/serve-app\.js$/,
    find: 'const als = new AsyncLocalStorage();',
    rewrite: (code, found) => code.replace(found, 'const als = { run: (_url, render) => render(), getStore: () => "a page" };'),
  },
];

/** The rewrite of one module's source, or null when `id` is not one it rewrites; throws when the code moved. */
export function rewriteModule(code, id) {
  const file = id.split('?')[0];
  const r = REWRITES.find((x) => x.file.test(file));
  if (!r) return null;
  if (!code.includes(r.find)) throw new Error(`${file}: "${r.find}" not found (${r.name})`);
  return { name: r.name, code: r.rewrite(code, r.find) };
}

/** The Vite plugin: the server build only (the browser never renders pages). */
export function astroRenderCosts() {
  const applied = new Set();
  let serverBuild = false;
  return {
    name: 'fanstage:astro-render-costs',
    apply: 'build',
    configResolved(config) {
      serverBuild = Boolean(config.build.ssr);
    },
    buildStart() {
      applied.clear();
    },
    transform(code, id, options) {
      if (!options?.ssr) return null;
      let result;
      try {
        result = rewriteModule(code, id);
      } catch (error) {
        this.error(error.message);
      }
      if (!result) return null;
      applied.add(result.name);
      return { code: result.code, map: null };
    },
    buildEnd(error) {
      if (error || !serverBuild || this.meta.watchMode) return;
      const missed = REWRITES.filter((r) => !applied.has(r.name)).map((r) => r.name);
      if (missed.length) this.error(`rewrites not applied in the server build (did a module move?): ${missed.join(', ')}`);
    },
  };
}
