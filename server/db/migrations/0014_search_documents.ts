import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Keyword search looks beyond titles: a performer is found by name, username, bio, tags and category names; a video,
 * gallery, product or post by its title (a product's name), description (a post's excerpt), tags and category names.
 * The rule itself (what matches, how results rank) is `keywordMatch` in server/catalogue/search.repository.ts and
 * stays an exact LIKE over those fields; this migration gives it a candidate finder that covers all of them:
 *
 * A search document per searchable item: its searched text in one string (fields separated by line breaks), kept by
 * triggers on both engines so that every writer (studio, seed, tests, bulk loads, admin renaming a category) keeps it
 * right without knowing. An item's insert, delete or change of a searched column rewrites its document; so does a
 * tag or category link added or removed, and a category renamed rewrites the documents of everything in it.
 *    - SQLite: an FTS5 trigram index (`search_fts`, contentless: the text lives in the items) keyed by
 *      `search_keys` (a stable integer per item, as 0007's video_search_ids).
 *    - PostgreSQL: a table `search_documents` with a pg_trgm GIN index on lower(document), when pg_trgm is (or may be)
 *      installed; without it the table is still kept and searched unindexed, so search keeps working.
 * A document holds each field verbatim, so an item whose field contains the keyword has a document that contains it:
 * the index finds a superset of the matches, and the LIKE decides. Photos are not searched.
 *
 * It replaces 0007's title-only index of videos (video_search on SQLite, videos_title_trgm on PostgreSQL): the
 * documents hold the titles, and two indexes would double every write.
 */

interface Kind {
  type: string;
  table: string;
  /** Searched columns of the item's own row. */
  columns: string[];
}

/** Keep in step with `searchables` in server/catalogue/search.repository.ts (tests/api/search-index.test.ts checks they agree). */
const kinds: Kind[] = [
  { type: 'performer', table: 'performers', columns: ['display_name', 'username', 'bio'] },
  { type: 'video', table: 'videos', columns: ['title', 'description'] },
  { type: 'gallery', table: 'galleries', columns: ['title', 'description'] },
  { type: 'product', table: 'products', columns: ['name', 'description'] },
  { type: 'post', table: 'posts', columns: ['title', 'excerpt'] },
];
const typeList = kinds.map((k) => `'${k.type}'`).join(', ');

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

/** The document of item `idRef` of kind `k`: its columns, tags and category names, one per line (null: no such item). */
function documentOf(k: Kind, idRef: string, pg: boolean): string {
  const nl = pg ? 'chr(10)' : 'char(10)';
  const agg = (expr: string) => (pg ? `string_agg(${expr}, chr(10))` : `group_concat(${expr}, char(10))`);
  const tags = `(select ${agg('ct.tag')} from content_tags ct where ct.object_type = '${k.type}' and ct.object_id = t.id)`;
  const categories = `(select ${agg('c.name')} from content_categories cc join categories c on c.id = cc.category_id where cc.object_type = '${k.type}' and cc.object_id = t.id)`;
  const parts = [...k.columns.map((c) => `t.${c}`), tags, categories].map((p) => `coalesce(${p}, '')`);
  return `(select ${parts.join(` || ${nl} || `)} from ${k.table} t where t.id = ${idRef})`;
}

/** The document of any searchable item, by its type and id expressions. */
function documentOfAny(typeRef: string, idRef: string, pg: boolean): string {
  return `case ${typeRef} ${kinds.map((k) => `when '${k.type}' then ${documentOf(k, idRef, pg)}`).join(' ')} end`;
}

export async function up(db: Kysely<any>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);

  if (isPostgres(db)) {
    await run(`drop index if exists videos_title_trgm`);
    // Keyed by id first: an index led by object_type would tempt the planner to read every document of a kind and
    // test each, instead of asking the trigram index.
    await run(`create table search_documents (object_type text not null, object_id text not null, document text not null, primary key (object_id, object_type))`);
    await run(`insert into search_documents (object_type, object_id, document)
      ${kinds.map((k) => `select '${k.type}', i.id, ${documentOf(k, 'i.id', true)} from ${k.table} i`).join(' union all ')}`);

    await run(`create function search_document_refresh(kind text, item text) returns void language plpgsql as $$
      declare doc text;
      begin
        doc := ${documentOfAny('kind', 'item', true)};
        if doc is null then
          delete from search_documents where object_type = kind and object_id = item;
        else
          insert into search_documents (object_type, object_id, document) values (kind, item, doc)
            on conflict (object_id, object_type) do update set document = excluded.document where search_documents.document is distinct from excluded.document;
        end if;
      end $$`);
    await run(`create function search_item_changed() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          delete from search_documents where object_type = tg_argv[0] and object_id = old.id;
        else
          perform search_document_refresh(tg_argv[0], new.id);
        end if;
        return null;
      end $$`);
    for (const k of kinds) {
      await run(`create trigger ${k.table}_search after insert or delete or update of ${k.columns.join(', ')} on ${k.table} for each row execute function search_item_changed('${k.type}')`);
    }
    // Tag and category links: only inserted and deleted (content_tags' published_at updates are not searched text).
    await run(`create function search_link_changed() returns trigger language plpgsql as $$
      begin
        if tg_op = 'DELETE' then
          if old.object_type in (${typeList}) then perform search_document_refresh(old.object_type, old.object_id); end if;
        elsif new.object_type in (${typeList}) then
          perform search_document_refresh(new.object_type, new.object_id);
        end if;
        return null;
      end $$`);
    await run(`create trigger content_tags_search after insert or delete on content_tags for each row execute function search_link_changed()`);
    await run(`create trigger content_categories_search after insert or delete on content_categories for each row execute function search_link_changed()`);
    await run(`create function search_category_renamed() returns trigger language plpgsql as $$
      declare r record;
      begin
        for r in select cc.object_type, cc.object_id from content_categories cc where cc.category_id = new.id and cc.object_type in (${typeList}) loop
          perform search_document_refresh(r.object_type, r.object_id);
        end loop;
        return null;
      end $$`);
    await run(`create trigger categories_search after update of name on categories for each row when (new.name is distinct from old.name) execute function search_category_renamed()`);

    // pg_trgm as in 0007: created only when this role may (it may have become available since).
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
    if (schema) await run(`create index search_documents_trgm on search_documents using gin (lower(document) "${schema.replaceAll('"', '""')}".gin_trgm_ops)`);
    return;
  }

  for (const t of ['videos_search_delete', 'videos_search_title', 'videos_search_insert']) await run(`drop trigger if exists ${t}`);
  await run(`drop table if exists video_search`);
  await run(`drop table if exists video_search_ids`);

  await run(`create table search_keys (n integer primary key, object_type text not null, object_id text not null, unique (object_type, object_id))`);
  await run(`create virtual table search_fts using fts5(document, content='', contentless_delete=1, tokenize='trigram')`);
  for (const k of kinds) await run(`insert into search_keys (object_type, object_id) select '${k.type}', id from ${k.table} order by id`);
  await run(`insert into search_fts (rowid, document) select sk.n, ${documentOfAny('sk.object_type', 'sk.object_id', false)} from search_keys sk`);

  const key = (type: string, id: string) => `(select n from search_keys where object_type = ${type} and object_id = ${id})`;
  /** Rewrites the document of the item (type, id), if it is a searchable item. */
  const refresh = (type: string, id: string) => `
    delete from search_fts where rowid = ${key(type, id)};
    insert into search_fts (rowid, document) select sk.n, ${documentOfAny('sk.object_type', 'sk.object_id', false)} from search_keys sk where sk.object_type = ${type} and sk.object_id = ${id};`;
  for (const k of kinds) {
    const type = `'${k.type}'`;
    await run(`create trigger ${k.table}_search_insert after insert on ${k.table} begin
      insert into search_keys (object_type, object_id) values (${type}, new.id);
      insert into search_fts (rowid, document) values (${key(type, 'new.id')}, ${documentOf(k, 'new.id', false)});
    end`);
    await run(`create trigger ${k.table}_search_update after update of ${k.columns.join(', ')} on ${k.table} begin ${refresh(type, 'new.id')} end`);
    await run(`create trigger ${k.table}_search_delete after delete on ${k.table} begin
      delete from search_fts where rowid = ${key(type, 'old.id')};
      delete from search_keys where object_type = ${type} and object_id = old.id;
    end`);
  }
  for (const table of ['content_tags', 'content_categories']) {
    await run(`create trigger ${table}_search_insert after insert on ${table} when new.object_type in (${typeList}) begin ${refresh('new.object_type', 'new.object_id')} end`);
    await run(`create trigger ${table}_search_delete after delete on ${table} when old.object_type in (${typeList}) begin ${refresh('old.object_type', 'old.object_id')} end`);
  }
  const inCategory = `select sk.n from search_keys sk join content_categories cc on cc.object_type = sk.object_type and cc.object_id = sk.object_id where cc.category_id = new.id`;
  await run(`create trigger categories_search_rename after update of name on categories when new.name is not old.name begin
    delete from search_fts where rowid in (${inCategory});
    insert into search_fts (rowid, document) select sk.n, ${documentOfAny('sk.object_type', 'sk.object_id', false)} from search_keys sk where sk.n in (${inCategory});
  end`);
}

export async function down(db: Kysely<any>): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  if (isPostgres(db)) {
    for (const k of kinds) await run(`drop trigger if exists ${k.table}_search on ${k.table}`);
    await run(`drop trigger if exists content_tags_search on content_tags`);
    await run(`drop trigger if exists content_categories_search on content_categories`);
    await run(`drop trigger if exists categories_search on categories`);
    for (const f of ['search_category_renamed()', 'search_link_changed()', 'search_item_changed()', 'search_document_refresh(text, text)']) await run(`drop function if exists ${f}`);
    await run(`drop table if exists search_documents`);
    // 0007's title index, when pg_trgm is there.
    const ext = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
    const schema = ext.rows[0]?.schema;
    if (schema) await run(`create index if not exists videos_title_trgm on videos using gin (lower(title) "${schema.replaceAll('"', '""')}".gin_trgm_ops)`);
    return;
  }
  for (const k of kinds) for (const op of ['insert', 'update', 'delete']) await run(`drop trigger if exists ${k.table}_search_${op}`);
  for (const table of ['content_tags', 'content_categories']) for (const op of ['insert', 'delete']) await run(`drop trigger if exists ${table}_search_${op}`);
  await run(`drop trigger if exists categories_search_rename`);
  await run(`drop table if exists search_fts`);
  await run(`drop table if exists search_keys`);

  // 0007's title index of videos, as it was.
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
