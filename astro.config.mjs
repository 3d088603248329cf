import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import preact from '@astrojs/preact';

/**
 * Tags every component exported from src/islands for the Preact renderer in the server build. An untagged
 * component makes Astro ask the renderer whether it can render it, and @astrojs/preact answers by rendering it:
 * every island was rendered twice per page (about a tenth of a home-page render). The tag is Astro's own
 * `__astro_tag_component__`, which its JSX and MDX integrations use for the same purpose.
 */
function tagIslandsForPreact() {
  return {
    name: 'tag-islands-for-preact',
    enforce: 'pre',
    transform(code, id, options) {
      if (!options?.ssr || !/\/src\/islands\/.+\.tsx$/.test(id)) return null;
      const components = [...code.matchAll(/^export (?:default )?function ([A-Z]\w*)/gm)].map((m) => m[1]);
      if (components.length === 0) return null;
      const tags = components.map((name) => `__astro_tag_component__(${name}, '@astrojs/preact');`).join('\n');
      return { code: `${code}\nimport { __astro_tag_component__ } from 'astro/runtime/server/index.js';\n${tags}\n`, map: null };
    },
  };
}

// Pages render on the server inside our own Fastify process (server/app.ts mounts the middleware handler).
export default defineConfig({
  output: 'server',
  adapter: node({ mode: 'middleware' }),
  // Islands are written against the React API and run on Preact (compat: 'react' and 'react-dom' resolve to
  // preact/compat): React + react-dom alone were ~60 KiB of gzipped JS on every page (docs/architecture.md).
  integrations: [preact({ compat: true })],
  // Stylesheets as files, never inlined: a browser or CDN keeps them across pages, while inlined CSS was ~5.8 KB
  // of every page's HTML (the home page's p99 as deployed is bound by its bytes: tests/bench/run.ts).
  build: { inlineStylesheets: 'never' },
  // Astro checks Origin on form posts; our API has its own CSRF check and pages post through the API.
  security: { checkOrigin: false },
  experimental: { csp: true },
  vite: {
    plugins: [tagIslandsForPreact()],
    ssr: {
      external: ['better-sqlite3', 'pg', 'sharp', 'geoip-lite', '@node-rs/argon2', 'ioredis'],
      // Astro's cookie handling needs its own cookie@1 (`parse`/`serialize`); left external, dist/server would
      // import the hoisted cookie@2 (from @fastify/cookie), which lacks them, and fail to load under Node.
      // @nanostores/react imports 'react': bundled, it gets preact/compat like the islands; left external, Node
      // would load the real React during server rendering and its hooks would fail.
      noExternal: ['cookie', '@nanostores/react'],
    },
  },
});
