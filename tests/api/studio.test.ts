import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeTestMedia, postForm, type TestMedia } from '../helpers/uploads.js';
import { makeCategory, makeGallery, makePost, makeProduct, makeVideo } from '../../server/seed/factories.js';
import { newId, nowIso } from '../../server/db/ids.js';
import type { CategoryGroup } from '../../server/db/schema.js';

/**
 * Performer studio, write side: edit and delete only one's own items, validation of every
 * input, products physical/digital, posts, galleries and photos, the performer profile. The job worker is
 * off here (processing is covered by pipeline.test.ts), so uploads stay "processing".
 */

let media: TestMedia;
beforeAll(async () => {
  media = await makeTestMedia();
});
afterAll(async () => {
  await media?.cleanup();
});

describe.each(engines)('performer studio on %s', (engine) => {
  let t: TestApp;
  let owner: TestUser;
  let rival: TestUser;
  let fan: TestUser;
  let admin: TestUser;
  const category: Partial<Record<CategoryGroup, string>> = {};

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { JOBS_WORKER: '0', MAX_DIGITAL_FILE_BYTES: String(64 * 1024) } });
    [owner, rival, fan, admin] = await Promise.all([
      createUser(t.ctx.db, 'performer'),
      createUser(t.ctx.db, 'performer'),
      createUser(t.ctx.db, 'user'),
      createUser(t.ctx.db, 'admin'),
    ]);
    for (const group of ['video', 'gallery', 'product'] as const) {
      category[group] = (await makeCategory(t.ctx.db, group, `${group} cat`, { slug: `${group}-cat` })).id;
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const as = (u: TestUser) => ({ headers: u.headers });
  const count = async (table: 'videos' | 'files' | 'photos' | 'galleries' | 'products' | 'posts') =>
    Number((await t.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const performerRow = (id: string) => t.ctx.db.selectFrom('performers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const exists = async (key: string) => (await t.ctx.storage.stat(key)) !== null;

  async function uploadVideo(who: TestUser, fields: Record<string, string | string[]> = {}) {
    const res = await postForm(t, '/performer/assets/videos/upload', { fields: { title: 'A video', ...fields }, files: [{ name: 'file', filename: 'v.mp4', data: media.video }] }, as(who));
    expect(res.status).toBe(201);
    return res.body;
  }

  describe('videos', () => {
    it('upload records every field: tags, categories, schedule, sale price; the performer count goes up', async () => {
      const before = (await performerRow(owner.id)).videoCount;
      const scheduledAt = new Date(Date.now() + 86_400_000).toISOString();
      const v = await uploadVideo(owner, {
        title: 'Scheduled sale',
        description: 'Out tomorrow',
        visibility: 'sale',
        price: '1299',
        tags: '["Yoga", "mobility", "yoga"]',
        categoryIds: category.video!,
        scheduledAt,
      });
      expect(v).toMatchObject({ title: 'Scheduled sale', visibility: 'sale', price: 1299, tags: ['yoga', 'mobility'], categoryIds: [category.video], scheduledAt, publishedAt: scheduledAt, status: 'active' });
      expect(v.slug).toMatch(/^scheduled-sale-[0-9a-f]{6}$/);
      expect((await performerRow(owner.id)).videoCount).toBe(before + 1);
      const tags = await t.ctx.db.selectFrom('contentTags').select('tag').where('objectId', '=', v._id).orderBy('tag').execute();
      expect(tags.map((r) => r.tag)).toEqual(['mobility', 'yoga']);
      const job = await t.ctx.db.selectFrom('jobs').selectAll().where('subject', '=', `video:${v._id}`).executeTakeFirstOrThrow();
      expect(job).toMatchObject({ type: 'video.process', status: 'queued', attempts: 0 });
      expect(JSON.parse(job.payload)).toEqual({ videoId: v._id });
    });

    it('rejects an unknown category or one of another group', async () => {
      for (const categoryIds of ['nope', category.product!]) {
        const res = await postForm(t, '/performer/assets/videos/upload', { fields: { title: 'x', categoryIds }, files: [{ name: 'file', filename: 'v.mp4', data: media.video }] }, as(owner));
        expect(res.status).toBe(400);
        expect(res.body.details[0].path).toBe('body.categoryIds');
      }
    });

    it('PUT edits the owner’s video; other performers get 404, fans 403, guests 401', async () => {
      const v = await uploadVideo(owner);
      const path = `/performer/assets/videos/${v._id}`;
      expect((await t.api(path, { method: 'PUT', json: { title: 'Hijack' }, ...as(rival) })).status).toBe(404);
      expect((await t.api(path, { method: 'PUT', json: { title: 'Hijack' }, ...as(fan) })).status).toBe(403);
      expect((await t.api(path, { method: 'PUT', json: { title: 'Hijack' } })).status).toBe(401);
      expect((await t.api('/performer/assets/videos/unknown-id', { method: 'PUT', json: { title: 'x' }, ...as(owner) })).status).toBe(404);

      const res = await t.api(path, { method: 'PUT', json: { title: 'Renamed', visibility: 'sale', price: 500, tags: ['a', 'b'], categoryIds: [category.video], status: 'inactive' }, ...as(owner) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ title: 'Renamed', visibility: 'sale', price: 500, tags: ['a', 'b'], categoryIds: [category.video], status: 'inactive', slug: v.slug });
      // Going free drops the price; only the fields sent change.
      const free = await t.api(path, { method: 'PUT', json: { visibility: 'free' }, ...as(owner) });
      expect(free.body).toMatchObject({ title: 'Renamed', visibility: 'free', price: 0, tags: ['a', 'b'] });
      const row = await t.ctx.db.selectFrom('videos').selectAll().where('id', '=', v._id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ access: 'free', isSale: 0, price: 0, title: 'Renamed' });
      // Admins may edit anything.
      expect((await t.api(path, { method: 'PUT', json: { status: 'active' }, ...as(admin) })).status).toBe(200);
    });

    it('PUT validates its input and changes nothing on a 400', async () => {
      const v = await uploadVideo(owner, { title: 'Stable' });
      const path = `/performer/assets/videos/${v._id}`;
      const bad = [
        { visibility: 'secret' },
        { price: -1 },
        { price: 9.99, visibility: 'sale' },
        { visibility: 'sale', price: 0 },
        { title: '' },
        { title: 'x'.repeat(201) },
        { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
        { categoryIds: ['missing'] },
        { scheduledAt: 'tomorrow' },
        { status: 'deleted' },
      ];
      for (const body of bad) {
        const res = await t.api(path, { method: 'PUT', json: body, ...as(owner) });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
      const row = await t.ctx.db.selectFrom('videos').selectAll().where('id', '=', v._id).executeTakeFirstOrThrow();
      expect(row.title).toBe('Stable');
      expect(row.access).toBe('subscribers');
    });

    it('DELETE removes only the owner’s video, with its rows, links and stored files', async () => {
      const v = await uploadVideo(owner, { tags: 'gone', categoryIds: category.video! });
      const path = `/performer/assets/videos/${v._id}`;
      const fileRow = await t.ctx.db.selectFrom('videos').innerJoin('files', 'files.id', 'videos.fileId').select(['files.id', 'files.storageKey']).where('videos.id', '=', v._id).executeTakeFirstOrThrow();
      expect(await exists(fileRow.storageKey)).toBe(true);
      const before = (await performerRow(owner.id)).videoCount;
      expect((await t.api(path, { method: 'DELETE', ...as(rival) })).status).toBe(404);
      expect((await t.api(path, { method: 'DELETE', ...as(fan) })).status).toBe(403);
      const res = await t.api(path, { method: 'DELETE', ...as(owner) });
      expect(res.status).toBe(204);
      expect(await t.ctx.db.selectFrom('videos').select('id').where('id', '=', v._id).executeTakeFirst()).toBeUndefined();
      expect(await t.ctx.db.selectFrom('files').select('id').where('id', '=', fileRow.id).executeTakeFirst()).toBeUndefined();
      expect(await t.ctx.db.selectFrom('contentTags').select('tag').where('objectId', '=', v._id).executeTakeFirst()).toBeUndefined();
      expect(await t.ctx.db.selectFrom('contentCategories').select('categoryId').where('objectId', '=', v._id).executeTakeFirst()).toBeUndefined();
      expect(await exists(fileRow.storageKey)).toBe(false);
      expect((await performerRow(owner.id)).videoCount).toBe(before - 1);
      expect((await t.api(path, { method: 'DELETE', ...as(owner) })).status).toBe(404);
    });

    it('DELETE of a video somebody bought only hides it, so the buyer keeps it', async () => {
      const v = await uploadVideo(owner, { visibility: 'sale', price: '300' });
      const now = nowIso();
      const paymentId = newId();
      await t.ctx.db
        .insertInto('payments')
        .values({ id: paymentId, userId: fan.id, performerId: owner.id, type: 'video', status: 'success', gateway: 'sandbox', targetId: v._id, originalPrice: 300, amount: 300, currency: 'USD', createdAt: now, updatedAt: now })
        .execute();
      await t.ctx.db.insertInto('entitlements').values({ userId: fan.id, objectType: 'video', objectId: v._id, paymentId, createdAt: now }).execute();
      expect((await t.api(`/performer/assets/videos/${v._id}`, { method: 'DELETE', ...as(owner) })).status).toBe(204);
      const row = await t.ctx.db.selectFrom('videos').select(['status', 'fileId']).where('id', '=', v._id).executeTakeFirstOrThrow();
      expect(row.status).toBe('inactive');
      expect(row.fileId).not.toBeNull();
    });

    it('retry is refused for a video that is still processing, and for someone else’s', async () => {
      const v = await uploadVideo(owner);
      expect((await t.api(`/performer/assets/videos/${v._id}/retry`, { method: 'POST', ...as(owner) })).status).toBe(409);
      expect((await t.api(`/performer/assets/videos/${v._id}/retry`, { method: 'POST', ...as(rival) })).status).toBe(404);
      expect((await t.api(`/performer/assets/videos/${v._id}/processing`, as(rival))).status).toBe(404);
      const state = await t.api(`/performer/assets/videos/${v._id}/processing`, as(owner));
      expect(state.body).toMatchObject({ processingStatus: 'processing', attempts: 0, maxAttempts: 3, nextAttemptAt: null });
    });
  });

  describe('galleries and photos', () => {
    it('creates, edits and deletes a gallery with its photos; only the owner may', async () => {
      const created = await t.api('/performer/assets/galleries', { method: 'POST', json: { title: 'Beach', visibility: 'sale', price: 699, tags: ['sea'], categoryIds: [category.gallery] }, ...as(owner) });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ title: 'Beach', visibility: 'sale', price: 699, photoCount: 0, coverPhotoId: null, tags: ['sea'], categoryIds: [category.gallery] });
      const id = created.body._id;
      expect((await t.api('/performer/assets/galleries', { method: 'POST', json: { description: 'no title' }, ...as(owner) })).status).toBe(400);
      expect((await t.api('/performer/assets/galleries', { method: 'POST', json: { title: 'x' }, ...as(fan) })).status).toBe(403);

      // Photos go only into one's own gallery.
      const photoForm = (galleryId: string) => ({ fields: { galleryId, title: 'Shot' }, files: [{ name: 'file', filename: 'a.png', data: media.png }, { name: 'file', filename: 'b.jpg', data: media.jpeg }] });
      expect((await postForm(t, '/performer/assets/photos/upload', photoForm(id), as(rival))).status).toBe(404);
      expect((await postForm(t, '/performer/assets/photos/upload', photoForm('missing'), as(owner))).status).toBe(404);
      expect((await postForm(t, '/performer/assets/photos/upload', { fields: { galleryId: id }, files: [{ name: 'file', filename: 'v.mp4', data: media.video }] }, as(owner))).status).toBe(400);
      expect((await postForm(t, '/performer/assets/photos/upload', { fields: { galleryId: id } }, as(owner))).status).toBe(400);
      const photos = await postForm(t, '/performer/assets/photos/upload', photoForm(id), as(owner));
      expect(photos.status).toBe(201);
      expect(photos.body.items).toHaveLength(2);
      expect(photos.body.items[0]).toMatchObject({ galleryId: id, title: 'Shot 1', position: 0, processingStatus: 'processing', width: 64, height: 48 });
      expect(photos.body.items[1]).toMatchObject({ title: 'Shot 2', position: 1 });
      const [p1, p2] = photos.body.items.map((p: { _id: string }) => p._id);
      const gallery = await t.ctx.db.selectFrom('galleries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(gallery).toMatchObject({ photoCount: 2, coverPhotoId: p1 });

      expect((await t.api(`/performer/assets/photos/${p2}`, { method: 'PUT', json: { title: 'Mine' }, ...as(rival) })).status).toBe(404);
      const edited = await t.api(`/performer/assets/photos/${p2}`, { method: 'PUT', json: { title: 'Best shot', position: 7 }, ...as(owner) });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ title: 'Best shot', position: 7 });

      // Deleting the cover photo moves the cover to the next one.
      expect((await t.api(`/performer/assets/photos/${p1}`, { method: 'DELETE', ...as(rival) })).status).toBe(404);
      expect((await t.api(`/performer/assets/photos/${p1}`, { method: 'DELETE', ...as(owner) })).status).toBe(204);
      const after = await t.ctx.db.selectFrom('galleries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(after).toMatchObject({ photoCount: 1, coverPhotoId: p2 });

      const update = await t.api(`/performer/assets/galleries/${id}`, { method: 'PUT', json: { visibility: 'free', title: 'Beach days' }, ...as(owner) });
      expect(update.status).toBe(200);
      expect(update.body).toMatchObject({ visibility: 'free', price: 0, title: 'Beach days' });
      // p2's jobs: its upload, becoming the cover of a locked gallery (unblurred), the gallery opening (redone).
      const rethumb = await t.ctx.db.selectFrom('jobs').select('status').where('subject', '=', `photo:${p2}`).execute();
      expect(rethumb.length).toBe(3);
      expect((await t.api(`/performer/assets/galleries/${id}`, { method: 'PUT', json: { title: 'x' }, ...as(rival) })).status).toBe(404);

      const keys = (await t.ctx.db.selectFrom('photos').innerJoin('files', 'files.id', 'photos.fileId').select('files.storageKey').where('photos.galleryId', '=', id).execute()).map((r) => r.storageKey);
      expect(keys).toHaveLength(1);
      expect((await t.api(`/performer/assets/galleries/${id}`, { method: 'DELETE', ...as(rival) })).status).toBe(404);
      expect((await t.api(`/performer/assets/galleries/${id}`, { method: 'DELETE', ...as(owner) })).status).toBe(204);
      expect(await t.ctx.db.selectFrom('photos').select('id').where('galleryId', '=', id).executeTakeFirst()).toBeUndefined();
      expect(await exists(keys[0]!)).toBe(false);
    });
  });

  describe('products', () => {
    it('a physical product has stock and no file; a digital one needs its file', async () => {
      const physical = await t.api('/performer/assets/products', { method: 'POST', json: { name: 'Mug', price: 1500, stock: 12, categoryIds: [category.product] }, ...as(owner) });
      expect(physical.status).toBe(201);
      expect(physical.body).toMatchObject({ name: 'Mug', type: 'physical', price: 1500, stock: 12, digitalFile: null, imageUrl: null, imageStatus: 'none', categoryIds: [category.product] });

      const noFile = await t.api('/performer/assets/products', { method: 'POST', json: { name: 'Ebook', price: 999, type: 'digital' }, ...as(owner) });
      expect(noFile.status).toBe(400);
      expect(noFile.body.details[0].path).toBe('body.file');
      const fileOnPhysical = await postForm(t, '/performer/assets/products', { fields: { name: 'Mug', price: '100' }, files: [{ name: 'file', filename: 'x.pdf', data: media.pdf }] }, as(owner));
      expect(fileOnPhysical.status).toBe(400);
      for (const body of [{ name: 'x' }, { name: 'x', price: 0 }, { name: 'x', price: 10, stock: -1 }, { name: 'x', price: 10, type: 'service' }, { price: 10 }]) {
        const res = await t.api('/performer/assets/products', { method: 'POST', json: body, ...as(owner) });
        expect(res.status, JSON.stringify(body)).toBe(400);
      }
      const unknownType = await postForm(t, '/performer/assets/products', { fields: { name: 'Exe', price: '100', type: 'digital' }, files: [{ name: 'file', filename: 'x.exe', data: Buffer.from('MZ\x90\x00 not allowed') }] }, as(owner));
      expect(unknownType.status).toBe(400);
      expect(unknownType.body.code).toBe('UNSUPPORTED_MEDIA');
      const tooBig = await postForm(t, '/performer/assets/products', { fields: { name: 'Big', price: '100', type: 'digital' }, files: [{ name: 'file', filename: 'x.pdf', data: Buffer.concat([media.pdf, Buffer.alloc(70 * 1024)]) }] }, as(owner));
      expect(tooBig.status).toBe(413);

      const digital = await postForm(
        t,
        '/performer/assets/products',
        { fields: { name: 'Ebook', price: '999', type: 'digital', stock: '5', tags: 'pdf,guide' }, files: [{ name: 'file', filename: 'guide.pdf', data: media.pdf }, { name: 'image', filename: 'cover.png', data: media.png }] },
        as(owner),
      );
      expect(digital.status).toBe(201);
      expect(digital.body).toMatchObject({ type: 'digital', stock: null, tags: ['pdf', 'guide'], imageStatus: 'processing', digitalFile: { name: 'guide.pdf', mime: 'application/pdf', size: media.pdf.length } });
      const row = await t.ctx.db.selectFrom('products').innerJoin('files', 'files.id', 'products.digitalFileId').select('files.storageKey').where('products.id', '=', digital.body._id).executeTakeFirstOrThrow();
      expect(row.storageKey).toMatch(/^private\/products\/.+\.pdf$/);
    });

    it('PUT edits and replaces files, only for the owner; DELETE removes it (hides it once ordered)', async () => {
      const created = await postForm(t, '/performer/assets/products', { fields: { name: 'Ebook', price: '999', type: 'digital' }, files: [{ name: 'file', filename: 'v1.pdf', data: media.pdf }] }, as(owner));
      const id = created.body._id;
      const oldKey = (await t.ctx.db.selectFrom('products').innerJoin('files', 'files.id', 'products.digitalFileId').select('files.storageKey').where('products.id', '=', id).executeTakeFirstOrThrow()).storageKey;
      expect((await t.api(`/performer/assets/products/${id}`, { method: 'PUT', json: { price: 1 }, ...as(rival) })).status).toBe(404);
      expect((await t.api(`/performer/assets/products/${id}`, { method: 'PUT', json: { price: 1 }, ...as(fan) })).status).toBe(403);
      const replaced = await postForm(t, `/performer/assets/products/${id}`, { fields: { price: '1499', description: 'Second edition' }, files: [{ name: 'file', filename: 'v2.pdf', data: media.pdf }] }, { ...as(owner), method: 'PUT' });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ price: 1499, description: 'Second edition', digitalFile: { name: 'v2.pdf' } });
      expect(await exists(oldKey)).toBe(false);
      // Turning it physical drops the file and takes stock.
      const physical = await t.api(`/performer/assets/products/${id}`, { method: 'PUT', json: { type: 'physical', stock: 4 }, ...as(owner) });
      expect(physical.body).toMatchObject({ type: 'physical', stock: 4, digitalFile: null });

      expect((await t.api(`/performer/assets/products/${id}`, { method: 'DELETE', ...as(rival) })).status).toBe(404);
      expect((await t.api(`/performer/assets/products/${id}`, { method: 'DELETE', ...as(owner) })).status).toBe(204);
      expect(await t.ctx.db.selectFrom('products').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
    });
  });

  describe('posts', () => {
    it('creates a post from plain text (no markup gets through), edits and deletes it, owner only', async () => {
      const res = await t.api('/performer/assets/posts', { method: 'POST', json: { title: 'News', content: 'Hello <script>alert(1)</script>\n\nSecond & last' }, ...as(owner) });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ title: 'News', status: 'published', content: 'Hello <script>alert(1)</script>\n\nSecond & last', excerpt: 'Hello <script>alert(1)</script> Second & last' });
      expect(res.body.publishedAt).toBeTruthy();
      const row = await t.ctx.db.selectFrom('posts').selectAll().where('id', '=', res.body._id).executeTakeFirstOrThrow();
      expect(row.content).toBe('<p>Hello &lt;script&gt;alert(1)&lt;/script&gt;</p>\n<p>Second &amp; last</p>');
      expect(row).toMatchObject({ performerId: owner.id, authorId: owner.id, type: 'post' });

      expect((await t.api('/performer/assets/posts', { method: 'POST', json: { title: 'No content' }, ...as(owner) })).status).toBe(400);
      expect((await t.api('/performer/assets/posts', { method: 'POST', json: { title: 'x', content: 'y', status: 'live' }, ...as(owner) })).status).toBe(400);
      expect((await t.api('/performer/assets/posts', { method: 'POST', json: { title: 'x', content: 'y' }, ...as(fan) })).status).toBe(403);

      const path = `/performer/assets/posts/${res.body._id}`;
      expect((await t.api(path, { method: 'PUT', json: { title: 'Mine now' }, ...as(rival) })).status).toBe(404);
      const edited = await t.api(path, { method: 'PUT', json: { title: 'News, edited', status: 'draft' }, ...as(owner) });
      expect(edited.status).toBe(200);
      expect(edited.body).toMatchObject({ title: 'News, edited', status: 'draft', slug: res.body.slug });
      expect((await t.api(path, { method: 'DELETE', ...as(rival) })).status).toBe(404);
      expect((await t.api(path, { method: 'DELETE', ...as(owner) })).status).toBe(204);
      expect((await t.api(path, { method: 'DELETE', ...as(owner) })).status).toBe(404);
    });
  });

  describe('items an admin took down', () => {
    it("stay down: the performer may still edit them but not change their status, until an admin restores them", async () => {
      const ctx = { db: t.ctx.db, storage: t.ctx.storage };
      const items = {
        video: { path: (id: string) => `/performer/assets/videos/${id}`, id: (await makeVideo(ctx, owner.id, { withFiles: false })).id, back: 'active', title: 'title' },
        gallery: { path: (id: string) => `/performer/assets/galleries/${id}`, id: (await makeGallery(ctx, owner.id)).id, back: 'active', title: 'title' },
        product: { path: (id: string) => `/performer/assets/products/${id}`, id: (await makeProduct(ctx, owner.id)).id, back: 'active', title: 'name' },
        post: { path: (id: string) => `/performer/assets/posts/${id}`, id: (await makePost(ctx, { performerId: owner.id, authorId: owner.id, type: 'post', imageFileId: null })).id, back: 'published', title: 'title' },
      } as const;
      const tables = { video: 'videos', gallery: 'galleries', product: 'products', post: 'posts' } as const;
      const statusOf = async (type: keyof typeof items) => (await t.ctx.db.selectFrom(tables[type]).select('status').where('id', '=', items[type].id).executeTakeFirstOrThrow()).status;
      for (const [type, item] of Object.entries(items) as [keyof typeof items, (typeof items)[keyof typeof items]][]) {
        const hide = await t.api(`/admin/content/${type}/${item.id}/status`, { method: 'PUT', json: { status: 'hidden' }, ...as(admin) });
        expect(hide.status, type).toBe(200);
        const back = await t.api(item.path(item.id), { method: 'PUT', json: { status: item.back }, ...as(owner) });
        expect(back.status, type).toBe(403);
        expect(back.body.code, type).toBe('HIDDEN_BY_ADMIN');
        expect(await statusOf(type), type).toBe('hidden');
        const edit = await t.api(item.path(item.id), { method: 'PUT', json: { [item.title]: `Edited ${type}` }, ...as(owner) });
        expect(edit.status, type).toBe(200);
        expect(await statusOf(type), type).toBe('hidden');
        // Restored by an admin, it is the performer's to publish or withdraw again.
        expect((await t.api(`/admin/content/${type}/${item.id}/status`, { method: 'PUT', json: { status: item.back }, ...as(admin) })).status, type).toBe(200);
        const withdraw = await t.api(item.path(item.id), { method: 'PUT', json: { status: 'draft' }, ...as(owner) });
        expect(withdraw.status, type).toBe(200);
        expect(await statusOf(type), type).toBe('draft');
      }
      // A photo an admin hid: the same rule (photos are hidden through their status too).
      const gallery = await makeGallery(ctx, owner.id, { photos: 1 });
      const photo = await t.ctx.db.selectFrom('photos').select('id').where('galleryId', '=', gallery.id).executeTakeFirstOrThrow();
      await t.ctx.db.updateTable('photos').set({ status: 'hidden' }).where('id', '=', photo.id).execute();
      const photoBack = await t.api(`/performer/assets/photos/${photo.id}`, { method: 'PUT', json: { status: 'active' }, ...as(owner) });
      expect(photoBack.status).toBe(403);
      expect(photoBack.body.code).toBe('HIDDEN_BY_ADMIN');
    });
  });

  describe('profile', () => {
    it('edits bio, prices and blocked countries of the signed-in performer', async () => {
      const res = await t.api('/performer/profile', { method: 'PUT', json: { bio: 'Yoga every day', monthlyPrice: 999, yearlyPrice: 9990, blockedCountries: ['us', 'FR', 'us'] }, ...as(owner) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ _id: owner.id, bio: 'Yoga every day', monthlyPrice: 999, yearlyPrice: 9990, blockedCountries: ['FR', 'US'] });
      const row = await performerRow(owner.id);
      expect(row).toMatchObject({ bio: 'Yoga every day', monthlyPrice: 999, yearlyPrice: 9990 });
      // Only the fields sent change; an empty list unblocks everything.
      const partial = await t.api('/performer/profile', { method: 'PUT', json: { blockedCountries: [] }, ...as(owner) });
      expect(partial.body).toMatchObject({ bio: 'Yoga every day', monthlyPrice: 999, blockedCountries: [] });
      expect((await t.api('/performer/profile', as(owner))).body.monthlyPrice).toBe(999);
      // The rival's profile is untouched.
      expect((await performerRow(rival.id)).monthlyPrice).toBe(0);
    });

    it('validates the input and refuses other roles', async () => {
      for (const body of [{ monthlyPrice: -1 }, { yearlyPrice: 1.5 }, { blockedCountries: ['XX'] }, { blockedCountries: 'US' }, { bio: 'x'.repeat(2001) }]) {
        const res = await t.api('/performer/profile', { method: 'PUT', json: body, ...as(owner) });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.code).toBe('VALIDATION_FAILED');
      }
      expect((await t.api('/performer/profile', { method: 'PUT', json: { bio: 'x' }, ...as(fan) })).status).toBe(403);
      expect((await t.api('/performer/profile', { method: 'PUT', json: { bio: 'x' } })).status).toBe(401);
    });
  });

  it('never answers 5xx to malformed multipart bodies', async () => {
    const res = await fetch(`${t.url}${t.config.apiBase}/performer/assets/videos/upload`, {
      method: 'POST',
      headers: { ...owner.headers, 'content-type': 'multipart/form-data; boundary=xyz' },
      body: '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.mp4"\r\n\r\npartial',
    });
    expect(res.status).toBe(400);
    const noBoundary = await fetch(`${t.url}${t.config.apiBase}/performer/assets/videos/upload`, { method: 'POST', headers: { ...owner.headers, 'content-type': 'multipart/form-data' }, body: 'x' });
    expect(noBoundary.status).toBeLessThan(500);
    // No temp file stays behind. An upload refused mid-stream (an earlier test's 413) removes its own after the answer
    // has left (the refusal does not wait for it), seconds later on a loaded machine: this waits for that, up to 10 s.
    const partials = () => (fs.existsSync(t.config.mediaDir) ? fs.readdirSync(t.config.mediaDir, { recursive: true }).filter((f) => String(f).endsWith('.part')) : []);
    for (let i = 0; i < 200 && partials().length; i++) await new Promise((ok) => setTimeout(ok, 50));
    expect(partials()).toEqual([]);
  });
});
