import {
  CamelCasePlugin,
  PostgresDialect,
  PostgresQueryCompiler,
  SqliteQueryCompiler,
  type IdentifierNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type UnknownRow,
  type QueryCompiler,
  type RootOperationNode,
} from 'kysely';
import { rowBuilder } from './row-builder.js';

/**
 * Our code names tables and columns in camelCase and the database holds them in snake_case. Kysely's CamelCasePlugin
 * does that by rebuilding every query's whole tree of frozen nodes with each identifier renamed, before compiling
 * it: measured at 25–35 µs a statement, more than the compiling itself, on the two dozen statements of a page. Here
 * the compiler renames each identifier as it writes it (the same memoised mapping, applied to the same identifier
 * nodes: tables, columns, aliases, schemas, constraints), and the plugin is kept for the rows only.
 * `tests/unit/snake-case.test.ts` compiles a range of queries both ways and compares the SQL.
 */
/**
 * CamelCasePlugin for the rows coming back (camelCase keys, nested objects too); the query is left to the compiler.
 * A result's rows share their columns: they are built by one compiled builder (./row-builder.ts), each nested object
 * (PostgreSQL's json) mapped as the plugin maps it.
 */
export class CamelCaseRows extends CamelCasePlugin {
  override transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  override async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const rows = args.result.rows;
    if (!Array.isArray(rows) || rows.length === 0) return args.result;
    const keys = Object.keys(rows[0]!);
    const build = rowBuilder('camel', keys, () => keys.map((k) => this.camelCase(k)), nestedRows);
    return { ...args.result, rows: rows.map(build) };
  }

  /** The plugin's own mapping of one object's keys, for the nested values of a row (below). */
  camelObject(value: Record<string, unknown>): Record<string, unknown> {
    return this.mapRow(value);
  }

  /** The plugin's own (memoised) name mapping, for the compilers below. */
  toSnake(name: string): string {
    return this.snakeCase(name);
  }
}

const mapping = new CamelCaseRows();
const snakeCase = (name: string) => mapping.toSnake(name);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object') return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A column's value with the keys of the objects in it camelCased, as CamelCasePlugin's `mapRow` does. */
function nestedRows(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((it) => (isPlainObject(it) ? mapping.camelObject(it) : it));
  return isPlainObject(value) ? mapping.camelObject(value) : value;
}

export class SnakeCaseSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override compileUnwrappedIdentifier(node: IdentifierNode): void {
    this.append(this.sanitizeIdentifier(snakeCase(node.name)));
  }
}

export class SnakeCasePostgresQueryCompiler extends PostgresQueryCompiler {
  protected override compileUnwrappedIdentifier(node: IdentifierNode): void {
    this.append(this.sanitizeIdentifier(snakeCase(node.name)));
  }
}

export class SnakeCasePostgresDialect extends PostgresDialect {
  override createQueryCompiler(): QueryCompiler {
    return new SnakeCasePostgresQueryCompiler();
  }
}
