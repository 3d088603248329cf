import type { Insertable } from 'kysely';
import type { DbOrTrx } from '../db/database.js';
import type {
  Access, BannersTable, CategoriesTable, CategoryGroup, CouponsTable, FilesTable, GalleriesTable, ObjectType, PerformersTable, PerformerVerificationsTable, PhotosTable, PostMediaTable,
  PostsTable, ProductsTable, SubscriptionPackagesTable, SubscriptionsTable, UsersTable, VideosTable,
} from '../db/schema.js';
import { newId, nowIso } from '../db/ids.js';
import type { Storage } from '../media/storage.js';
import { PRIVATE_THUMB_VARIANT, publicThumbIsBlurred } from '../media/photo-thumbs.js';
import { fileRow, insertFiles, type NewFile } from '../media/pipeline/pipeline.repository.js';
import { insertPerformer, insertUser } from '../users/users.repository.js';
import { insertGallery, insertPhotos, insertPost, insertProduct, insertVideo } from '../studio/studio.repository.js';
import { insertVerification } from '../verification/verification.repository.js';
import { DAY_MS } from '../../common/time.js';

/**
 * The one place that builds rows of users, performers, catalogue items, posts, files and the money rows around them,
 * with their defaults: the demo seed (./seed.ts) and the tests (tests/helpers) both build through here.
 *
 *  - `*Row(o)` builds a row and inserts nothing: every column a caller leaves out gets its default here (the seed
 *    plans all its rows first, then writes them in batches, which need rows of the same columns).
 *  - `make*(…)` builds the row and inserts it (through the repositories where one has the statement), with real bytes
 *    in storage for its files, so media URLs can be fetched: the way tests and small fixtures make what they need.
 *    Media keys follow the seed's layout: full files under `private/`, previews (thumbnails, posters, teasers, product
 *    images) under `public/`.
 *
 * The defaults are a plausible, public item: active, published a day ago, made two days ago, free.
 */

export interface FactoryCtx {
  db: DbOrTrx;
  storage: Storage;
}

/** ISO time `days` from now (negative: in the past). */
export const daysFromNow = (days: number) => nowIso(new Date(Date.now() + days * DAY_MS));

/** Deterministic bytes, so a range of a file can be compared with what was stored. */
export function fileBytes(size: number, seed = 0): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + seed) % 251;
  return b;
}

/** Slugs and file names of made rows: ASCII, "&" as "and", at most 80 characters (the seed makes its own unique). */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
}

let slugCounter = 0;
/** A slug no other factory-made row has. */
const nextSlug = (base: string) => `${slugify(base) || 'item'}-${++slugCounter}`;
let userCounter = 0;

type Row<T> = Insertable<T> & { id: string };
type Input<T> = Partial<Insertable<T>>;

/** `o` without its undefined entries, so that `{ ...defaults, ...defined(o) }` keeps a default `o` left undefined. */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

// -----------------------------------------------------------------------------------------------------------------
// Rows.

/** A user row; the email is stored lower-cased. Without a password hash nobody can log in as them. */
export function userRow(o: Input<UsersTable> & { username: string }): Row<UsersTable> {
  const id = o.id ?? newId();
  const createdAt = o.createdAt ?? nowIso();
  return {
    id, name: o.username, passwordHash: '', role: 'user', status: 'active', emailVerified: 1, avatarPath: null, coverPath: null, country: null, bio: null,
    updatedAt: createdAt, ...defined(o), email: (o.email ?? `${o.username}@example.test`).toLowerCase(), createdAt,
  };
}

/** The performers row of a performer's account (same id): approved and active unless told otherwise. */
export function performerRow(o: Input<PerformersTable> & { id: string; username: string; displayName: string }): Row<PerformersTable> {
  const createdAt = o.createdAt ?? nowIso();
  return { status: 'active', approved: 1, updatedAt: createdAt, ...defined(o), createdAt };
}

/**
 * An identity verification: by default the demo's kind, approved and `seeded` (no pictures were ever stored: the seed
 * and the tests need verified performers, not documents), submitted and decided when the performer joined.
 */
export function verificationRow(o: Input<PerformerVerificationsTable> & { performerId: string }): Row<PerformerVerificationsTable> {
  const at = o.submittedAt ?? o.createdAt ?? nowIso();
  const id = o.id ?? newId(Date.parse(at));
  return {
    status: 'approved', legalName: 'Demo Performer', dateOfBirth: '1990-01-01', country: 'US', documentFrontFileId: null, documentBackFileId: null, selfieFileId: null,
    seeded: 1, decidedAt: at, decidedBy: null, reason: null, filesDeletedAt: null, createdAt: at, updatedAt: at, ...defined(o), id, submittedAt: at,
  };
}

/** What videos and galleries share: a title (or `<noun> <id end>`) and its slug, free unless told, at `salePrice` on sale. */
function saleItem(o: { id?: string; title?: string; slug?: string; access?: Access }, noun: string, salePrice: number) {
  const id = o.id ?? newId();
  const title = o.title ?? `${noun} ${id.slice(-5)}`;
  const access = o.access ?? 'free';
  const sale = access === 'sale';
  return {
    id, title, slug: o.slug ?? nextSlug(title), description: null, access, isSale: sale ? (1 as const) : (0 as const), price: sale ? salePrice : 0, status: 'active' as const,
    publishedAt: daysFromNow(-1), tags: '[]', createdAt: daysFromNow(-2), updatedAt: nowIso(),
  };
}

export function videoRow(o: Input<VideosTable> & { performerId: string }): Row<VideosTable> {
  return {
    ...saleItem(o, 'Video', 999), fileId: null, teaserFileId: null, thumbnailFileId: null, duration: null, processingStatus: 'ready', scheduledAt: null, ...defined(o),
  };
}

export function galleryRow(o: Input<GalleriesTable> & { performerId: string }): Row<GalleriesTable> {
  return { ...saleItem(o, 'Gallery', 699), coverPhotoId: null, photoCount: 0, ...defined(o) };
}

export function photoRow(o: Input<PhotosTable> & { performerId: string }): Row<PhotosTable> {
  const id = o.id ?? newId();
  return {
    id, galleryId: null, title: `Photo ${id.slice(-5)}`, fileId: null, thumbnailFileId: null, status: 'active', processingStatus: 'ready', position: 0,
    publishedAt: daysFromNow(-1), createdAt: daysFromNow(-2), updatedAt: nowIso(), ...defined(o),
  };
}

export function productRow(o: Input<ProductsTable> & { performerId: string }): Row<ProductsTable> {
  const id = o.id ?? newId();
  const name = o.name ?? `Product ${id.slice(-5)}`;
  const type = o.type ?? 'physical';
  return {
    id, name, slug: o.slug ?? nextSlug(name), description: null, type, price: 1500, stock: type === 'physical' ? 10 : null, imageFileId: null,
    digitalFileId: null, status: 'active', publishedAt: daysFromNow(-1), tags: '[]', createdAt: daysFromNow(-2), updatedAt: nowIso(), ...defined(o),
  };
}

/** A site post by default (no performer); a performer's post names its performer, and its access and price. */
export function postRow(o: Input<PostsTable>): Row<PostsTable> {
  const id = o.id ?? newId();
  const title = o.title ?? `Post ${id.slice(-5)}`;
  return {
    id, authorId: null, performerId: null, type: 'post', title, slug: o.slug ?? nextSlug(title), excerpt: `About ${title}`, content: `<p>${title}</p>`,
    imageFileId: null, status: 'published', access: 'free', price: 0, publishedAt: daysFromNow(-1), createdAt: daysFromNow(-2), updatedAt: nowIso(), ...defined(o),
  };
}

/** A picture of a performer's post, processed (its files are set by whoever makes them). */
export function postMediaRow(o: Input<PostMediaTable> & { postId: string; fileId: string }): Row<PostMediaTable> {
  const createdAt = o.createdAt ?? nowIso();
  return {
    id: o.id ?? newId(), position: 0, kind: 'image', displayFileId: null, previewFileId: null, thumbFileId: null, processingStatus: 'ready',
    width: null, height: null, duration: null, updatedAt: createdAt, ...defined(o), createdAt,
  };
}

export function categoryRow(o: Input<CategoriesTable> & { group: CategoryGroup; name: string }): Row<CategoriesTable> {
  const createdAt = o.createdAt ?? nowIso();
  return { id: o.id ?? newId(), slug: o.slug ?? nextSlug(o.name), description: null, ordering: 0, status: 'active', updatedAt: createdAt, ...defined(o), createdAt };
}

export function bannerRow(o: Input<BannersTable> & { title: string }): Row<BannersTable> {
  const createdAt = o.createdAt ?? nowIso();
  return { id: o.id ?? newId(), description: null, imageFileId: null, link: null, position: 'top', ordering: 0, status: 'active', updatedAt: createdAt, ...defined(o), createdAt };
}

/** A subscription package (monthly unless told otherwise). */
export function packageRow(o: Input<SubscriptionPackagesTable> & { name: string; price: number }): Row<SubscriptionPackagesTable> {
  const createdAt = o.createdAt ?? nowIso();
  return { id: o.id ?? newId(), description: null, type: 'monthly', durationDays: 30, ordering: 0, status: 'active', updatedAt: createdAt, ...defined(o), createdAt };
}

/** A coupon: 10 % off, 100 uses, valid for 30 days unless told otherwise; named after its code. */
export function couponRow(o: Input<CouponsTable> & { code: string }): Row<CouponsTable> {
  const createdAt = o.createdAt ?? nowIso();
  return {
    id: o.id ?? newId(), name: o.code, valueBps: 1000, maxUses: 100, usedCount: 0, status: 'active', expiresAt: daysFromNow(30), updatedAt: createdAt,
    ...defined(o), createdAt,
  };
}

/** A subscription as the money feature writes it once paid (default: monthly, active for 30 more days). */
export function subscriptionRow(o: Input<SubscriptionsTable> & { userId: string; performerId: string }): Row<SubscriptionsTable> {
  const now = nowIso();
  return { id: o.id ?? newId(), type: 'monthly', status: 'active', startedAt: daysFromNow(-1), expiresAt: daysFromNow(30), createdAt: now, updatedAt: now, ...defined(o) };
}

/** The tag rows of an object: lower-cased, each once. */
export function tagRows(objectType: ObjectType, objectId: string, tags: readonly string[]) {
  return [...new Set(tags.map((t) => t.toLowerCase()))].map((tag) => ({ tag, objectType, objectId }));
}

/** Where a stored file lives: `<prefix>/<id>.<ext>`. */
export const fileKey = (prefix: string, id: string, ext: string) => `${prefix}/${id}.${ext}`;

export interface FileSpec {
  prefix: string;
  ext: string;
  kind: FilesTable['kind'];
  mime: string;
  ownerId: string | null;
  variant?: string;
  parentId?: string | null;
  width?: number | null;
  height?: number | null;
  duration?: number | null;
  originalName?: string | null;
  status?: 'uploaded' | 'processing' | 'ready' | 'failed';
  /** createdAt and updatedAt; now by default. */
  at?: string;
}

/** Stores `body` under a new file's key and answers its `files` row (not inserted). */
export async function storeFile(storage: Storage, spec: FileSpec & { id?: string }, body: Buffer): Promise<NewFile & { id: string }> {
  const id = spec.id ?? newId();
  const storageKey = fileKey(spec.prefix, id, spec.ext);
  const { size } = await storage.put(storageKey, body);
  const row = fileRow({ ...spec, id, storageKey, size, status: spec.status ?? 'ready' }, spec.at ?? nowIso());
  return { ...row, id };
}

// -----------------------------------------------------------------------------------------------------------------
// Rows written.

/** A stored file (deterministic bytes, 4 KiB unless `size`) and its row; answers its id. */
export async function putFile(ctx: FactoryCtx, f: FileSpec & { size?: number }): Promise<string> {
  const id = newId();
  const row = await storeFile(ctx.storage, { ...f, id }, fileBytes(f.size ?? 4096, id.charCodeAt(31)));
  await insertFiles(ctx.db, [row]);
  return id;
}

export interface UserInput extends Omit<Input<UsersTable>, 'username'> {
  username?: string;
}

/** A user (role `user` unless told), username `<role><n>_<id end>` and email `<username>@example.test` unless given. */
export async function makeUser(db: DbOrTrx, o: UserInput = {}) {
  const id = o.id ?? newId();
  const username = o.username ?? `${o.role ?? 'user'}${++userCounter}_${id.slice(-6)}`;
  const row = userRow({ ...defined(o), id, username });
  await insertUser(db, row);
  return { ...row, name: row.name ?? username };
}

/** A performer: the account (role `performer`) and its performers row, named after the account unless `performer` says. */
export async function makePerformer(db: DbOrTrx, o: UserInput & { performer?: Input<PerformersTable> } = {}) {
  const { performer, ...account } = o;
  const user = await makeUser(db, { ...account, role: 'performer' });
  const row = performerRow({ id: user.id, username: user.username, displayName: user.name, createdAt: user.createdAt, updatedAt: user.updatedAt, ...performer });
  await insertPerformer(db, row);
  // Approved performers are verified ones (server/verification/): a seeded approved verification goes with the flag.
  if (Number(row.approved ?? 1) === 1) await makeVerification(db, user.id, { legalName: user.name, submittedAt: user.createdAt });
  return { user, performer: row };
}

/** A verification row of the performer (approved and seeded unless told; see verificationRow). */
export async function makeVerification(db: DbOrTrx, performerId: string, o: Input<PerformerVerificationsTable> = {}) {
  const row = verificationRow({ ...defined(o), performerId });
  await insertVerification(db, row);
  return row;
}

/** A video with its files (full file, poster, thumbnail, teaser) unless `withFiles: false`; `tagsList` tags it. */
export async function makeVideo(ctx: FactoryCtx, performerId: string, o: Input<VideosTable> & { withFiles?: boolean; tagsList?: string[] } = {}) {
  const { withFiles = true, tagsList = [], ...row } = o;
  const id = row.id ?? newId();
  let files: Pick<Insertable<VideosTable>, 'fileId' | 'thumbnailFileId' | 'teaserFileId'> = {};
  if (withFiles) {
    const fileId = await putFile(ctx, { prefix: 'private/videos', ext: 'mp4', kind: 'video', mime: 'video/mp4', ownerId: performerId, size: 20_000 });
    const child = { ownerId: performerId, parentId: fileId };
    await putFile(ctx, { ...child, prefix: 'public/videos/posters', ext: 'jpg', kind: 'image', mime: 'image/jpeg', variant: 'poster' });
    const thumbnailFileId = await putFile(ctx, { ...child, prefix: 'public/videos/thumbs', ext: 'jpg', kind: 'image', mime: 'image/jpeg', variant: 'thumb' });
    const teaserFileId = await putFile(ctx, { ...child, prefix: 'public/videos/teasers', ext: 'mp4', kind: 'video', mime: 'video/mp4', variant: 'teaser' });
    files = { fileId, thumbnailFileId, teaserFileId };
  }
  const values = videoRow({ id, performerId, tags: JSON.stringify(tagsList), ...files, ...row });
  await insertVideo(ctx.db, values);
  await tagObject(ctx.db, 'video', id, tagsList);
  return values;
}

/**
 * A gallery with `photos` photos (2 by default, the first its cover), each with its files; as photo.process leaves
 * them, a blurred public thumbnail (every photo of a locked gallery but its cover) has a sharp private twin
 * (server/media/photo-thumbs.ts), listed in `sharpThumbs` by photo id.
 */
export async function makeGallery(
  ctx: FactoryCtx,
  performerId: string,
  o: Input<GalleriesTable> & { photos?: number; tagsList?: string[]; photo?: Input<PhotosTable> } = {},
) {
  const { photos: photoTotal = 2, tagsList = [], photo: photoOverrides = {}, ...row } = o;
  const values = galleryRow({ performerId, photoCount: photoTotal, tags: JSON.stringify(tagsList), ...row });
  const { id, access } = values;
  await insertGallery(ctx.db, values);
  const photos: Array<Row<PhotosTable>> = [];
  for (let k = 0; k < photoTotal; k++) photos.push(await makePhoto(ctx, performerId, { galleryId: id, position: k, publishedAt: values.publishedAt, ...photoOverrides }));
  const coverPhotoId = photos[0]?.id ?? null;
  if (coverPhotoId) await ctx.db.updateTable('galleries').set({ coverPhotoId }).where('id', '=', id).execute();
  const sharpThumbs: Record<string, string> = {};
  for (const p of photos) {
    if (!publicThumbIsBlurred(p.id, { access: access ?? 'free', coverPhotoId })) continue;
    sharpThumbs[p.id] = await putFile(ctx, {
      prefix: 'private/photos/thumbs', ext: 'webp', kind: 'image', mime: 'image/webp', ownerId: performerId, variant: PRIVATE_THUMB_VARIANT, parentId: p.fileId,
    });
  }
  await tagObject(ctx.db, 'gallery', id, tagsList);
  return { ...values, coverPhotoId, photos, sharpThumbs };
}

/** A photo (outside any gallery unless `galleryId`) with its full file and thumbnail. */
export async function makePhoto(ctx: FactoryCtx, performerId: string, o: Input<PhotosTable> = {}) {
  const id = o.id ?? newId();
  const image = { ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId: performerId } as const;
  const fileId = await putFile(ctx, { ...image, prefix: 'private/photos' });
  const thumbnailFileId = await putFile(ctx, { ...image, prefix: 'public/photos/thumbs', variant: 'thumb', parentId: fileId });
  const values = photoRow({ id, performerId, fileId, thumbnailFileId, ...o });
  await insertPhotos(ctx.db, [values]);
  return values;
}

/** A product with its picture, and its file when digital. */
export async function makeProduct(ctx: FactoryCtx, performerId: string, o: Input<ProductsTable> & { tagsList?: string[] } = {}) {
  const { tagsList = [], ...row } = o;
  const id = row.id ?? newId();
  const type = row.type ?? 'physical';
  const imageFileId = await putFile(ctx, { prefix: 'public/products', ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId: performerId });
  const digitalFileId =
    type === 'digital' ? await putFile(ctx, { prefix: 'private/products', ext: 'pdf', kind: 'file', mime: 'application/pdf', ownerId: performerId, originalName: 'guide.pdf' }) : null;
  const values = productRow({ id, performerId, type, imageFileId, digitalFileId, tags: JSON.stringify(tagsList), ...row });
  await insertProduct(ctx.db, values);
  await tagObject(ctx.db, 'product', id, tagsList);
  return values;
}

/** A post with a picture (unless `imageFileId` is given, null included). */
export async function makePost(ctx: FactoryCtx, o: Input<PostsTable> = {}) {
  const imageFileId = 'imageFileId' in o ? o.imageFileId : await putFile(ctx, { prefix: 'public/posts', ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId: null });
  const values = postRow({ imageFileId, ...o });
  await insertPost(ctx.db, values);
  return values;
}

export async function makeCategory(db: DbOrTrx, group: CategoryGroup, name: string, o: Input<CategoriesTable> = {}) {
  const values = categoryRow({ group, name, ...o });
  await db.insertInto('categories').values(values).execute();
  return values;
}

export async function linkCategory(db: DbOrTrx, categoryId: string, objectType: ObjectType, objectId: string): Promise<void> {
  await db.insertInto('contentCategories').values({ categoryId, objectType, objectId }).execute();
}

/** Adds tags to an object (lower-cased, each once). */
export async function tagObject(db: DbOrTrx, objectType: ObjectType, objectId: string, tags: string[]): Promise<void> {
  const rows = tagRows(objectType, objectId, tags);
  if (rows.length) await db.insertInto('contentTags').values(rows).execute();
}

export async function makePackage(db: DbOrTrx, o: Input<SubscriptionPackagesTable> & { name: string; price: number }) {
  const values = packageRow(o);
  await db.insertInto('subscriptionPackages').values(values).execute();
  return values;
}

export async function makeCoupon(db: DbOrTrx, o: Input<CouponsTable> & { code: string }) {
  const values = couponRow(o);
  await db.insertInto('coupons').values(values).execute();
  return values;
}

/** A subscription row as the money feature would write it (default: active for 30 more days). */
export async function subscribe(db: DbOrTrx, userId: string, performerId: string, o: Input<SubscriptionsTable> = {}) {
  const values = subscriptionRow({ userId, performerId, ...o });
  await db.insertInto('subscriptions').values(values).execute();
  return values;
}

/** An entitlement (a purchase) of an object. */
export async function entitle(db: DbOrTrx, userId: string, objectType: ObjectType, objectId: string, o: { revokedAt?: string | null } = {}): Promise<void> {
  await db.insertInto('entitlements').values({ userId, objectType, objectId, paymentId: newId(), revokedAt: o.revokedAt ?? null, createdAt: nowIso() }).execute();
}
