import { CompiledQuery, sql } from 'kysely';
import { openDatabase } from './server/db/database.js';
import { migrateToLatest } from './server/db/migrate.js';
import { generateLargeCatalogue } from './tests/bench/generate.js';
import { createPgSchema } from './tests/helpers/server-process.js';
const url = process.env.DATABASE_URL!;
const pg = await createPgSchema(url, 'scratch');
const database = await openDatabase({ databaseUrl: url, pgSchema: pg.schema });
try {
  await migrateToLatest(database.db, { schema: pg.schema });
  await generateLargeCatalogue(database.db, { performers: 200, videos: Number(process.env.N ?? 5000), bigPerformerVideos: 100 });
  await sql`analyze`.execute(database.db);
  const db = database.db;
  const show = async (text: string) => db.connection().execute(async (c) => {
    await sql`set enable_seqscan = off`.execute(c);
    const r = await c.executeQuery<Record<string, string>>(CompiledQuery.raw('explain ' + text));
    console.log(r.rows.map((x) => Object.values(x)[0]).join('\n'));
  });
  console.log((await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = 'search_documents'`.execute(db)).rows);
  await show(`select object_id from search_documents where lower(document) like '%qzxw%'`);
  await show(`select object_id from search_documents where lower(document) like '%qzxw%' and object_type = 'video'`);
} finally {
  await database.close();
  await pg.drop();
}
