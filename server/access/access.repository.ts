import { sql, type Expression, type ExpressionBuilder } from 'kysely';
import { prepared } from '../db/prepared.js';
import type { DbOrTrx } from '../db/database.js';
import type { Database, ObjectType } from '../db/schema.js';
import { objectTypeSchema } from '../../common/enums.js';
import { photoIsPublic, postIsPublic, productIsPublic, videoIsPublic, type Audience } from '../catalogue/catalogue.repository.js';
import { PRIVATE_THUMB_VARIANT } from '../media/photo-thumbs.js';
import { MARKED_VARIANT } from '../media/watermark/variant.js';

/**
 * The two facts access decisions read: live subscriptions and live entitlements. Both lookups are served by
 * primary/unique keys (subscriptions_user_performer, entitlements_pk).
 *
 * A subscription opens its performer's subscriber-only items while `status = 'active'` and `expires_at` is in the
 * future (a cancellation that keeps access until the end of the paid period keeps status 'active' with
 * cancel_at_period_end = 1 until then). An entitlement opens its object while `revoked_at` is null.
 */

const OBJECT_TYPES = objectTypeSchema.options;

/**
 * The condition of a live subscription at `now` (active, not yet expired): the one place that rule is written, used by
 * every query that asks who subscribes (access, the feed's performers, a mass message's audience, the admin's lists).
 */
export function liveSubscription(now: string) {
  return (eb: ExpressionBuilder<Database, 'subscriptions'>) => eb.and([eb('subscriptions.status', '=', 'active'), eb('subscriptions.expiresAt', '>', now)]);
}

/**
 * Whether the user holds any live subscription or any live entitlement at all: two index probes. The member header
 * asks it with its other facts in one statement (server/users/users.repository.ts), on every signed-in page view.
 */
export function holdsAnyAccessQuery(db: DbOrTrx, userId: string, now: string) {
  return db
    .selectNoFrom((eb) =>
      eb
        .or([
          eb.exists(eb.selectFrom('subscriptions').select('id').where('userId', '=', userId).where(liveSubscription(now))),
          eb.exists(eb.selectFrom('entitlements').select('objectId').where('userId', '=', userId).where('revokedAt', 'is', null)),
        ])
        .as('holds'),
    );
}

/** The user's live subscription to the performer (subscriptions_user_performer): a row or none. */
export function subscribesQuery(db: DbOrTrx, userId: string, performerId: string | Expression<string>, now: string) {
  return db.selectFrom('subscriptions').select('id').where('userId', '=', userId).where('performerId', '=', performerId).where(liveSubscription(now));
}

/** The user's live entitlement to one object (entitlements_pk): a row or none. */
export function entitledQuery(db: DbOrTrx, userId: string, objectType: ObjectType, objectId: string | Expression<string>) {
  return db.selectFrom('entitlements').select('objectId').where('userId', '=', userId).where('objectType', '=', objectType).where('objectId', '=', objectId).where('revokedAt', 'is', null);
}

/**
 * What heldAccess reads, for the one item of each row of a list's own statement: a live subscription to its performer
 * (`heldSubscription`) and a live entitlement to it (`heldPurchase`), through the same two lookups. A page then needs no
 * second statement for its viewer (a round trip on PostgreSQL); `accessViewOfRows` (access.service.ts) makes the view.
 */
export function heldColumns(db: DbOrTrx, userId: string, now: string, objectType: ObjectType, table: string) {
  // Every held item is a row of its own table, with its id and its performer's (`<table>.id`, `<table>.performerId`).
  return <TB extends keyof Database>(eb: ExpressionBuilder<Database, TB>) => [
    eb.exists(subscribesQuery(db, userId, sql.ref<string>(`${table}.performerId`), now)).as('heldSubscription'),
    eb.exists(entitledQuery(db, userId, objectType, sql.ref<string>(`${table}.id`))).as('heldPurchase'),
  ];
}

/**
 * What the user holds for a page of items, in one statement: of `performerIds`, those they have a live subscription
 * to; of `objects`, those they hold a live entitlement to (as `type:id` keys). One arm per lookup, joined by UNION
 * ALL, each read through the user's own rows (indexes led by user_id; tests/api/explain.test.ts): one round trip
 * instead of one per lookup, which on PostgreSQL is most of what a lookup costs.
 */
export async function heldAccess(db: DbOrTrx, userId: string, wanted: HeldWanted, now: string): Promise<{ subscribed: Set<string>; purchased: Set<string> }> {
  const subscribed = new Set<string>();
  const purchased = new Set<string>();
  const values = heldValues(userId, wanted, now);
  for (const r of values ? await held(db, values) : []) {
    if (r.kind === 'subscription') subscribed.add(r.id);
    else purchased.add(`${r.kind}:${r.id}`);
  }
  return { subscribed, purchased };
}

type HeldWanted = { performerIds: readonly string[]; objects: ReadonlyArray<{ objectType: ObjectType; objectId: string }> };

/**
 * What heldAccess asks, each list without repeats and the objects by type; null when nothing is asked. `now` only
 * with performers: only a subscription's arm reads it (a prepared statement refuses a value it never binds).
 */
type HeldValues = { userId: string; now: string | undefined; performers: string[] } & Record<ObjectType, string[]>;

export function heldValues(userId: string, wanted: HeldWanted, now: string): HeldValues | null {
  const byType = Object.fromEntries(OBJECT_TYPES.map((t) => [t, new Set<string>()])) as Record<ObjectType, Set<string>>;
  for (const o of wanted.objects) byType[o.objectType].add(o.objectId);
  const performers = [...new Set(wanted.performerIds)];
  const values = { userId, now: performers.length ? now : undefined, performers, ...Object.fromEntries(OBJECT_TYPES.map((t) => [t, [...byType[t]]])) } as HeldValues;
  return performers.length || OBJECT_TYPES.some((t) => values[t].length) ? values : null;
}

// Asked for every page of items a signed-in visitor sees: compiled once per shape (server/db/prepared.ts).
const held = prepared(['userId', 'now', 'performers', ...OBJECT_TYPES], (db, v: HeldValues) => heldAccessQuery(db, v));

/** The statement of heldAccess, for values that ask something (exported for the EXPLAIN test). */
export function heldAccessQuery(db: DbOrTrx, v: HeldValues) {
  const { userId, now } = v;
  // At least one arm: heldValues is null when nothing is asked.
  // `kind`: 'subscription', or the entitled object's type (an ObjectType, never that word).
  const arms = [
    ...(v.performers.length
      ? [db.selectFrom('subscriptions').select([sql<string>`'subscription'`.as('kind'), 'performerId as id'])
          .where('userId', '=', userId).where('performerId', 'in', v.performers).where(liveSubscription(now!))]
      : []),
    ...OBJECT_TYPES.filter((t) => v[t].length).map((objectType) =>
      db.selectFrom('entitlements').select([sql<string>`${sql.lit(objectType)}`.as('kind'), 'objectId as id'])
        .where('userId', '=', userId).where('objectType', '=', objectType).where('objectId', 'in', v[objectType]).where('revokedAt', 'is', null),
    ),
  ];
  return arms.slice(1).reduce((q, arm) => q.unionAll(arm), arms[0]!);
}

// ---------------------------------------------------------------------------------------------------------------
// The rows a protected file request is checked against (server/media/protected.routes.ts). `markedKey`: the file's
// watermarked copy when it has one (server/media/watermark/), which is what is served; the URL keeps naming the file. `visible` is the same
// "public" rule the lists use (server/catalogue/catalogue.repository.ts), as 0/1 or a boolean depending on the engine.

/** A video and its full file, when `fileId` is that video's full file. */
export function findVideoFile(db: DbOrTrx, videoId: string, fileId: string, a: Audience) {
  return db
    .selectFrom('videos')
    .leftJoin('files', 'files.id', 'videos.fileId')
    .leftJoin('files as marked', (j) => j.onRef('marked.parentId', '=', 'files.id').on('marked.variant', '=', MARKED_VARIANT).on('marked.status', '=', 'ready'))
    .select(['videos.id', 'videos.performerId', 'videos.access', 'files.storageKey', 'files.status as fileStatus', 'files.originalName', 'marked.storageKey as markedKey'])
    .select(videoIsPublic(a).as('visible'))
    .where('videos.id', '=', videoId)
    .where('videos.fileId', '=', fileId)
    .executeTakeFirst();
}

/**
 * A photo, its gallery's access and the file asked for, when `fileId` is that photo's full file or its sharp private
 * thumbnail (server/media/photo-thumbs.ts): both open for exactly those who may open the photo.
 */
export function findPhotoFile(db: DbOrTrx, photoId: string, fileId: string, a: Audience) {
  return db
    .selectFrom('photos')
    .leftJoin('galleries', 'galleries.id', 'photos.galleryId')
    .innerJoin('files', (join) =>
      join.on((eb) =>
        eb.and([
          eb('files.id', '=', fileId),
          eb.or([eb('files.id', '=', eb.ref('photos.fileId')), eb.and([eb('files.parentId', '=', eb.ref('photos.fileId')), eb('files.variant', '=', PRIVATE_THUMB_VARIANT)])]),
        ]),
      ),
    )
    .leftJoin('files as marked', (j) => j.onRef('marked.parentId', '=', 'files.id').on('marked.variant', '=', MARKED_VARIANT).on('marked.status', '=', 'ready'))
    .select(['photos.id', 'photos.performerId', 'photos.galleryId', 'galleries.access as galleryAccess', 'files.storageKey', 'files.status as fileStatus', 'files.originalName', 'marked.storageKey as markedKey'])
    .select(photoIsPublic(a).as('visible'))
    .where('photos.id', '=', photoId)
    .executeTakeFirst();
}

/** A product and its digital file, when `fileId` is that product's digital file. */
export function findProductFile(db: DbOrTrx, productId: string, fileId: string, a: Audience) {
  return db
    .selectFrom('products')
    .leftJoin('files', 'files.id', 'products.digitalFileId')
    .select(['products.id', 'products.performerId', 'products.type', 'files.storageKey', 'files.status as fileStatus', 'files.originalName'])
    .select(productIsPublic(a).as('visible'))
    .where('products.id', '=', productId)
    .where('products.digitalFileId', '=', fileId)
    .executeTakeFirst();
}

/**
 * A post and one of its media files, when `fileId` is a file of one of its media that only those it is open to may
 * have: a picture's display file, a locked post's sharp thumbnail or poster, or the video itself (never a picture's
 * original upload; the blurred previews are public anyway).
 */
export async function findPostFile(db: DbOrTrx, postId: string, fileId: string, a: Audience) {
  const media = await db
    .selectFrom('postMedia')
    .select(['postMedia.kind', 'postMedia.fileId', 'postMedia.displayFileId', 'postMedia.thumbFileId'])
    .where('postMedia.postId', '=', postId)
    .where((eb) => eb.or([eb('postMedia.displayFileId', '=', fileId), eb('postMedia.thumbFileId', '=', fileId), eb.and([eb('postMedia.kind', '=', 'video'), eb('postMedia.fileId', '=', fileId)])]))
    .executeTakeFirst();
  if (!media) return undefined;
  return db
    .selectFrom('posts')
    .leftJoin('files', (j) => j.on('files.id', '=', fileId))
    .leftJoin('files as marked', (j) => j.onRef('marked.parentId', '=', 'files.id').on('marked.variant', '=', MARKED_VARIANT).on('marked.status', '=', 'ready'))
    .select(['posts.id', 'posts.performerId', 'posts.access', 'files.storageKey', 'files.status as fileStatus', 'files.originalName', 'marked.storageKey as markedKey'])
    .select(postIsPublic(a).as('visible'))
    .where('posts.id', '=', postId)
    .executeTakeFirst();
}

/**
 * Of these messages, those their recipient bought: a live entitlement of object type 'message' held by the message's
 * recipient (entitlements_pk: one probe per recipient; a page of a thread has one or two).
 */
export async function boughtMessageIds(db: DbOrTrx, messages: ReadonlyArray<{ id: string; recipientId: string }>): Promise<Set<string>> {
  if (!messages.length) return new Set();
  const recipients = [...new Set(messages.map((m) => m.recipientId))];
  const rows = await db
    .selectFrom('entitlements')
    .select(['userId', 'objectId'])
    .where('userId', 'in', recipients)
    .where('objectType', '=', 'message')
    .where('objectId', 'in', messages.map((m) => m.id))
    .where('revokedAt', 'is', null)
    .execute();
  const bought = new Set(rows.map((r) => `${r.userId}:${r.objectId}`));
  return new Set(messages.filter((m) => bought.has(`${m.recipientId}:${m.id}`)).map((m) => m.id));
}
