import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import react from '@astrojs/react';
import { astroRenderCosts } from './build/astro-render-costs.mjs';

const ISLAND_FILE = /\/src\/islands\/.+\.tsx$/;
const RENDERER = '@astrojs/react';

/**
 * Tags every component exported from src/islands for the React renderer in the server build. An untagged
 * component makes Astro ask each renderer whether it can render it, and @astrojs/react answers by rendering it:
 * every island would be rendered twice per page. The tag is Astro's own `__astro_tag_component__`, which its JSX
 * and MDX integrations use for the same purpose.
 *
 * It must not stop working silently, so it fails the build instead: an island file whose exports it cannot name
 * (an anonymous default export, `export *`), or an island file in the server build it never saw, is an error.
 * tests/e2e/island-tags.test.ts checks on the built site that Astro never asks a renderer to guess.
 */
function tagIslandsForReact() {
  const tagged = new Set();
  let serverBuild = false;
  return {
    name: 'tag-islands-for-react',
    // After esbuild has turned the TSX into JavaScript, so Rollup's parser reads the module's real exports.
    enforce: 'post',
    transform(code, id, options) {
      const file = id.split('?')[0];
      if (!options?.ssr || !ISLAND_FILE.test(file)) return null;
      const names = [];
      let defaultName = null;
      for (const node of this.parse(code).body) {
        if (node.type === 'ExportAllDeclaration') this.error(`${file}: "export *" from an island file: export each component by name so it can be tagged`);
        if (node.type === 'ExportNamedDeclaration') {
          const d = node.declaration;
          if (d?.type === 'FunctionDeclaration' || d?.type === 'ClassDeclaration') names.push(d.id.name);
          else if (d?.type === 'VariableDeclaration') for (const v of d.declarations) if (v.id.type === 'Identifier') names.push(v.id.name);
          if (!node.source) for (const s of node.specifiers ?? []) if (s.local.type === 'Identifier') names.push(s.local.name);
        }
        if (node.type === 'ExportDefaultDeclaration') {
          const d = node.declaration;
          if ((d.type === 'FunctionDeclaration' || d.type === 'ClassDeclaration') && d.id) defaultName = d.id.name;
          else if (d.type === 'Identifier') defaultName = d.name;
          else this.error(`${file}: the default export of an island file must be a named function (or an identifier) so it can be tagged`);
        }
      }
      // Components are the capitalised exports; tagging a capitalised constant is harmless (the tag skips non-functions).
      const components = [...new Set([...names, ...(defaultName ? [defaultName] : [])])].filter((n) => /^[A-Z]/.test(n));
      tagged.add(file);
      if (components.length === 0) return null;
      const tags = components.map((name) => `__astro_tag_component__(${name}, ${JSON.stringify(RENDERER)});`).join('\n');
      return { code: `${code}\nimport { __astro_tag_component__ } from 'astro/runtime/server/index.js';\n${tags}\n`, map: null };
    },
    configResolved(config) {
      serverBuild = Boolean(config.build.ssr);
    },
    buildStart() {
      tagged.clear();
    },
    buildEnd(error) {
      // Only the server build renders islands; the client build never tags.
      if (error || !serverBuild || this.meta.watchMode) return;
      const islands = [...this.getModuleIds()].map((id) => id.split('?')[0]).filter((id) => ISLAND_FILE.test(id));
      if (islands.length === 0) this.error('no island file (src/islands/**/*.tsx) seen in the server build: is ISLAND_FILE still right?');
      const missed = islands.filter((id) => !tagged.has(id));
      if (missed.length) this.error(`island files in the server build were not tagged for ${RENDERER}: ${missed.join(', ')}`);
    },
  };
}

/**
 * The server entry loads each page's module, the middleware and the (empty) actions module with `import()`, and
 * Astro calls the page's and the actions' loaders again on every request. Each `import()` goes through the module
 * loader's resolve hooks, and under tsx (how the server runs) those answer from a thread of their own: about 0.7 ms
 * of CPU per render for modules already loaded. Each loader keeps its first promise instead (a failed load is tried
 * again). Fails the build if the entry no longer has the loaders it rewrites.
 */
function keepEntryImports() {
  const LOADER = /\(\) => import\(('[^']+')\)/g;
  return {
    name: 'fanstage:keep-entry-imports',
    renderChunk(code, chunk, _options) {
      if (!chunk.isEntry || chunk.fileName !== 'entry.mjs') return null;
      const count = code.match(LOADER)?.length ?? 0;
      if (count < 3) this.error(`entry.mjs: expected the page, middleware and actions loaders "() => import('...')", found ${count}`);
      const keep = 'const __keep = (load) => { let p; return () => (p ??= load().catch((e) => { p = undefined; throw e; })); };\n';
      return { code: keep + code.replace(LOADER, (_, file) => `__keep(() => import(${file}))`), map: null };
    },
  };
}

// Pages render on the server inside our own Fastify process (server/app.ts mounts the middleware handler).
/**
 * The browser build's shared chunks. Left to itself Rollup gives every small shared module its own file, and each
 * file is compressed alone: the header's stores (auth, user, toast, ...) and React's pieces came as 15 files of
 * 0.1–3 KB on every page. Grouped, they compress together (tests/bench/page-js.ts measures it). Only modules every
 * page loads anyway belong here, or a page would ship code it does not use.
 */
const SHARED_CHUNKS = [
  ['react', /\/node_modules\/(react|react-dom|scheduler)\//],
  ['core', /\/node_modules\/(nanostores|@nanostores\/react)\/|\/src\/lib\/stores\/(auth|user|toast|reset|client)\.ts$|\/src\/lib\/(api\/error|navigation|runtime|cart-state)\.ts$|\/common\/(avatar|limits|money|plural)\.ts$/],
];

function sharedChunks() {
  return {
    name: 'fanstage:shared-chunks',
    hooks: {
      'astro:build:setup': ({ vite, target }) => {
        if (target !== 'client') return;
        const output = (vite.build.rollupOptions.output ??= {});
        for (const o of [output].flat()) {
          o.manualChunks = (id) => SHARED_CHUNKS.find(([, test]) => test.test(id))?.[0];
        }
      },
    },
  };
}

export default defineConfig({
  output: 'server',
  adapter: node({ mode: 'middleware' }),
  // Islands run on React 19 (react/react-dom), rendered on the server by @astrojs/react and hydrated in the browser.
  // Islands render to a string, not a stream that is then read whole (build/astro-render-costs.mjs).
  integrations: [react({ experimentalDisableStreaming: true }), sharedChunks()],
  // Stylesheets as files, never inlined: a browser or CDN keeps them across pages, while inlined CSS was ~5.8 KB
  // of every page's HTML (the home page's p99 as deployed is bound by its bytes: tests/bench/run.ts).
  build: { inlineStylesheets: 'never' },
  // Astro checks Origin on form posts; our API has its own CSRF check and pages post through the API.
  security: { checkOrigin: false },
  experimental: { csp: true },
  vite: {
    plugins: [tagIslandsForReact(), keepEntryImports(), astroRenderCosts()],
    ssr: {
      external: ['better-sqlite3', 'pg', 'sharp', 'geoip-lite', '@node-rs/argon2', 'ioredis'],
      // Astro's cookie handling needs its own cookie@1 (`parse`/`serialize`); left external, dist/server would
      // import the hoisted cookie@2 (from @fastify/cookie), which lacks them, and fail to load under Node.
      noExternal: ['cookie'],
    },
  },
});
