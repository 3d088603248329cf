import { describe, expect, it } from 'vitest';
import {
  CamelCasePlugin,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
  type CompiledQuery,
  type Dialect,
  type QueryCompiler,
  type QueryResult,
  type QueryId,
} from 'kysely';
import { CamelCaseRows, SnakeCasePostgresQueryCompiler, SnakeCaseSqliteQueryCompiler } from '../../server/db/snake-case.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- queries over tables the test makes up */
type Db = Kysely<any>;

const dialect = (engine: 'sqlite' | 'postgres', compiler: () => QueryCompiler): Dialect => ({
  createAdapter: () => (engine === 'sqlite' ? new SqliteAdapter() : new PostgresAdapter()),
  createDriver: () => new DummyDriver(),
  createIntrospector: (db) => (engine === 'sqlite' ? new SqliteIntrospector(db) : new PostgresIntrospector(db)),
  createQueryCompiler: compiler,
});

/** Kysely's own way (the plugin renames the tree) and ours (the compiler renames as it writes), per engine. */
const engines = {
  sqlite: {
    plugin: new Kysely<any>({ dialect: dialect('sqlite', () => new SqliteQueryCompiler()), plugins: [new CamelCasePlugin()] }),
    compiler: new Kysely<any>({ dialect: dialect('sqlite', () => new SnakeCaseSqliteQueryCompiler()), plugins: [new CamelCaseRows()] }),
  },
  postgres: {
    plugin: new Kysely<any>({ dialect: dialect('postgres', () => new PostgresQueryCompiler()), plugins: [new CamelCasePlugin()] }),
    compiler: new Kysely<any>({ dialect: dialect('postgres', () => new SnakeCasePostgresQueryCompiler()), plugins: [new CamelCaseRows()] }),
  },
};

// Every place an identifier can stand: tables, aliases, columns, schemas, CTEs, constraints, indexes, refs in raw SQL.
const queries: Record<string, (db: Db) => { compile(): CompiledQuery }> = {
  'select with joins, aliases, order and paging': (db) =>
    db
      .selectFrom('videos as v')
      .innerJoin('performers as p', 'p.id', 'v.performerId')
      .leftJoin('fileRecords as thumbFile', 'thumbFile.id', 'v.thumbnailFileId')
      .select(['v.id', 'v.title', 'v.likeCount', 'p.displayName as performerName', 'thumbFile.storageKey'])
      .where('v.performerId', '=', 5)
      .where('v.publishedAt', '<=', '2026-11-27')
      .orderBy('v.publishedAt', 'desc')
      .limit(12)
      .offset(24),
  'aggregates, group by, having, selectAll': (db) =>
    db
      .selectFrom('reactions')
      .select((eb) => ['objectType', eb.fn.count<number>('id').as('reactionCount'), eb.fn.max('createdAt').as('lastReactedAt')])
      .groupBy('objectType')
      .having((eb) => eb.fn.count('id'), '>', 1),
  'subqueries, exists, with': (db) =>
    db
      .with('recentVideos', (qb) => qb.selectFrom('videos').select(['id', 'performerId']).where('createdAt', '>', '2026'))
      .selectFrom('recentVideos as rv')
      .selectAll('rv')
      .where((eb) => eb.exists(eb.selectFrom('subscriptions as s').select('s.id').whereRef('s.performerId', '=', 'rv.performerId')))
      .where('rv.id', 'in', (eb: any) => eb.selectFrom('videoViews').select('videoId')),
  'insert on conflict returning': (db) =>
    db
      .insertInto('videoViews')
      .values({ videoId: 1, viewerKey: 'u:2', createdAt: '2026' })
      .onConflict((oc) => oc.columns(['videoId', 'viewerKey']).doUpdateSet({ createdAt: (eb: any) => eb.ref('excluded.createdAt') }))
      .returning(['id', 'viewerKey']),
  'update with expressions': (db) =>
    db
      .updateTable('performers')
      .set((eb: any) => ({ followerCount: eb('followerCount', '+', 1), updatedAt: '2026' }))
      .where('userId', '=', 3),
  'delete with a subquery': (db) =>
    db.deleteFrom('reactions').where('objectId', 'in', (eb: any) => eb.selectFrom('posts').select('id').where('performerId', '=', 1)),
  'raw SQL with refs, tables and ids': (db) => ({
    compile: () => sql`select ${sql.ref('v.performerId')}, ${sql.id('likeCount')} from ${sql.table('videoViews')} as v where ${sql.ref('createdAt')} > ${'2026'}`.compile(db),
  }),
  'a schema and a table name': (db) => db.withSchema('tenantOne').selectFrom('auditLog').select('actorId'),
  'create table with constraints': (db) =>
    db.schema
      .createTable('payoutRequests')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('performerId', 'integer', (c) => c.notNull().references('performers.userId').onDelete('cascade'))
      .addColumn('requestedAt', 'text')
      .addUniqueConstraint('payoutRequestsPerformerUnique', ['performerId', 'requestedAt'])
      .addForeignKeyConstraint('payoutRequestsPerformerFk', ['performerId'], 'performers', ['userId']),
  'create index, alter and rename': (db) => db.schema.createIndex('videosByPerformerId').on('videos').columns(['performerId', 'publishedAt']),
  'alter table': (db) => db.schema.alterTable('videos').renameColumn('viewCount', 'playCount'),
};

describe('snake_case identifiers written by the compiler', () => {
  for (const [engine, dbs] of Object.entries(engines)) {
    for (const [name, build] of Object.entries(queries)) {
      it(`${engine}: ${name} compiles to the SQL of Kysely's CamelCasePlugin`, () => {
        const ours = build(dbs.compiler).compile();
        const theirs = build(dbs.plugin).compile();
        expect(ours.sql).toBe(theirs.sql);
        expect(ours.parameters).toEqual(theirs.parameters);
        // Not vacuous: a camelCase name was there to rename.
        expect(ours.sql).toMatch(/_[a-z]/);
      });
    }
  }

  it('rows come back with camelCase keys, nested objects too (what PostgreSQL returns for json columns)', async () => {
    const result: QueryResult<any> = { rows: [{ video_id: 1, meta_data: { file_name: 'a', sizes: [{ pixel_width: 2 }] } }] };
    const mapped = await new CamelCaseRows().transformResult({ result, queryId: { queryId: 'q' } as QueryId });
    expect(mapped.rows).toEqual([{ videoId: 1, metaData: { fileName: 'a', sizes: [{ pixelWidth: 2 }] } }]);
  });

  it("builds every row as Kysely's CamelCasePlugin does: several rows, nulls, buffers, arrays, json, a repeated and an odd column", async () => {
    const row = (i: number) => ({
      id: i, published_at: `2026-0${i}`, file_id: null, thumb_blob: Buffer.from([i]), tag_list: ['a', { tag_name: 'b' }],
      meta_data: { file_name: 'x', nested_list: [{ pixel_width: i }] }, 'odd "name"': i, __proto__x: i, created: new Date(0),
    });
    const result: QueryResult<any> = { rows: [row(1), row(2), row(3)] };
    const ours = await new CamelCaseRows().transformResult({ result, queryId: { queryId: 'q' } as QueryId });
    const theirs = await new CamelCasePlugin().transformResult({ result, queryId: { queryId: 'q' } as QueryId });
    expect(ours.rows).toEqual(theirs.rows);
    expect(Object.keys(ours.rows[0]!)).toEqual(Object.keys(theirs.rows[0]!));
    expect(ours.rows[2]).toMatchObject({ id: 3, publishedAt: '2026-03', fileId: null, metaData: { nestedList: [{ pixelWidth: 3 }] } });
    // An empty result and a write's result without rows (its count of rows changed) pass through as they are.
    expect((await new CamelCaseRows().transformResult({ result: { rows: [] }, queryId: { queryId: 'q' } as QueryId })).rows).toEqual([]);
    const write: QueryResult<any> = { rows: [], numAffectedRows: 2n };
    expect(await new CamelCaseRows().transformResult({ result: write, queryId: { queryId: 'q' } as QueryId })).toBe(write);
  });

  it('the query tree is handed on untouched: no second renaming', () => {
    const node = engines.sqlite.compiler.selectFrom('videoViews').select('videoId').toOperationNode();
    expect(new CamelCaseRows().transformQuery({ node, queryId: { queryId: 'q' } as QueryId })).toBe(node);
  });
});
