import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';

/**
 * Unknown addresses over plain HTTP to the built site, on both engines: every path no page answers gets the site's
 * own 404 page (status 404, a <title>, the header and footer), whoever asks and however deep the path; the API keeps
 * its JSON 404 and missing build files a short answer.
 */

interface Answer {
  status: number;
  type: string;
  body: string;
}

/** The request exactly as given (fetch would normalise some targets). */
function request(t: TestApp, target: string, opts: { method?: string; who?: TestUser; body?: string } = {}): Promise<Answer> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: hostname, port, path: target, method: opts.method ?? 'GET', agent: false, headers: { ...(opts.who ? { cookie: `token=${opts.who.token}` } : {}), ...(opts.body ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

describe.each(engines)('unknown addresses on %s', (engine) => {
  let t: TestApp;
  let fan: TestUser;
  let admin: TestUser;
  let siteName: string;

  beforeAll(async () => {
    t = await startTestApp(engine, { web: true });
    fan = await createUser(t.ctx.db, 'user');
    admin = await createUser(t.ctx.db, 'admin');
    siteName = String((await t.ctx.settings.getPublicAll()).siteName);
  }, 60_000);
  afterAll(() => t?.close());

  const designed = (a: Answer, where: string) => {
    expect(a.status, where).toBe(404);
    expect(a.type, where).toContain('text/html');
    expect(a.body, where).toContain(`<title>Page not found | ${siteName}</title>`);
    expect(a.body, where).toContain('<h1>Page not found</h1>');
    // The site's layout: its header (with the search and the menu button) and footer.
    expect(a.body, where).toContain('class="site-header"');
    expect(a.body, where).toContain('role="search"');
    expect(a.body, where).toContain('class="site-footer"');
    expect(a.body, where).toContain('name="robots" content="noindex"');
  };

  it('answers every unknown page address with the designed 404 page, for guests and signed-in users', async () => {
    const paths = [
      '/no-such-page', '/no/such/page/at/all', '/account/nope', '/studio/nope', '/admin/nope/deeper', '/performers/nobody-here',
      '/videos/0000', '/media/nope', '/favicon.ico.bak', '/no-such-page?with=query',
    ];
    for (const who of [undefined, fan, admin]) {
      for (const p of paths) designed(await request(t, p, { who }), `${p} as ${who?.role ?? 'guest'}`);
    }
  });

  it('gives a HEAD request the 404 status, and a path that is not a path (absolute form) the page too', async () => {
    const head = await request(t, '/no-such-page', { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(head.type).toContain('text/html');
    designed(await request(t, `${t.url}/no-such-page`), 'absolute-form target');
  });

  it('keeps the API\'s JSON 404 under its base, for every method', async () => {
    for (const [method, p] of [['GET', '/api/nope'], ['GET', '/api'], ['GET', '/api/users/nope/deeper'], ['POST', '/api/nope'], ['DELETE', '/api/nope']] as const) {
      const a = await request(t, p, { method, body: method === 'POST' ? '{}' : undefined });
      expect(a.status, `${method} ${p}`).toBe(404);
      expect(a.type, `${method} ${p}`).toContain('application/json');
      expect(JSON.parse(a.body), `${method} ${p}`).toMatchObject({ code: 'NOT_FOUND', message: expect.any(String) });
    }
  });

  it('answers a missing build file briefly, without a page', async () => {
    const a = await request(t, '/_astro/missing.js');
    expect(a.status).toBe(404);
    expect(a.body).not.toContain('<html');
  });

  it('refuses a write to any page address, known or not, with or without a body, as a 405 JSON error', async () => {
    for (const who of [undefined, fan]) {
      for (const [method, p, body] of [
        ['POST', '/no-such-page', undefined], ['DELETE', '/no-such-page', undefined], ['POST', '/videos', '{"a":1}'], ['PUT', '/', '{}'],
        ['POST', '/no-such-page', '{"title":"x"}'], ['PATCH', '/account/profile', '[]'], ['POST', '/auth/login', '{"email":"a","password":"b"}'],
      ] as const) {
        const a = await request(t, p, { method, body, who });
        const where = `${method} ${p} ${body ?? ''} as ${who?.role ?? 'guest'}`;
        expect(a.status, where).toBe(405);
        expect(a.type, where).toContain('application/json');
        expect(JSON.parse(a.body), where).toEqual({ message: 'This address only answers GET and HEAD requests', code: 'METHOD_NOT_ALLOWED' });
      }
    }
    // A body that is not the JSON it says it is stops at the parser: still a 4xx in the same shape.
    const garbled = await request(t, '/account/profile', { method: 'PATCH', body: 'not json' });
    expect(garbled.status).toBe(400);
    expect(JSON.parse(garbled.body)).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  });
});
