import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';

/**
 * The age gate (docs/architecture.md, Settings and gates): off by default; on, a guest in a listed country (or
 * anywhere when the list is empty) gets every page with the confirmation over it until the `age_ok` cookie is set by
 * the no-JavaScript form POST, which sends them back to a safe path. Signed-in users are never asked. With the
 * micro-cache on, the page with the gate and the page without it are two answers, never mixed, and never across
 * countries. Each case asks its own URL (a query) so an answer cached by an earlier case cannot stand in for it.
 */

const GATE = 'data-testid="age-gate"';

describe.each(engines)('the age gate on %s', (engine) => {
  let t: TestApp;
  let fan: TestUser;
  let n = 0;
  const fresh = (p = '/performers') => `${p}?case=${++n}`;
  const page = async (p: string, headers: Record<string, string> = {}) => {
    const res = await fetch(t.url + p, { headers, redirect: 'manual' });
    return { status: res.status, cache: res.headers.get('x-cache'), text: await res.text() };
  };
  const passed = { cookie: 'age_ok=1' };
  const set = async (enabled: boolean, countries: string[] = []) => {
    await t.ctx.settings.set('ageGateEnabled', enabled);
    await t.ctx.settings.set('ageGateCountries', countries);
  };
  const confirm = (body: string) =>
    fetch(`${t.url}/age-gate`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });

  beforeAll(async () => {
    t = await startTestApp(engine, { web: true, env: { PAGE_CACHE_MS: '60000', COUNTRY_HEADER: 'x-country' } });
    fan = await createUser(t.ctx.db, 'user');
  });
  afterAll(async () => t?.close());

  it('is off by default', async () => {
    await set(false);
    const res = await page(fresh());
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(GATE);
  });

  it('on everywhere: guests see it until they have the cookie; signed-in users never', async () => {
    await set(true);
    const url = fresh();
    const guest = await page(url);
    expect(guest.status).toBe(200);
    expect(guest.text).toContain(GATE);
    expect(guest.text).toContain('I am 18 or older');
    expect(guest.text).toContain(`name="next" value="${url}"`);
    expect((await page(url, passed)).text).not.toContain(GATE);
    expect((await page(fresh(), { cookie: `token=${fan.token}` })).text).not.toContain(GATE);
    // The pages one needs without confirming: asking for removal, contacting the site, signing in.
    for (const p of ['/takedown', '/contact', '/auth/login']) expect((await page(fresh(p))).text, p).not.toContain(GATE);
  });

  it('only in the listed countries', async () => {
    await set(true, ['DE']);
    const url = fresh();
    expect((await page(url, { 'x-country': 'DE' })).text).toContain(GATE);
    expect((await page(url, { 'x-country': 'FR' })).text).not.toContain(GATE);
    // An unknown country is not in the list.
    expect((await page(fresh())).text).not.toContain(GATE);
  });

  it('the no-JavaScript form sets a year-long cookie and goes back to a safe path only', async () => {
    const ok = await confirm('next=%2Fvideos%3Fsort%3Dnewest');
    expect(ok.status).toBe(303);
    expect(ok.headers.get('location')).toBe('/videos?sort=newest');
    const cookie = ok.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^age_ok=1;/);
    expect(cookie).toMatch(/Max-Age=31536000/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example', 'javascript:alert(1)', '']) {
      const res = await confirm(`next=${encodeURIComponent(next)}`);
      expect(res.status, next).toBe(303);
      expect(res.headers.get('location'), next).toBe('/');
    }
    expect((await confirm('')).headers.get('location')).toBe('/');
  });

  it('a cached page never serves the gate to who passed it, nor skips it for who did not, nor mixes countries', async () => {
    await set(true, ['DE', 'GB']);
    const url = fresh();
    const a = await page(url, { 'x-country': 'DE' });
    const b = await page(url, { 'x-country': 'DE' });
    const c = await page(url, { 'x-country': 'DE', ...passed });
    const d = await page(url, { 'x-country': 'DE', ...passed });
    const e = await page(url, { 'x-country': 'DE' });
    const f = await page(url, { 'x-country': 'FR' });
    const g = await page(url, { 'x-country': 'FR' });
    expect([a.cache, b.cache, c.cache, d.cache, e.cache, f.cache, g.cache]).toEqual(['MISS', 'HIT', 'MISS', 'HIT', 'HIT', 'MISS', 'HIT']);
    expect([a, b, c, d, e, f, g].map((r) => r.text.includes(GATE))).toEqual([true, true, false, false, true, false, false]);
  });
});
