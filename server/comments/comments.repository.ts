import { sql, type SelectQueryBuilder } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import { prepared } from '../db/prepared.js';
import type { CommentsTable, Database } from '../db/schema.js';
import type { Cursor } from '../http/pagination.js';
import type { EngagementObjectType } from '../../common/enums.js';

/** SQL of comments. A comment row is joined with its author and its picture's storage key. */

const commentColumns = [
  'comments.id',
  'comments.objectType',
  'comments.objectId',
  'comments.userId',
  'comments.content',
  'comments.imageFileId',
  'comments.status',
  'comments.createdAt',
  'comments.updatedAt',
  'users.name as userName',
  'users.username as userUsername',
  'users.avatarPath as userAvatarPath',
  'files.storageKey as imageKey',
] as const;

function withAuthor(db: DbOrTrx) {
  return db
    .selectFrom('comments')
    .innerJoin('users', 'users.id', 'comments.userId')
    .leftJoin('files', 'files.id', 'comments.imageFileId')
    .select(commentColumns);
}

export type CommentRow = NonNullable<Awaited<ReturnType<typeof findComment>>>;

export function findComment(db: DbOrTrx, id: string) {
  return withAuthor(db).where('comments.id', '=', id).executeTakeFirst();
}

export interface CommentFilters {
  objectType: EngagementObjectType;
  objectId: string;
  limit: number;
  offset: number;
  cursor?: Cursor;
}

/** Newest first (created_at, then id), on the comments_object_created index; a cursor skips the offset scan. */
export async function listComments(db: DbOrTrx, f: CommentFilters): Promise<{ rows: CommentRow[]; total: number }> {
  const of = { objectId: f.objectId, objectType: f.objectType };
  // The cursor's values, else the offset (0 needs no clause): what the page's shape is.
  const at = f.cursor ? { cursorV: String(f.cursor.v ?? ''), cursorId: f.cursor.id, offset: undefined } : { cursorV: undefined, cursorId: undefined, offset: f.offset || undefined };
  // The page carries the total in each row (one statement, one round trip); an empty page past the first asks apart.
  const rows = await commentPage(db, { ...of, ...at, limit: f.limit });
  if (rows.length) return { rows, total: Number(rows[0]!.total) };
  if (at.cursorV === undefined && at.offset === undefined) return { rows, total: 0 };
  const [count] = await commentCount(db, of);
  return { rows, total: Number(count?.n ?? 0) };
}

// Every video page's discussion reads both: compiled once (server/db/prepared.ts).
type CommentPageValues = ObjectValues & { limit: number; offset: number | undefined; cursorV: string | undefined; cursorId: string | undefined };
type ObjectValues = { objectId: string; objectType: EngagementObjectType };
/** The comments a discussion lists: the object's active ones (comments_object_created). */
const listedOf = <Q extends SelectQueryBuilder<Database, 'comments', object>>(qb: Q, v: ObjectValues): Q =>
  qb.where('comments.objectId', '=', v.objectId).where('comments.status', '=', 'active').where('comments.objectType', '=', v.objectType) as Q;
const commentPage = prepared(['objectId', 'objectType', 'limit', 'offset', 'cursorV', 'cursorId'], (db, v: CommentPageValues) => {
  // The total as a scalar subquery: uncorrelated, so each engine counts once per statement, not once per row.
  let page = listedOf(withAuthor(db), v).select(countOf(db, v).as('total'));
  const { cursorV, cursorId } = v;
  if (cursorV !== undefined && cursorId !== undefined) {
    page = page.where((eb) => eb.or([eb('comments.createdAt', '<', cursorV), eb.and([eb('comments.createdAt', '=', cursorV), eb('comments.id', '<', cursorId)])]));
  } else if (v.offset !== undefined) {
    page = page.offset(v.offset);
  }
  return page.orderBy('comments.createdAt', 'desc').orderBy('comments.id', 'desc').limit(v.limit);
});
const countOf = (db: DbOrTrx, v: ObjectValues) => listedOf(db.selectFrom('comments'), v).select((eb) => eb.fn.countAll<number>().as('n'));
const commentCount = prepared(['objectId', 'objectType'], countOf);

export async function insertComment(db: DbOrTrx, row: Omit<CommentsTable, 'status'>): Promise<void> {
  await insertOne(db, row);
}
const insertOne = prepared(['id', 'objectType', 'objectId', 'userId', 'content', 'imageFileId', 'createdAt', 'updatedAt'], (db, row: Omit<CommentsTable, 'status'>) =>
  db.insertInto('comments').values(row),
);

export async function updateComment(db: DbOrTrx, id: string, changes: Partial<Pick<CommentsTable, 'content' | 'imageFileId' | 'updatedAt'>>): Promise<void> {
  await db.updateTable('comments').set(changes).where('id', '=', id).execute();
}

/** Deletes a comment; answers whether a row was deleted (false when another request deleted it first). */
export async function deleteComment(db: DbOrTrx, id: string): Promise<boolean> {
  const deleted = await db.deleteFrom('comments').where('id', '=', id).returning('id').execute();
  return deleted.length > 0;
}

export async function insertImageFile(
  db: DbOrTrx,
  f: { id: string; ownerId: string; storageKey: string; mime: string; size: number; width: number; height: number; now: string },
): Promise<void> {
  await db
    .insertInto('files')
    .values({
      id: f.id, ownerId: f.ownerId, parentId: null, variant: 'comment', kind: 'image', storageKey: f.storageKey, mime: f.mime, size: f.size,
      width: f.width, height: f.height, status: 'ready', createdAt: f.now, updatedAt: f.now,
    })
    .execute();
}

/** For tests and checks: the real number of active comments of an object. */
export async function countComments(db: DbOrTrx, objectType: EngagementObjectType, objectId: string): Promise<number> {
  const row = await sql<{ n: number }>`select count(*) as n from comments where object_type = ${objectType} and object_id = ${objectId} and status = 'active'`.execute(db);
  return Number(row.rows[0]?.n ?? 0);
}
