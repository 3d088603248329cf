import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Islands talk to the server through the stores in src/lib/stores (state + the functions that change it); an island
 * that imports the API client calls the server behind its store's back. This scans the islands' sources.
 *
 * No island imports a request-sending name of the clients (src/lib/api/*: transport, upload and one client per
 * area): types and pure helpers only (`errorMessage`, `ApiError` come from src/lib/api/error.ts). There are no
 * exceptions; the studio, the largest group, is also checked on its own so the scan is seen to reach it.
 */
const ROOT = join(import.meta.dirname, '../../src/islands');
/** The names of src/lib/api/* that send requests (the rest are types and pure helpers such as errorMessage). */
const CALLERS = ['auth', 'catalogue', 'engagement', 'money', 'studioApi', 'adminApi', 'consentApi', 'apiFetch', 'upload'];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.(tsx?|jsx?)$/.test(e.name) ? [join(dir, e.name)] : []));
}

interface ApiImport {
  typeOnly: boolean;
  names: string[];
}

/** Every import of src/lib/api in `source` (static, namespace, side-effect or dynamic). */
function apiImports(source: string): ApiImport[] {
  const out: ApiImport[] = [];
  // The transport and the clients of each area, the studio's and the admin console's among them.
  const spec = String.raw`['"](?:\.{1,2}\/)+lib\/api(?:\/[a-z-]+)?(?:\.[jt]s)?['"]`;
  const stmt = new RegExp(String.raw`import\s+(type\s+)?([^;'"]*?)\s+from\s+${spec}`, 'g');
  for (const m of source.matchAll(stmt)) {
    const typeOnly = Boolean(m[1]);
    const clause = m[2]!;
    const braces = /\{([^}]*)\}/.exec(clause)?.[1] ?? '';
    const named = braces.split(',').map((s) => s.trim()).filter((s) => s && !s.startsWith('type '));
    const names = named.map((s) => s.split(/\s+as\s+/)[0]!.trim());
    // A default or namespace import (`import * as client`) reaches every caller.
    const outside = clause.replace(/\{[^}]*\}/, '').replace(/,/g, ' ').trim();
    out.push({ typeOnly, names: outside ? [...names, '*'] : names });
  }
  const all = source.match(new RegExp(spec, 'g'))?.length ?? 0;
  // Anything else (a bare `import '../lib/api/auth'`, `import('../lib/api/index.js')`): counted as reaching every caller.
  for (let i = out.length; i < all; i++) out.push({ typeOnly: false, names: ['*'] });
  return out;
}

const callsServer = (imports: ApiImport[]) => imports.some((i) => !i.typeOnly && i.names.some((n) => n === '*' || CALLERS.includes(n)));
const sources = files(ROOT).map((path) => ({ path: relative(ROOT, path).split('\\').join('/'), source: readFileSync(path, 'utf8') }));

describe('islands reach the server through stores', () => {
  it('the scan reads imports the way they are written', () => {
    expect(callsServer(apiImports(`import { auth } from '../lib/api/auth.js';`))).toBe(true);
    expect(callsServer(apiImports(`import {\n  catalogue,\n} from "../../lib/api/catalogue";`))).toBe(true);
    expect(callsServer(apiImports(`import { upload as send } from '../../lib/api/upload.js';`))).toBe(true);
    expect(callsServer(apiImports(`import * as client from '../lib/api/index.js';`))).toBe(true);
    expect(callsServer(apiImports(`const m = await import('../lib/api/index.js');`))).toBe(true);
    expect(callsServer(apiImports(`import { apiFetch } from '../lib/api/transport.js';`))).toBe(true);
    expect(callsServer(apiImports(`import type { ListQuery } from '../../lib/api/transport.js';`))).toBe(false);
    expect(callsServer(apiImports(`import { type AdminMethod, errorMessage } from '../../lib/api/admin.js';`))).toBe(false);
    expect(callsServer(apiImports(`import { ApiError, errorMessage } from '../../lib/api/error.js';`))).toBe(false);
    expect(callsServer(apiImports(`import { studioApi } from '../../lib/stores/studio.js';`))).toBe(false);
    expect(callsServer(apiImports(`import { adminApi } from '../../lib/api/admin.js';`))).toBe(true);
    expect(callsServer(apiImports(`import { engagement } from '../../lib/api/engagement';`))).toBe(true);
  });

  it('no studio island imports anything but types from the API client', () => {
    const offenders = sources
      .filter((f) => f.path.startsWith('studio/'))
      .filter((f) => apiImports(f.source).some((i) => !i.typeOnly && i.names.length > 0))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
    // The scan saw the studio islands at all.
    expect(sources.filter((f) => f.path.startsWith('studio/')).length).toBeGreaterThanOrEqual(7);
  });

  it('no island anywhere calls the API client directly', () => {
    const direct = sources.filter((f) => callsServer(apiImports(f.source))).map((f) => f.path).sort();
    expect(direct).toEqual([]);
    expect(sources.length).toBeGreaterThan(40);
  });
});
