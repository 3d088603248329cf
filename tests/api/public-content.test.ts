import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { newId, nowIso } from '../../server/db/ids.js';

async function count(t: TestApp, table: 'contacts' | 'banners'): Promise<number> {
  const row = await t.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(engines)('public content API on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { env: { TRUST_PROXY: '1' } });
    const now = nowIso();
    await t.ctx.db
      .insertInto('banners')
      .values([
        { id: newId(), title: 'Top one', position: 'top', ordering: 1, status: 'active', createdAt: now, updatedAt: now },
        { id: newId(), title: 'Top zero', position: 'top', ordering: 0, status: 'active', createdAt: now, updatedAt: now },
        { id: newId(), title: 'Hidden', position: 'top', ordering: 2, status: 'inactive', createdAt: now, updatedAt: now },
        { id: newId(), title: 'Side', position: 'side', ordering: 0, status: 'active', createdAt: now, updatedAt: now },
      ])
      .execute();
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('GET /country-block/check', () => {
    it('is not blocked for an unknown (loopback) address', async () => {
      const res = await t.api('/country-block/check');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ blocked: false, country: null });
    });
    it('resolves the country offline from the forwarded address and honours the block list', async () => {
      const headers = { 'x-forwarded-for': '8.8.8.8' };
      expect((await t.api('/country-block/check', { headers })).body).toEqual({ blocked: false, country: 'US' });
      await t.ctx.geo.block('us');
      expect((await t.api('/country-block/check', { headers })).body).toEqual({ blocked: true, country: 'US' });
      await t.ctx.geo.unblock('US');
      expect((await t.api('/country-block/check', { headers })).body.blocked).toBe(false);
    });
  });

  describe('lists', () => {
    it('serves countries, languages and phone codes from the dataset', async () => {
      const [countries, languages, phones] = await Promise.all([t.api('/countries/list'), t.api('/languages/list'), t.api('/phone-codes/list')]);
      expect(countries.status).toBe(200);
      expect(countries.body.length).toBeGreaterThan(240);
      expect(countries.body).toContainEqual(expect.objectContaining({ code: 'FR', name: 'France' }));
      expect(countries.headers.get('cache-control')).toContain('max-age');
      expect(languages.body).toContainEqual(expect.objectContaining({ code: 'en', name: 'English' }));
      expect(phones.body).toContainEqual(expect.objectContaining({ code: 'GB', dialCode: '+44' }));
    });

    it('serves the choices for optional profile fields at /user-additional', async () => {
      const res = await t.api('/user-additional');
      expect(res.status).toBe(200);
      expect(res.body.genders).toContainEqual({ value: 'female', text: 'Female' });
      expect(res.body.heights[0]).toEqual({ value: '140', text: `140 cm (4'7")` });
      expect(res.body.weights.at(-1).value).toBe('130');
    });
  });

  describe('GET /site-promo/search', () => {
    it('lists active banners of a position in order', async () => {
      const res = await t.api('/site-promo/search?position=top');
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(2);
      expect(res.body.items.map((b: { title: string }) => b.title)).toEqual(['Top zero', 'Top one']);
    });
    it('paginates with limit and offset', async () => {
      const res = await t.api('/site-promo/search?limit=1&offset=1');
      expect(res.body.total).toBe(3);
      expect(res.body.items).toHaveLength(1);
    });
    it.each([['limit=0'], ['limit=1000'], ['offset=-1'], ['limit=abc'], ['position=' + encodeURIComponent("x' or 1=1")]])('rejects %s', async (qs) => {
      const res = await t.api(`/site-promo/search?${qs}`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    });
  });

  describe('POST /contact', () => {
    const valid = { name: 'Ann', email: 'Ann@Example.com', message: 'Hello there, I have a question.' };
    it('stores a valid message', async () => {
      const before = await count(t, 'contacts');
      const res = await t.api('/contact', { method: 'POST', json: valid, headers: { 'x-forwarded-for': '10.0.0.1' } });
      expect(res.status).toBe(201);
      expect(await count(t, 'contacts')).toBe(before + 1);
      const row = await t.ctx.db.selectFrom('contacts').selectAll().orderBy('createdAt', 'desc').executeTakeFirstOrThrow();
      expect(row.email).toBe('ann@example.com');
    });
    it.each([
      [{ ...valid, email: 'not-an-email' }, 'email'],
      [{ ...valid, message: 'short' }, 'message'],
      [{ ...valid, name: '' }, 'name'],
      [{ ...valid, message: 'x'.repeat(5001) }, 'message'],
      [{ email: valid.email, message: valid.message }, 'name'],
      [{ ...valid, name: 42 }, 'name'],
    ])('rejects bad input %# and writes nothing', async (body, field) => {
      const before = await count(t, 'contacts');
      const res = await t.api('/contact', { method: 'POST', json: body, headers: { 'x-forwarded-for': `10.0.2.${Math.floor(Math.random() * 250)}` } });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(field);
      expect(await count(t, 'contacts')).toBe(before);
    });
    it('rejects a body that is not JSON', async () => {
      const res = await t.api('/contact', { method: 'POST', body: '{oops', headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.0.0.3' } });
      expect(res.status).toBe(400);
      expect(res.body.message).toBeTruthy();
    });
    it('is rate limited per IP', async () => {
      const headers = { 'x-forwarded-for': '10.0.0.9' };
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await t.api('/contact', { method: 'POST', json: valid, headers })).status);
      expect(statuses.slice(0, 5)).toEqual([201, 201, 201, 201, 201]);
      expect(statuses[5]).toBe(429);
    });
  });

  describe('captcha', () => {
    it('answers that captcha is disabled without a secret, and forms do not require it', async () => {
      const res = await t.api('/re-captcha/verify', { method: 'POST', json: { token: 'abc' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ enabled: false, success: true });
      expect((await t.api('/settings/public')).body.captchaEnabled).toBe(false);
    });
    it('rejects a missing token', async () => {
      expect((await t.api('/re-captcha/verify', { method: 'POST', json: {} })).status).toBe(400);
    });
    it('verifies against the configured provider when a secret is set', async () => {
      // A local stand-in for the provider's siteverify endpoint, speaking its form protocol.
      const provider = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const form = new URLSearchParams(body);
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ success: form.get('secret') === 's3cret' && form.get('response') === 'good-token' }));
        });
      });
      await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
      const previous = process.env.CAPTCHA_VERIFY_URL;
      try {
        (t.ctx.captcha as unknown as { verifyUrl: string }).verifyUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/siteverify`;
        await t.ctx.settings.set('captchaSecret', 's3cret');
        await t.ctx.settings.set('captchaSiteKey', 'site-key');
        expect((await t.api('/settings/public')).body).toMatchObject({ captchaEnabled: true, captchaSiteKey: 'site-key' });
        expect((await t.api('/re-captcha/verify', { method: 'POST', json: { token: 'good-token' } })).body).toMatchObject({ enabled: true, success: true });
        expect((await t.api('/re-captcha/verify', { method: 'POST', json: { token: 'bad' } })).body).toMatchObject({ enabled: true, success: false });
        // The contact form now requires a valid token.
        const before = await count(t, 'contacts');
        const noToken = await t.api('/contact', { method: 'POST', json: { name: 'A', email: 'a@b.co', message: 'Long enough message' }, headers: { 'x-forwarded-for': '10.0.1.1' } });
        expect(noToken.status).toBe(400);
        expect(await count(t, 'contacts')).toBe(before);
        const ok = await t.api('/contact', { method: 'POST', json: { name: 'A', email: 'a@b.co', message: 'Long enough message', captchaToken: 'good-token' }, headers: { 'x-forwarded-for': '10.0.1.2' } });
        expect(ok.status).toBe(201);
      } finally {
        await t.ctx.settings.set('captchaSecret', '');
        if (previous === undefined) delete process.env.CAPTCHA_VERIFY_URL;
        provider.close();
      }
    });
  });

  describe('GET /search/total', () => {
    it('requires a keyword', async () => {
      expect((await t.api('/search/total')).status).toBe(400);
    });
    it('counts matches, treating LIKE wildcards literally', async () => {
      const res = await t.api('/search/total?q=' + encodeURIComponent('%'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ total: 0, performers: 0, videos: 0, galleries: 0, products: 0, posts: 0 });
    });
  });

  it('serves the OpenAPI document listing every route', async () => {
    const res = await t.api('/docs/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    for (const p of ['/settings/public', '/country-block/check', '/contact', '/site-promo/search', '/search/total', '/performers/search']) {
      expect(Object.keys(res.body.paths)).toContain(p);
    }
  });
});
