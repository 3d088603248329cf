import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Catalogue lists that stay flat with the catalogue's size (the bench: 10k → 1M videos).
 *
 * 1. Tag rows carry their item's sort key. `content_tags.published_at` is a copy of the tagged item's
 *    `published_at` (videos, galleries, photos, products, posts), kept by triggers on both engines (a tag row
 *    takes it when inserted; an item's insert or change of `published_at` copies it to its tag rows), so every
 *    writer (studio, seed, tests, bulk loads) keeps it right without knowing. With the index
 *    content_tags_sorted (tag, object_type, published_at, object_id), "tagged X, newest first" reads the tag's
 *    rows in order and stops after a page instead of sorting every item with the tag.
 *
 * 2. Keyword search (substring of the title, case-insensitive) gets an index (replaced by 0013's search documents,
 *    which cover names, descriptions, tags and categories of every searchable kind):
 *    - SQLite: an FTS5 trigram index of video titles (`video_search`, contentless), keyed by `video_search_ids`
 *      (a stable integer per video id: a table without an INTEGER PRIMARY KEY may get new rowids on VACUUM, so the
 *      index is not keyed by videos' rowid). The list uses it to find candidates and keeps the LIKE as the exact
 *      test (catalogue.repository.ts `matches`), so results are what LIKE alone gave.
 *    - PostgreSQL: a pg_trgm GIN index on lower(title), which the planner uses for the same LIKE. pg_trgm is a
 *      contrib extension: it is created (in schema public) only when already installed, or when this role may
 *      create it (superuser, or trusted extension with CREATE on the database and on schema public); otherwise
 *      the index is skipped and keyword search keeps working unindexed.
 */

const sorted: Array<[objectType: string, table: string]> = [
  ['video', 'videos'],
  ['gallery', 'galleries'],
  ['photo', 'photos'],
  ['product', 'products'],
  ['post', 'posts'],
];

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const run = (text: string) => sql.raw(text).execute(db);

  await db.schema.alterTable('content_tags').addColumn('published_at', 'text').execute();
  for (const [type, table] of sorted) {
    await run(`update content_tags set published_at = (select t.published_at from ${table} t where t.id = content_tags.object_id) where object_type = '${type}'`);
  }
  await db.schema.createIndex('content_tags_sorted').on('content_tags').columns(['tag', 'object_type', 'published_at', 'object_id']).execute();

  const keyOf = (rowRef: string) =>
    `case ${rowRef}.object_type ${sorted.map(([type, table]) => `when '${type}' then (select t.published_at from ${table} t where t.id = ${rowRef}.object_id)`).join(' ')} end`;

  if (pg) {
    await run(`create function content_tags_sort_key() returns trigger language plpgsql as $$
      begin
        new.published_at := ${keyOf('new')};
        return new;
      end $$`);
    await run(`create trigger content_tags_sort_key before insert on content_tags for each row execute function content_tags_sort_key()`);
    await run(`create function content_tags_follow_item() returns trigger language plpgsql as $$
      begin
        update content_tags set published_at = new.published_at
          where object_type = tg_argv[0] and object_id = new.id and published_at is distinct from new.published_at;
        return null;
      end $$`);
    for (const [type, table] of sorted) {
      await run(`create trigger ${table}_tags_sort after insert or update of published_at on ${table} for each row execute function content_tags_follow_item('${type}')`);
    }

    await run(`select pg_advisory_xact_lock(hashtext('site:pg_trgm'))`);
    const { rows } = await sql<{ installed: boolean; creatable: boolean }>`
      select exists (select 1 from pg_extension where extname = 'pg_trgm') as installed,
        exists (select 1 from pg_available_extensions where name = 'pg_trgm')
        and (coalesce((select rolsuper from pg_roles where rolname = current_user), false)
          or (coalesce((select v.trusted from pg_available_extension_versions v join pg_available_extensions a on a.name = v.name and a.default_version = v.version where v.name = 'pg_trgm'), false)
            and has_database_privilege(current_database(), 'CREATE') and has_schema_privilege('public', 'CREATE'))) as creatable`.execute(db);
    if (!rows[0]?.installed && rows[0]?.creatable) await run(`create extension if not exists pg_trgm with schema public`);
    const ext = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
    const schema = ext.rows[0]?.schema;
    if (schema) await run(`create index videos_title_trgm on videos using gin (lower(title) "${schema.replaceAll('"', '""')}".gin_trgm_ops)`);
  } else {
    await run(`create trigger content_tags_sort_key after insert on content_tags begin
      update content_tags set published_at = ${keyOf('new')}
        where tag = new.tag and object_type = new.object_type and object_id = new.object_id;
    end`);
    for (const [type, table] of sorted) {
      const body = `update content_tags set published_at = new.published_at where object_type = '${type}' and object_id = new.id;`;
      await run(`create trigger ${table}_tags_sort_insert after insert on ${table} when new.published_at is not null begin ${body} end`);
      await run(`create trigger ${table}_tags_sort_update after update of published_at on ${table} when new.published_at is not old.published_at begin ${body} end`);
    }

    await run(`create table video_search_ids (n integer primary key, video_id text not null unique)`);
    await run(`create virtual table video_search using fts5(title, content='', contentless_delete=1, tokenize='trigram')`);
    await run(`insert into video_search_ids (video_id) select id from videos order by id`);
    await run(`insert into video_search (rowid, title) select s.n, v.title from video_search_ids s join videos v on v.id = s.video_id`);
    const n = (ref: string) => `(select n from video_search_ids where video_id = ${ref}.id)`;
    await run(`create trigger videos_search_insert after insert on videos begin
      insert into video_search_ids (video_id) values (new.id);
      insert into video_search (rowid, title) values (${n('new')}, new.title);
    end`);
    await run(`create trigger videos_search_title after update of title on videos begin
      delete from video_search where rowid = ${n('old')};
      insert into video_search (rowid, title) values (${n('new')}, new.title);
    end`);
    await run(`create trigger videos_search_delete after delete on videos begin
      delete from video_search where rowid = ${n('old')};
      delete from video_search_ids where video_id = old.id;
    end`);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  if (isPostgres(db)) {
    await run(`drop index if exists videos_title_trgm`);
    for (const [, table] of sorted) await run(`drop trigger if exists ${table}_tags_sort on ${table}`);
    await run(`drop trigger if exists content_tags_sort_key on content_tags`);
    await run(`drop function if exists content_tags_follow_item()`);
    await run(`drop function if exists content_tags_sort_key()`);
  } else {
    for (const t of ['videos_search_delete', 'videos_search_title', 'videos_search_insert', 'content_tags_sort_key']) await run(`drop trigger if exists ${t}`);
    for (const [, table] of sorted) {
      await run(`drop trigger if exists ${table}_tags_sort_insert`);
      await run(`drop trigger if exists ${table}_tags_sort_update`);
    }
    await run(`drop table if exists video_search`);
    await run(`drop table if exists video_search_ids`);
  }
  await db.schema.dropIndex('content_tags_sorted').ifExists().execute();
  await db.schema.alterTable('content_tags').dropColumn('published_at').execute();
}
