import type { Insertable, Kysely } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type { Database, TakedownRequestsTable } from '../db/schema.js';
import type { TakedownStatus, TakedownTargetType } from '../../common/enums.js';

/** SQL of takedown requests (migration 0028) and the lookups of the item an address names. */

export interface TakedownItem {
  id: string;
  status: string;
  title: string | null;
  /** The page that shows it (a photo: its gallery). */
  pageKey: string | null;
  performerId: string | null;
}

/** The item an address's key names (an id, or a slug; a performer by username or id), in any status. */
export async function findTakedownItem(db: DbOrTrx, type: TakedownTargetType, key: string): Promise<TakedownItem | undefined> {
  switch (type) {
    case 'video':
    case 'gallery':
    case 'post': {
      const table = type === 'video' ? 'videos' : type === 'gallery' ? 'galleries' : 'posts';
      const t = db as unknown as Kysely<Record<string, { id: string; slug: string; status: string; title: string; performerId: string | null }>>;
      const row = await t.selectFrom(table).select(['id', 'status', 'title', 'performerId']).where((eb) => eb.or([eb('id', '=', key), eb('slug', '=', key)])).orderBy('id').executeTakeFirst();
      return row && { id: row.id, status: row.status, title: row.title, pageKey: row.id, performerId: row.performerId };
    }
    case 'product': {
      const row = await db.selectFrom('products').select(['id', 'status', 'name', 'performerId']).where((eb) => eb.or([eb('id', '=', key), eb('slug', '=', key)])).orderBy('id').executeTakeFirst();
      return row && { id: row.id, status: row.status, title: row.name, pageKey: row.id, performerId: row.performerId };
    }
    case 'photo': {
      const row = await db.selectFrom('photos').select(['id', 'status', 'title', 'galleryId', 'performerId']).where('id', '=', key).executeTakeFirst();
      return row && { id: row.id, status: row.status, title: row.title, pageKey: row.galleryId, performerId: row.performerId };
    }
    case 'performer': {
      const row = await db.selectFrom('performers').select(['id', 'status', 'displayName', 'username']).where((eb) => eb.or([eb('id', '=', key), eb('username', '=', key)])).orderBy('id').executeTakeFirst();
      return row && { id: row.id, status: row.status, title: row.displayName, pageKey: row.username, performerId: row.id };
    }
  }
}

export async function insertTakedownRequest(db: DbOrTrx, row: Insertable<TakedownRequestsTable>): Promise<void> {
  await db.insertInto('takedownRequests').values(row).execute();
}

/** The open lead request of an item (the one that hid it), if any. */
export async function findOpenLead(db: DbOrTrx, type: TakedownTargetType, id: string) {
  return db
    .selectFrom('takedownRequests')
    .select(['id', 'previousStatus'])
    .where('targetType', '=', type)
    .where('targetId', '=', id)
    .where('status', '=', 'open')
    .where('isLead', '=', 1)
    .executeTakeFirst();
}

/** One page of cases (items) with requests in `status`, oldest first request first, and their number. */
export async function listTakedownCases(db: DbOrTrx, status: TakedownStatus, limit: number, offset: number) {
  const base = db.selectFrom('takedownRequests').where('status', '=', status);
  const [rows, total] = await Promise.all([
    base
      .select((eb) => ['targetType', 'targetId', eb.fn.min('createdAt').as('firstAt'), eb.fn.max('resolvedAt').as('resolvedAt')])
      .groupBy(['targetType', 'targetId'])
      .orderBy(status === 'open' ? 'firstAt' : 'resolvedAt', status === 'open' ? 'asc' : 'desc')
      .orderBy('targetId')
      .limit(limit)
      .offset(offset)
      .execute(),
    (db as Kysely<Database>)
      .selectFrom((eb) => eb.selectFrom('takedownRequests').select(['targetType', 'targetId']).where('status', '=', status).groupBy(['targetType', 'targetId']).as('c'))
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirst(),
  ]);
  return { rows: rows.map((r) => ({ ...r, firstAt: String(r.firstAt), resolvedAt: r.resolvedAt ? String(r.resolvedAt) : null })), total: Number(total?.n ?? 0) };
}

/** Every request of the given items in `status`, oldest first. */
export async function requestsOfCases(db: DbOrTrx, status: TakedownStatus, cases: ReadonlyArray<{ targetType: TakedownTargetType; targetId: string }>) {
  if (!cases.length) return [];
  return db
    .selectFrom('takedownRequests')
    .selectAll()
    .where('status', '=', status)
    .where('targetId', 'in', cases.map((c) => c.targetId))
    .orderBy('createdAt')
    .orderBy('id')
    .execute();
}

/** Open cases, and those whose first request is older than `overdueBefore`. */
export async function takedownCounts(db: DbOrTrx, overdueBefore: string) {
  const rows = await db
    .selectFrom('takedownRequests')
    .select((eb) => ['targetType', 'targetId', eb.fn.min('createdAt').as('firstAt')])
    .where('status', '=', 'open')
    .groupBy(['targetType', 'targetId'])
    .execute();
  return { open: rows.length, overdue: rows.filter((r) => String(r.firstAt) < overdueBefore).length };
}

/** Resolves every open request of an item; the rows resolved (none when another admin was first). */
export async function resolveOpenTakedowns(db: DbOrTrx, type: TakedownTargetType, id: string, status: Exclude<TakedownStatus, 'open'>, by: string, at: string) {
  return db
    .updateTable('takedownRequests')
    .set({ status, resolvedAt: at, resolvedBy: by })
    .where('targetType', '=', type)
    .where('targetId', '=', id)
    .where('status', '=', 'open')
    .returning(['id', 'reference', 'requesterName', 'requesterEmail', 'isLead', 'previousStatus'])
    .execute();
}

/** Where the site's mail to admins goes: every active admin account. */
export async function activeAdminEmails(db: DbOrTrx): Promise<string[]> {
  const rows = await db.selectFrom('users').select('email').where('role', '=', 'admin').where('status', '=', 'active').orderBy('id').limit(50).execute();
  return rows.map((r) => r.email);
}
