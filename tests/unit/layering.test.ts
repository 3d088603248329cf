import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The layering rules of docs/architecture.md (Layering), checked on the source of the application: server/, src/
 * and common/. Files are parsed with the TypeScript compiler (an .astro file: its frontmatter and <script> blocks;
 * its template is searched as text), so comments and strings never count.
 *
 * 1. SQL only in repositories. Outside `*.repository.ts`, server/db/ (the database layer and its migrations) and
 *    server/seed/ (demo data), no file
 *    - calls a Kysely query builder: selectFrom, insertInto, updateTable, deleteFrom, replaceInto, mergeInto, selectNoFrom;
 *    - runs or compiles a built query: executeTakeFirst, executeTakeFirstOrThrow, executeQuery, compile(), or execute()
 *      on anything but a transaction or connection (`db.transaction().execute(fn)` opens one: a route or use case owns
 *      its transaction and hands `trx` to the repositories);
 *    - imports anything but types from kysely (the `sql` template, `CompiledQuery.raw`, expression helpers), or uses
 *      an `sql` tag or `sql.*` helper got some other way.
 * 2. The web side calls services. Nothing under src/ (pages, components, layouts, the middleware, src/server, and the
 *    browser code) imports a repository, a route module or kysely, not even a type.
 * 3. One place reads the environment. Only server/config.ts reads process.env; setting a variable is not reading
 *    (server/app.ts sets ASTRO_NODE_AUTOSTART for Astro's entry). The entry points that read it on their own are
 *    outside the application and outside this scan: tests/ (test files and their helpers choose the services they
 *    run against and hand child processes their environment), tests/load and tests/bench (command-line tools run by
 *    npm scripts) and astro.config.mjs (the build). `EXEMPT_ENV` lists what is still waiting for its move, and fails
 *    once the file no longer reads it.
 */

const ROOT = join(import.meta.dirname, '../..');
const SCANNED = ['server', 'src', 'common'];

/** Reads of process.env still allowed outside server/config.ts, with why; each entry must still be needed. */
const EXEMPT_ENV: Record<string, string> = {};

const BUILDERS = new Set(['selectFrom', 'insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto', 'selectNoFrom']);
const RUNNERS = new Set(['executeTakeFirst', 'executeTakeFirstOrThrow', 'executeQuery']);
const SQL_IN_TEXT = /\.\s*(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|selectNoFrom|executeTakeFirst|executeTakeFirstOrThrow|executeQuery)\s*\(|\bsql\s*(`|<|\.\w+\s*\()/;

type Rule = 'sql' | 'web-import' | 'env';
interface Violation {
  rule: Rule;
  file: string;
  line: number;
  what: string;
}

const mayBuildSql = (file: string) => file.endsWith('.repository.ts') || file.startsWith('server/db/') || file.startsWith('server/seed/');
const isWebSide = (file: string) => file.startsWith('src/');
const mayReadEnv = (file: string) => file === 'server/config.ts';
const isKysely = (spec: string) => spec === 'kysely' || spec.startsWith('kysely/');
const forbiddenOnWebSide = (spec: string) => isKysely(spec) || /\.(repository|routes)(\.[cm]?[jt]s)?$/.test(spec);

/** `x.transaction().execute(…)`, `x.transaction().setIsolationLevel(…).execute(…)`, `x.connection().execute(…)`, `this.execute(…)`. */
function opensTransaction(receiver: ts.Expression): boolean {
  if (receiver.kind === ts.SyntaxKind.ThisKeyword) return true;
  for (let e: ts.Expression = receiver; ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression); e = e.expression.expression) {
    if (['transaction', 'connection'].includes(e.expression.name.text)) return true;
  }
  return false;
}

/** `process.env.X = …`, `process.env[X] = …`, `delete process.env.X`: a write, not a read. */
function writesEnv(envNode: ts.Node): boolean {
  const member = envNode.parent;
  if (!member || !(ts.isPropertyAccessExpression(member) || ts.isElementAccessExpression(member)) || member.expression !== envNode) return false;
  const p = member.parent;
  if (p && ts.isBinaryExpression(p) && p.left === member && p.operatorToken.kind === ts.SyntaxKind.EqualsToken) return true;
  return Boolean(p && ts.isDeleteExpression(p));
}

function scanCode(file: string, code: string, lineOffset: number, out: Violation[]): void {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const add = (rule: Rule, node: ts.Node, what: string) =>
    out.push({ rule, file, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 + lineOffset, what });
  const sqlAllowed = mayBuildSql(file);
  const web = isWebSide(file);

  const checkImport = (node: ts.Node, spec: string, typeOnly: boolean) => {
    if (web && forbiddenOnWebSide(spec)) add('web-import', node, `imports ${spec}`);
    else if (!sqlAllowed && isKysely(spec) && !typeOnly) add('sql', node, `imports values from ${spec}`);
  };

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const typeOnly = Boolean(
        clause && (clause.isTypeOnly || (!clause.name && named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly))),
      );
      checkImport(node, node.moduleSpecifier.text, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause;
      const typeOnly = node.isTypeOnly || Boolean(named && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly));
      checkImport(node, node.moduleSpecifier.text, typeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      checkImport(node, node.argument.literal.text, true);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
        checkImport(node, node.arguments[0].text, false);
      } else if (ts.isPropertyAccessExpression(callee) && !sqlAllowed) {
        const name = callee.name.text;
        if (BUILDERS.has(name)) add('sql', node, `builds a query (.${name})`);
        else if (RUNNERS.has(name)) add('sql', node, `runs a query (.${name})`);
        else if (name === 'compile' && node.arguments.length === 0) add('sql', node, 'compiles a query (.compile())');
        else if (name === 'execute' && !opensTransaction(callee.expression)) add('sql', node, 'runs a query (.execute() on what is not a transaction)');
        else if (ts.isIdentifier(callee.expression) && callee.expression.text === 'sql') add('sql', node, `uses sql.${name}`);
      }
    } else if (ts.isTaggedTemplateExpression(node) && !sqlAllowed) {
      const tag = ts.isPropertyAccessExpression(node.tag) ? node.tag.expression : node.tag;
      if (ts.isIdentifier(tag) && tag.text === 'sql') add('sql', node, 'writes an sql`…` template');
    } else if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'process' && node.name.text === 'env') {
      if (!mayReadEnv(file) && !writesEnv(node)) add('env', node, 'reads process.env');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** Every violation of the rules in one file (`file` relative to the repository root, `/`-separated). */
function scanSource(file: string, text: string): Violation[] {
  const out: Violation[] = [];
  if (!file.endsWith('.astro')) {
    scanCode(file, text, 0, out);
    return out;
  }
  // The frontmatter and every <script> block are code; what remains (the template) is searched as text.
  const lineOf = (index: number) => text.slice(0, index).split('\n').length - 1;
  let template = text;
  const blocks = [...text.matchAll(/^---\r?\n([\s\S]*?)\r?\n---\s*$/gm), ...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)];
  for (const m of blocks) {
    const start = m.index! + m[0].indexOf(m[1]!);
    scanCode(`${file}.ts`, m[1]!, lineOf(start), out);
    template = template.replace(m[0], (s) => s.replace(/[^\n]/g, ' '));
  }
  for (const v of out) v.file = file;
  template.split('\n').forEach((line, i) => {
    if (!mayBuildSql(file) && SQL_IN_TEXT.test(line)) out.push({ rule: 'sql', file, line: i + 1, what: 'builds or runs SQL in its template' });
    if (!mayReadEnv(file) && /\bprocess\.env\b/.test(line)) out.push({ rule: 'env', file, line: i + 1, what: 'reads process.env in its template' });
  });
  return out;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : files(full);
    return /\.(tsx?|mts|cts|mjs|cjs|jsx?|astro)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

const sources = SCANNED.flatMap((top) => files(join(ROOT, top))).map((path) => ({ file: relative(ROOT, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }));
const found = sources.flatMap((s) => scanSource(s.file, s.text));
const describeAll = (vs: Violation[]) => vs.map((v) => `${v.file}:${v.line} ${v.what}`);
const rulesIn = (file: string, text: string) => [...new Set(scanSource(file, text).map((v) => v.rule))];

describe('layering (docs/architecture.md)', () => {
  it('the scan finds each kind of violation and lets the allowed forms pass', () => {
    const service = 'server/things/things.service.ts';
    // SQL outside a repository, in each of its forms.
    expect(rulesIn(service, `await db.selectFrom('users').selectAll().execute();`)).toEqual(['sql']);
    expect(rulesIn(service, `await trx\n  .updateTable('files')\n  .set({ status: 'ready' })\n  .execute();`)).toEqual(['sql']);
    expect(rulesIn(service, `const n = await listQuery(db).count.executeTakeFirst();`)).toEqual(['sql']);
    expect(rulesIn(service, `const rows = await query.execute();`)).toEqual(['sql']);
    expect(rulesIn(service, `cache.get(query.compile(), load);`)).toEqual(['sql']);
    expect(rulesIn(service, `import { sql } from 'kysely';`)).toEqual(['sql']);
    expect(rulesIn(service, `import { type Kysely, sql as s } from 'kysely';`)).toEqual(['sql']);
    expect(rulesIn(service, `import * as k from 'kysely';`)).toEqual(['sql']);
    expect(rulesIn(service, `await sql\`select 1\`.execute(db);`)).toEqual(['sql']);
    expect(rulesIn(service, `const r = sql.ref('x');`)).toEqual(['sql']);
    // … and what is not SQL, or is where SQL belongs.
    expect(rulesIn(service, `await db.transaction().execute(async (trx) => insertThing(trx, row));`)).toEqual([]);
    expect(rulesIn(service, `await db.transaction().setIsolationLevel('serializable').execute(fn);`)).toEqual([]);
    expect(rulesIn(service, `this.execute(job);`)).toEqual([]);
    expect(rulesIn(service, `import type { Transaction } from 'kysely';\nimport { type Insertable } from 'kysely';\ntype S = import('kysely').Selectable<T>;`)).toEqual([]);
    expect(rulesIn(service, `// db.selectFrom('users') in a comment\nconst s = "deleteFrom('x')"; proxyAddr.compile(list);`)).toEqual([]);
    expect(rulesIn('server/things/things.repository.ts', `import { sql } from 'kysely';\nexport const all = (db) => db.selectFrom('t').selectAll().execute();`)).toEqual([]);
    expect(rulesIn('server/db/migrations/0001_x.ts', `await sql\`create table x (id text)\`.execute(db);`)).toEqual([]);

    // The web side importing a repository, a route module or kysely, whatever the form.
    const page = 'src/pages/things.astro';
    expect(rulesIn(page, `---\nimport { listThings } from '../../server/things/things.repository.js';\n---\n<p>hi</p>`)).toEqual(['web-import']);
    expect(rulesIn(page, `---\nimport { thingTotals } from '../../server/things/things.routes.js';\n---`)).toEqual(['web-import']);
    expect(rulesIn('src/components/Thing.astro', `---\nimport type { Kysely } from 'kysely';\n---`)).toEqual(['web-import']);
    expect(rulesIn('src/server/thing-page.ts', `export type Row = import('../../server/things/things.repository.js').ThingRow;`)).toEqual(['web-import']);
    expect(rulesIn('src/middleware.ts', `const repo = await import('../server/things/things.repository.js');`)).toEqual(['web-import']);
    expect(rulesIn(page, `---\nimport { listThings } from '../../server/things/things.service.js';\n---`)).toEqual([]);
    // A page building SQL itself breaks the SQL rule, in its frontmatter or its template.
    expect(rulesIn(page, `---\nconst { ctx } = Astro.locals;\nconst n = await ctx.db.selectFrom('things').selectAll().execute();\n---`)).toEqual(['sql']);
    expect(rulesIn(page, `---\n---\n<p>{await Astro.locals.ctx.db.selectFrom('things').selectAll().execute()}</p>`)).toEqual(['sql']);

    // process.env read outside server/config.ts; writing is allowed.
    expect(rulesIn('server/app.ts', `const dist = process.env.ASTRO_DIST ?? 'dist';`)).toEqual(['env']);
    expect(rulesIn('server/media/ffmpeg.ts', `const { PATH } = process.env;`)).toEqual(['env']);
    expect(rulesIn('server/x.ts', `function f(env = process.env) {}`)).toEqual(['env']);
    expect(rulesIn('src/pages/x.astro', `---\nconst k = process.env.SECRET;\n---`)).toEqual(['env']);
    expect(rulesIn('server/app.ts', `process.env.ASTRO_NODE_AUTOSTART = 'disabled';\ndelete process.env.X;`)).toEqual([]);
    expect(rulesIn('server/config.ts', `export const load = (env = process.env) => env.PORT;`)).toEqual([]);

    // Lines are reported where they are.
    expect(scanSource(page, `---\nimport Layout from '../layouts/L.astro';\nimport { x } from '../../server/a/a.repository.js';\n---`)[0]).toMatchObject({ line: 3 });
  });

  it('no file outside the repositories, server/db and the seed builds or runs SQL', () => {
    expect(describeAll(found.filter((v) => v.rule === 'sql'))).toEqual([]);
    // The scan reached the code and would have seen the repositories' SQL had it been elsewhere.
    expect(sources.length).toBeGreaterThan(300);
    const repositories = sources.filter((s) => s.file.endsWith('.repository.ts'));
    const wouldFlag = repositories.filter((s) => scanSource(s.file.replace(/\.repository\.ts$/, '.service.ts'), s.text).some((v) => v.rule === 'sql'));
    expect(wouldFlag.length).toBe(repositories.length);
    expect(repositories.length).toBeGreaterThan(30);
  });

  it('pages, components, layouts, the middleware and src/server import no repository, route module or kysely', () => {
    expect(describeAll(found.filter((v) => v.rule === 'web-import'))).toEqual([]);
    expect(sources.filter((s) => s.file.startsWith('src/pages/') && s.file.endsWith('.astro')).length).toBeGreaterThan(50);
    expect(sources.some((s) => s.file === 'src/middleware.ts')).toBe(true);
  });

  it('only server/config.ts reads process.env', () => {
    const reads = found.filter((v) => v.rule === 'env');
    expect(describeAll(reads.filter((v) => !(v.file in EXEMPT_ENV)))).toEqual([]);
    // An exemption whose file no longer reads the environment goes.
    const stale = Object.keys(EXEMPT_ENV).filter((file) => !reads.some((v) => v.file === file));
    expect(stale).toEqual([]);
    // config.ts itself is read: it does read the environment.
    const config = sources.find((s) => s.file === 'server/config.ts')!;
    expect(scanSource('server/app.ts', config.text).filter((v) => v.rule === 'env').length).toBeGreaterThan(0);
  });
});
