import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The islands run on Preact in the browser (astro.config.mjs: @astrojs/preact with compat), so their tests run on it
 * too: the same aliases @preact/preset-vite applies, and the packages that import 'react' from node_modules
 * (@testing-library/react, @nanostores/react) are inlined so the aliases reach them instead of the real React.
 * @testing-library/react is pointed at its ES module build: its `main` (CommonJS) would be loaded by Node, which
 * requires the real react-dom.
 */
const preactCompat = [
  {
    find: /^@testing-library\/react$/,
    replacement: fileURLToPath(new URL('./node_modules/@testing-library/react/dist/@testing-library/react.esm.js', import.meta.url)),
  },
  { find: /^react$/, replacement: 'preact/compat' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom\/test-utils$/, replacement: 'preact/test-utils' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
];

export default defineConfig({
  resolve: { alias: preactCompat },
  test: {
    include: ['tests/**/*.test.{ts,tsx}'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    server: { deps: { inline: ['@testing-library/react', '@nanostores/react'] } },
  },
});
