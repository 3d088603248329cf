import {
  CamelCasePlugin,
  PostgresDialect,
  PostgresQueryCompiler,
  SqliteQueryCompiler,
  type IdentifierNode,
  type PluginTransformQueryArgs,
  type QueryCompiler,
  type RootOperationNode,
} from 'kysely';

/**
 * Our code names tables and columns in camelCase and the database holds them in snake_case. Kysely's CamelCasePlugin
 * does that by rebuilding every query's whole tree of frozen nodes with each identifier renamed, before compiling
 * it: measured at 25–35 µs a statement, more than the compiling itself, on the two dozen statements of a page. Here
 * the compiler renames each identifier as it writes it (the same memoised mapping, applied to the same identifier
 * nodes: tables, columns, aliases, schemas, constraints), and the plugin is kept for the rows only.
 * `tests/unit/snake-case.test.ts` compiles a range of queries both ways and compares the SQL.
 */
/** CamelCasePlugin for the rows coming back (camelCase keys, nested objects too); the query is left to the compiler. */
export class CamelCaseRows extends CamelCasePlugin {
  override transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  /** The plugin's own (memoised) name mapping, for the compilers below. */
  toSnake(name: string): string {
    return this.snakeCase(name);
  }
}

const mapping = new CamelCaseRows();
const snakeCase = (name: string) => mapping.toSnake(name);

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
