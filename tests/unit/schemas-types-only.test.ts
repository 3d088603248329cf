import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The API's schemas (common/schemas/*) and enumerations (common/enums.ts) are zod: browser code (islands, stores,
 * clients) takes only their types, so no zod reaches a page (docs/architecture.md, API conventions). What a form
 * needs at run time lives in a module without zod (common/limits.ts, account-limits.ts). This scans the browser's
 * sources; pages and src/server run on the server only.
 */
const SRC = join(import.meta.dirname, '../../src');
const BROWSER = ['islands', 'lib'].map((d) => join(SRC, d));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.(tsx?|jsx?)$/.test(e.name) ? [join(dir, e.name)] : []));
}

const SCHEMA_IMPORT = String.raw`['"](?:\.{1,2}\/)+common\/(?:schemas\/[a-z-]+|enums)(?:\.[jt]s)?['"]`;

/** The imports of a schema or enum module that bring code with them: anything but `import type { … }`. */
function valueImports(source: string): string[] {
  const all = source.match(new RegExp(String.raw`(?:import|export)[^;'"]*?(?:from\s*)?${SCHEMA_IMPORT}|import\(\s*${SCHEMA_IMPORT}`, 'g')) ?? [];
  return all.filter((s) => !/^(?:import|export)\s+type\s/.test(s));
}

describe('browser code takes the API schemas as types only', () => {
  it('the scan reads imports the way they are written', () => {
    expect(valueImports(`import type { VideoItem } from '../../common/schemas/catalogue.js';`)).toEqual([]);
    expect(valueImports(`import type {\n  Access,\n} from "../../../common/enums";`)).toEqual([]);
    expect(valueImports(`import { type VideoItem, videoItemSchema } from '../../common/schemas/catalogue.js';`)).toHaveLength(1);
    expect(valueImports(`import { accessSchema } from '../common/enums.js';`)).toHaveLength(1);
    expect(valueImports(`export { accessSchema } from '../../common/enums.js';`)).toHaveLength(1);
    expect(valueImports(`import '../../common/schemas/auth.js';`)).toHaveLength(1);
    expect(valueImports(`const m = await import('../../common/schemas/auth.js');`)).toHaveLength(1);
    expect(valueImports(`import { COMMENT_MAX_LENGTH } from '../../common/limits.js';`)).toEqual([]);
  });

  it('no island, store or client imports a schema or enum module for its values', () => {
    const sources = BROWSER.flatMap(files).map((path) => ({ path: relative(SRC, path).split('\\').join('/'), source: readFileSync(path, 'utf8') }));
    const offenders = sources.flatMap((f) => valueImports(f.source).map((s) => `${f.path}: ${s}`));
    expect(offenders).toEqual([]);
    // The scan saw browser code that does import their types.
    expect(sources.filter((f) => new RegExp(SCHEMA_IMPORT).test(f.source)).length).toBeGreaterThan(20);
  });
});
