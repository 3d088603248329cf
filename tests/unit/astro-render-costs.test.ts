import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { CSP_DIGEST_MEMO, rewriteAstroModule } from '../../build/astro-render-costs.mjs';

const astroDist = path.dirname(createRequire(import.meta.url).resolve('astro/package.json'));
const read = (file: string) => fs.readFileSync(path.join(astroDist, file), 'utf8');

/** `function name(...) {...}` out of a module's source, as a callable function (its body must use only globals and `extra`). */
function extract(code: string, name: string, extra: Record<string, unknown> = {}): (...args: unknown[]) => unknown {
  const start = code.indexOf(`function ${name}(`);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = code.indexOf('\n}\n', start) + 2;
  const names = Object.keys(extra);
  return new Function(...names, `${code.slice(start, end)}\nreturn ${name};`)(...names.map((n) => extra[n]));
}

describe("the server build's rewrite of Astro's renderer (build/astro-render-costs.mjs)", () => {
  it('answers isHttpUrl as Astro does for every awkward value, without new URL() for values that cannot be http(s) URLs', () => {
    const original = read('dist/runtime/server/render/util.js');
    const rewritten = rewriteAstroModule(original, '/x/node_modules/astro/dist/runtime/server/render/util.js') as string;
    const protocols = { VALID_PROTOCOLS: ['http:', 'https:'] };
    const before = extract(original, 'isHttpUrl', protocols);
    const after = extract(rewritten, 'isHttpUrl', protocols);
    const values = [
      'https://example.com/a?b=1&c=2', 'HTTP://EXAMPLE.COM/?a&b', '  https://example.com/?a&b', '\u0001http://x/?a&b', 'ht\ttp://x/?a&b',
      'http\n://x/?a&b', 'h\rttps://x/?a&b', '/media/protected/video/1/2?exp=1&sig=abc', '?a=1&b=2', 'javascript:alert(1)&x',
      'mailto:a@b.c?x&y', 'httpx://a&b', 'http:/a&b', 'https:a&b', 'http', '', '&', 'data:text/html,<b>&</b>', 'file:///etc/passwd?a&b',
    ];
    for (const value of values) expect([value, after(value)]).toEqual([value, before(value)]);
    // The point of it: a relative address never reaches the URL parser.
    const parse = vi.spyOn(globalThis, 'URL');
    after('/media/protected/video/1/2?exp=1&sig=abc');
    expect(parse).not.toHaveBeenCalled();
    after('https://example.com/?a&b');
    expect(parse).toHaveBeenCalledTimes(1);
    parse.mockRestore();
  });

  it('keeps a CSP digest by algorithm and content, and computes each once', async () => {
    const rewritten = rewriteAstroModule(read('dist/core/encryption.js'), '/x/node_modules/astro/dist/core/encryption.js') as string;
    expect(rewritten).toContain('async function computeCspDigest(data, algorithm) {');
    expect(rewritten.endsWith(CSP_DIGEST_MEMO)).toBe(true);
    const compute = vi.fn(async (data: string, algorithm: string) => `${algorithm}-${data.length}-${data}`);
    const generate = new Function('computeCspDigest', `${CSP_DIGEST_MEMO}\nreturn generateCspDigest;`)(compute) as typeof compute;
    expect(await generate('console.log(1)', 'SHA-256')).toBe('SHA-256-14-console.log(1)');
    expect(await generate('console.log(1)', 'SHA-256')).toBe('SHA-256-14-console.log(1)');
    expect(await generate('console.log(1)', 'SHA-512')).toBe('SHA-512-14-console.log(1)');
    expect(await generate('console.log(2)', 'SHA-256')).toBe('SHA-256-14-console.log(2)');
    expect(compute).toHaveBeenCalledTimes(3);
  });

  it('fails loudly when the code it rewrites is no longer there', () => {
    expect(() => rewriteAstroModule('function somethingElse() {}\n', '/n/astro/dist/runtime/server/render/util.js')).toThrow(/isHttpUrl/);
    expect(() => rewriteAstroModule('export {};\n', '/n/astro/dist/core/encryption.js')).toThrow(/generateCspDigest/);
    expect(rewriteAstroModule('anything', '/n/astro/dist/core/other.js')).toBeNull();
  });
});
