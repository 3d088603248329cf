import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';

interface SsrRenderer {
  name: string;
  ssr: { check: (...args: unknown[]) => Promise<boolean>; renderToStaticMarkup: (...args: unknown[]) => Promise<unknown> };
}

/**
 * Each island renders once on the server. Astro asks every renderer whether it can render a component that is not
 * tagged with its renderer, and @astrojs/react answers by rendering it: an untagged island renders twice. The build
 * tags every component exported from src/islands (astro.config.mjs, tagIslandsForReact); here the built site's own
 * renderer (dist/server/renderers.mjs, the module instance the page handler uses) counts what it is asked to do.
 */
describe('islands render once on the server (built site, sqlite)', () => {
  let t: TestApp;
  let c: Catalogue;
  const calls = { check: 0, render: 0 };

  beforeAll(async () => {
    const dist = path.resolve(process.env.ASTRO_DIST ?? 'dist');
    const { renderers } = (await import(pathToFileURL(path.join(dist, 'server', 'renderers.mjs')).href)) as { renderers: SsrRenderer[] };
    const react = renderers.find((r) => r.name === '@astrojs/react');
    if (!react) throw new Error(`the build has no @astrojs/react renderer: ${renderers.map((r) => r.name).join(', ')}`);
    for (const r of renderers) {
      const { check, renderToStaticMarkup } = r.ssr;
      r.ssr.check = function (...args) {
        calls.check++;
        return check.apply(this, args);
      };
      r.ssr.renderToStaticMarkup = function (...args) {
        calls.render++;
        return renderToStaticMarkup.apply(this, args);
      };
    }
    t = await startTestApp('sqlite', { web: true });
    c = await buildCatalogue(t.ctx);
  });
  afterAll(() => t?.close());

  const pages = () => [
    ['home', '/', undefined],
    ['performers', '/performers', undefined],
    ['performer page', '/performers/alice', undefined],
    ['video page', `/videos/${c.videos.free.id}`, undefined],
    ['video page, signed in', `/videos/${c.videos.free.id}`, c.buyer.headers],
    ['profile page, signed in', '/account/profile', c.buyer.headers],
  ] as const;

  it('renders each island of a page once and never asks a renderer to guess', async () => {
    const seen: Array<{ page: string; islands: number; renders: number; checks: number }> = [];
    for (const [name, p, headers] of pages()) {
      calls.check = 0;
      calls.render = 0;
      const res = await fetch(t.url + p, { headers: headers ?? {} });
      expect(res.status, name).toBe(200);
      const html = await res.text();
      // client:only islands are not rendered on the server.
      const islands = [...html.matchAll(/<astro-island\b[^>]*>/g)].filter((m) => !/\bclient="only"/.test(m[0])).length;
      seen.push({ page: name, islands, renders: calls.render, checks: calls.check });
    }
    // Every island was rendered by the React renderer (a page may also render React components without hydrating
    // them, so renders can exceed islands), and no component went through the renderer's check, which renders it.
    expect(seen.every((s) => s.islands > 0 && s.renders >= s.islands)).toBe(true);
    expect(seen).toEqual(seen.map((s) => ({ ...s, checks: 0 })));
  });

  it("loads a page's module once: the built entry's loaders keep their first import (astro.config.mjs, keepEntryImports)", async () => {
    const dist = path.resolve(process.env.ASTRO_DIST ?? 'dist');
    const { pageMap } = (await import(pathToFileURL(path.join(dist, 'server', 'entry.mjs')).href)) as { pageMap: Map<string, () => Promise<unknown>> };
    expect(pageMap.size).toBeGreaterThan(50);
    const loads: Promise<unknown>[] = [];
    for (const [component, load] of pageMap) {
      // A bare `() => import(...)` makes a new promise each call, asking the loader's resolve hooks every request.
      const first = load();
      loads.push(first);
      expect(load(), component).toBe(first);
    }
    const modules = await Promise.all(loads);
    expect(modules.every((m) => typeof (m as { page?: unknown }).page === 'function')).toBe(true);
  });
});
