import http from 'node:http';
import type { AddressInfo } from 'node:net';
import helmet from 'helmet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmetOptions, securityHeaders } from '../../server/http/security-headers.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

/** The headers helmet's own middleware puts on a real Node response, for comparison. */
async function helmetOnARealResponse(hsts: boolean): Promise<Record<string, string>> {
  const middleware = helmet(helmetOptions(hsts));
  const server = http.createServer((req, res) => middleware(req, res, () => res.end('ok')));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return securityOnly(res.headers);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

const NOT_SECURITY = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-type', 'cache-control', 'vary', 'x-micro-cache', 'etag', 'last-modified', 'set-cookie', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after', 'location']);
function securityOnly(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].filter(([k]) => !NOT_SECURITY.has(k)));
}

describe('security headers', () => {
  it('are what helmet itself sets, worked out once', async () => {
    for (const hsts of [false, true]) {
      const once = securityHeaders(helmetOptions(hsts));
      const mine = Object.fromEntries(once.set.map(([k, v]) => [k.toLowerCase(), v]));
      expect(mine).toEqual(await helmetOnARealResponse(hsts));
      expect(once.removed.map((h) => h.toLowerCase())).toContain('x-powered-by');
      expect(Boolean(mine['strict-transport-security'])).toBe(hsts);
    }
    const csp = Object.fromEntries(securityHeaders(helmetOptions(false)).set)['Content-Security-Policy'];
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
  });

  describe('on every kind of answer', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp('sqlite');
    });
    afterAll(async () => {
      await t?.close();
    });

    it('a JSON answer, a 400, a 401, a 404, the health check and a missing media file carry them all', async () => {
      const expected = Object.fromEntries(securityHeaders(helmetOptions(false)).set.map(([k, v]) => [k.toLowerCase(), v]));
      expect(Object.keys(expected).length).toBeGreaterThan(8);
      const answers = [
        await fetch(`${t.url}/api/settings/public`),
        await fetch(`${t.url}/api/performers/search?limit=1000`),
        await fetch(`${t.url}/api/users/me/header`),
        await fetch(`${t.url}/api/nope`),
        await fetch(`${t.url}/health`),
        await fetch(`${t.url}/media/nothing-here.jpg`),
      ];
      expect(answers.map((r) => r.status)).toEqual([200, 400, 401, 404, 200, 404]);
      for (const res of answers) {
        expect(securityOnly(res.headers)).toEqual(expected);
        expect(res.headers.get('x-powered-by')).toBeNull();
      }
    });
  });
});
