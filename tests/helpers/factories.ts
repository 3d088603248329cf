import type { Insertable } from 'kysely';
import type { DbOrTrx } from '../../server/db/database.js';
import type {
  CategoryGroup, FilesTable, GalleriesTable, ObjectType, PhotosTable, PostsTable, ProductsTable, SubscriptionsTable, VideosTable,
} from '../../server/db/schema.js';
import { newId, nowIso } from '../../server/db/ids.js';
import type { Storage } from '../../server/media/storage.js';
import { PRIVATE_THUMB_VARIANT, publicThumbIsBlurred } from '../../server/media/photo-thumbs.js';

/**
 * Small factories for catalogue rows, with real bytes in storage so media URLs can be fetched. Media keys follow
 * the seed's layout: full files under `private/`, previews (thumbnails, posters, teasers, product images) under `public/`.
 */

export interface FactoryCtx {
  db: DbOrTrx;
  storage: Storage;
}

const DAY = 86_400_000;
/** ISO time `days` from now (negative: in the past). */
export const daysFromNow = (days: number) => nowIso(new Date(Date.now() + days * DAY));

/** Deterministic bytes, so a range of a file can be compared with what was stored. */
export function fileBytes(size: number, seed = 0): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 7 + seed) % 251;
  return b;
}

export async function putFile(
  ctx: FactoryCtx,
  f: { prefix: string; ext: string; kind: FilesTable['kind']; mime: string; ownerId: string | null; variant?: string; parentId?: string | null; size?: number; status?: 'uploaded' | 'processing' | 'ready' | 'failed'; originalName?: string },
): Promise<string> {
  const id = newId();
  const storageKey = `${f.prefix}/${id}.${f.ext}`;
  const { size } = await ctx.storage.put(storageKey, fileBytes(f.size ?? 4096, id.charCodeAt(31)));
  const now = nowIso();
  await ctx.db
    .insertInto('files')
    .values({
      id, ownerId: f.ownerId, parentId: f.parentId ?? null, variant: f.variant ?? 'original', kind: f.kind, storageKey, mime: f.mime, size,
      status: f.status ?? 'ready', originalName: f.originalName ?? null, createdAt: now, updatedAt: now,
    })
    .execute();
  return id;
}

let slugCounter = 0;
const slug = (base: string) => `${base.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${++slugCounter}`;

export async function makeVideo(ctx: FactoryCtx, performerId: string, o: Partial<Insertable<VideosTable>> & { withFiles?: boolean; tagsList?: string[] } = {}) {
  const { withFiles = true, tagsList = [], ...row } = o;
  const id = newId();
  let files: Pick<Insertable<VideosTable>, 'fileId' | 'thumbnailFileId' | 'teaserFileId'> = {};
  if (withFiles) {
    const fileId = await putFile(ctx, { prefix: 'private/videos', ext: 'mp4', kind: 'video', mime: 'video/mp4', ownerId: performerId, size: 20_000 });
    await putFile(ctx, { prefix: 'public/videos/posters', ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId: performerId, variant: 'poster', parentId: fileId });
    const thumbnailFileId = await putFile(ctx, { prefix: 'public/videos/thumbs', ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId: performerId, variant: 'thumb', parentId: fileId });
    const teaserFileId = await putFile(ctx, { prefix: 'public/videos/teasers', ext: 'mp4', kind: 'video', mime: 'video/mp4', ownerId: performerId, variant: 'teaser', parentId: fileId });
    files = { fileId, thumbnailFileId, teaserFileId };
  }
  const title = row.title ?? `Video ${id.slice(-5)}`;
  const access = row.access ?? 'free';
  const values: Insertable<VideosTable> = {
    id, performerId, title, slug: slug(title), description: null, access, isSale: access === 'sale' ? 1 : 0, price: access === 'sale' ? 999 : 0,
    status: 'active', processingStatus: 'ready', publishedAt: daysFromNow(-1), tags: JSON.stringify(tagsList), createdAt: daysFromNow(-2), updatedAt: nowIso(),
    ...files, ...row,
  };
  await ctx.db.insertInto('videos').values(values).execute();
  await tagObject(ctx.db, 'video', id, tagsList);
  return { ...values, id };
}

export async function makeGallery(
  ctx: FactoryCtx,
  performerId: string,
  o: Partial<Insertable<GalleriesTable>> & { photos?: number; tagsList?: string[]; photo?: Partial<Insertable<PhotosTable>> } = {},
) {
  const { photos: photoTotal = 2, tagsList = [], photo: photoOverrides = {}, ...row } = o;
  const id = newId();
  const title = row.title ?? `Gallery ${id.slice(-5)}`;
  const access = row.access ?? 'free';
  const values: Insertable<GalleriesTable> = {
    id, performerId, title, slug: slug(title), description: null, access, isSale: access === 'sale' ? 1 : 0, price: access === 'sale' ? 699 : 0,
    status: 'active', photoCount: photoTotal, publishedAt: daysFromNow(-1), tags: JSON.stringify(tagsList), createdAt: daysFromNow(-2), updatedAt: nowIso(),
    ...row,
  };
  await ctx.db.insertInto('galleries').values(values).execute();
  const photos: Array<Insertable<PhotosTable> & { id: string }> = [];
  for (let k = 0; k < photoTotal; k++) photos.push(await makePhoto(ctx, performerId, { galleryId: id, position: k, publishedAt: values.publishedAt, ...photoOverrides }));
  if (photos[0]) await ctx.db.updateTable('galleries').set({ coverPhotoId: photos[0].id }).where('id', '=', id).execute();
  // As photo.process leaves them: a blurred public thumbnail (every photo of a locked gallery but its cover) has a
  // sharp private twin (server/media/photo-thumbs.ts).
  const sharpThumbs: Record<string, string> = {};
  for (const p of photos) {
    if (!publicThumbIsBlurred(p.id, { access, coverPhotoId: photos[0]!.id })) continue;
    sharpThumbs[p.id] = await putFile(ctx, { prefix: 'private/photos/thumbs', ext: 'webp', kind: 'image', mime: 'image/webp', ownerId: performerId, variant: PRIVATE_THUMB_VARIANT, parentId: p.fileId });
  }
  await tagObject(ctx.db, 'gallery', id, tagsList);
  return { ...values, id, coverPhotoId: photos[0]?.id ?? null, photos, sharpThumbs };
}

export async function makePhoto(ctx: FactoryCtx, performerId: string, o: Partial<Insertable<PhotosTable>> = {}) {
  const id = newId();
  const fileId = await putFile(ctx, { prefix: 'private/photos', ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId: performerId });
  const thumbnailFileId = await putFile(ctx, { prefix: 'public/photos/thumbs', ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId: performerId, variant: 'thumb', parentId: fileId });
  const values: Insertable<PhotosTable> & { id: string } = {
    id, performerId, galleryId: null, title: `Photo ${id.slice(-5)}`, fileId, thumbnailFileId, status: 'active', processingStatus: 'ready', position: 0,
    publishedAt: daysFromNow(-1), createdAt: daysFromNow(-2), updatedAt: nowIso(), ...o,
  };
  await ctx.db.insertInto('photos').values(values).execute();
  return values;
}

export async function makeProduct(ctx: FactoryCtx, performerId: string, o: Partial<Insertable<ProductsTable>> & { tagsList?: string[] } = {}) {
  const { tagsList = [], ...row } = o;
  const id = newId();
  const type = row.type ?? 'physical';
  const imageFileId = await putFile(ctx, { prefix: 'public/products', ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId: performerId });
  const digitalFileId =
    type === 'digital' ? await putFile(ctx, { prefix: 'private/products', ext: 'pdf', kind: 'file', mime: 'application/pdf', ownerId: performerId, originalName: 'guide.pdf' }) : null;
  const name = row.name ?? `Product ${id.slice(-5)}`;
  const values: Insertable<ProductsTable> = {
    id, performerId, name, slug: slug(name), description: null, type, price: 1500, stock: type === 'physical' ? 10 : null, imageFileId, digitalFileId,
    status: 'active', publishedAt: daysFromNow(-1), tags: JSON.stringify(tagsList), createdAt: daysFromNow(-2), updatedAt: nowIso(), ...row,
  };
  await ctx.db.insertInto('products').values(values).execute();
  await tagObject(ctx.db, 'product', id, tagsList);
  return { ...values, id };
}

export async function makePost(ctx: FactoryCtx, o: Partial<Insertable<PostsTable>> = {}) {
  const id = newId();
  const title = o.title ?? `Post ${id.slice(-5)}`;
  const imageFileId = await putFile(ctx, { prefix: 'public/posts', ext: 'jpg', kind: 'image', mime: 'image/jpeg', ownerId: null });
  const values: Insertable<PostsTable> = {
    id, authorId: null, performerId: null, type: 'post', title, slug: slug(title), excerpt: `About ${title}`, content: `<p>${title}</p>`, imageFileId,
    status: 'published', publishedAt: daysFromNow(-1), createdAt: daysFromNow(-2), updatedAt: nowIso(), ...o,
  };
  await ctx.db.insertInto('posts').values(values).execute();
  return { ...values, id };
}

export async function makeCategory(db: DbOrTrx, group: CategoryGroup, name: string, o: { ordering?: number; status?: 'active' | 'inactive' } = {}) {
  const id = newId();
  const now = nowIso();
  const values = { id, name, slug: slug(name), group, description: null, ordering: o.ordering ?? 0, status: o.status ?? 'active', createdAt: now, updatedAt: now } as const;
  await db.insertInto('categories').values(values).execute();
  return values;
}

export async function linkCategory(db: DbOrTrx, categoryId: string, objectType: ObjectType, objectId: string): Promise<void> {
  await db.insertInto('contentCategories').values({ categoryId, objectType, objectId }).execute();
}

export async function tagObject(db: DbOrTrx, objectType: ObjectType, objectId: string, tags: string[]): Promise<void> {
  const unique = [...new Set(tags.map((t) => t.toLowerCase()))];
  if (unique.length) await db.insertInto('contentTags').values(unique.map((tag) => ({ tag, objectType, objectId }))).execute();
}

/** A subscription row as the money feature would write it (default: active for 30 more days). */
export async function subscribe(db: DbOrTrx, userId: string, performerId: string, o: Partial<Insertable<SubscriptionsTable>> = {}) {
  const now = nowIso();
  const values: Insertable<SubscriptionsTable> = {
    id: newId(), userId, performerId, type: 'monthly', status: 'active', startedAt: daysFromNow(-1), expiresAt: daysFromNow(30), createdAt: now, updatedAt: now, ...o,
  };
  await db.insertInto('subscriptions').values(values).execute();
  return values;
}

/** An entitlement (a purchase) of an object. */
export async function entitle(db: DbOrTrx, userId: string, objectType: ObjectType, objectId: string, o: { revokedAt?: string | null } = {}): Promise<void> {
  await db.insertInto('entitlements').values({ userId, objectType, objectId, paymentId: newId(), revokedAt: o.revokedAt ?? null, createdAt: nowIso() }).execute();
}
