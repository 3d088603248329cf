import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { CSP_DIGEST_MEMO, rewriteModule } from '../../build/astro-render-costs.mjs';

const require = createRequire(import.meta.url);
/** A file of an installed package, as the build reads it. */
const read = (pkg: string, file: string) => fs.readFileSync(path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file), 'utf8');
const rewritten = (code: string, id: string) => (rewriteModule(code, id) as { code: string }).code;

/** `function name(...) {...}` out of a module's source, as a callable function (its body must use only globals and `extra`). */
function extract(code: string, name: string, extra: Record<string, unknown> = {}): (...args: unknown[]) => unknown {
  const start = code.indexOf(`function ${name}(`);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = code.indexOf('\n}\n', start) + 2;
  const names = Object.keys(extra);
  return new Function(...names, `${code.slice(start, end)}\nreturn ${name};`)(...names.map((n) => extra[n]));
}

describe("the server build's rewrites of the renderer (build/astro-render-costs.mjs)", () => {
  it('answers isHttpUrl as Astro does for every awkward value, without new URL() for values that cannot be http(s) URLs', () => {
    const original = read('astro', 'dist/runtime/server/render/util.js');
    const protocols = { VALID_PROTOCOLS: ['http:', 'https:'] };
    const before = extract(original, 'isHttpUrl', protocols);
    const after = extract(rewritten(original, '/x/node_modules/astro/dist/runtime/server/render/util.js'), 'isHttpUrl', protocols);
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
    const code = rewritten(read('astro', 'dist/core/encryption.js'), '/x/node_modules/astro/dist/core/encryption.js');
    expect(code).toContain('async function computeCspDigest(data, algorithm) {');
    expect(code.endsWith(CSP_DIGEST_MEMO)).toBe(true);
    const compute = vi.fn(async (data: string, algorithm: string) => `${algorithm}-${data.length}-${data}`);
    const generate = new Function('computeCspDigest', `${CSP_DIGEST_MEMO}\nreturn generateCspDigest;`)(compute) as typeof compute;
    expect(await generate('console.log(1)', 'SHA-256')).toBe('SHA-256-14-console.log(1)');
    expect(await generate('console.log(1)', 'SHA-256')).toBe('SHA-256-14-console.log(1)');
    expect(await generate('console.log(1)', 'SHA-512')).toBe('SHA-512-14-console.log(1)');
    expect(await generate('console.log(2)', 'SHA-256')).toBe('SHA-256-14-console.log(2)');
    expect(compute).toHaveBeenCalledTimes(3);
  });

  it("renders islands to a string with the island's id prefix (useId must match the browser's), and runs pages without an AsyncLocalStorage", () => {
    const react = rewritten(read('@astrojs/react', 'dist/server.js'), '/x/node_modules/@astrojs/react/dist/server.js');
    expect(react).toContain('html = ReactDOM.renderToString(vnode, renderOptions);');
    expect(react).toMatch(/const renderOptions = \{\s*identifierPrefix: prefix/);
    const adapter = rewritten(read('@astrojs/node', 'dist/serve-app.js'), '/x/node_modules/@astrojs/node/dist/serve-app.js');
    expect(adapter).not.toContain('new AsyncLocalStorage()');
    const als = new Function(`${adapter.match(/const als = .*;/)![0]} return als;`)() as { run(url: string, render: () => string): string };
    expect(als.run('/x', () => 'rendered')).toBe('rendered');
  });

  it('fails loudly when the code it rewrites is no longer there', () => {
    expect(() => rewriteModule('function somethingElse() {}\n', '/n/astro/dist/runtime/server/render/util.js')).toThrow(/isHttpUrl/);
    expect(() => rewriteModule('export {};\n', '/n/astro/dist/core/encryption.js')).toThrow(/generateCspDigest/);
    expect(() => rewriteModule('export {};\n', '/n/@astrojs/react/dist/server.js')).toThrow(/renderToString/);
    expect(() => rewriteModule('export {};\n', '/n/@astrojs/node/dist/serve-app.js')).toThrow(/AsyncLocalStorage/);
    expect(rewriteModule('anything', '/n/astro/dist/core/other.js')).toBeNull();
  });
});
