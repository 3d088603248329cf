import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import preact from '@astrojs/preact';

// Pages render on the server inside our own Fastify process (server/app.ts mounts the middleware handler).
export default defineConfig({
  output: 'server',
  adapter: node({ mode: 'middleware' }),
  // Islands are written against the React API and run on Preact (compat: 'react' and 'react-dom' resolve to
  // preact/compat): React + react-dom alone were ~60 KiB of gzipped JS on every page (docs/architecture.md).
  integrations: [preact({ compat: true })],
  // Our Fastify server serves dist/client, so Astro must not try to.
  build: { inlineStylesheets: 'auto' },
  // Astro checks Origin on form posts; our API has its own CSRF check and pages post through the API.
  security: { checkOrigin: false },
  experimental: { csp: true },
  vite: {
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
