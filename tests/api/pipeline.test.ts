import fs from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeTestMedia, postForm, waitFor, type TestMedia } from '../helpers/uploads.js';
import { startSiblingApp } from '../helpers/sibling-app.js';
import { newId, nowIso } from '../../server/db/ids.js';
import { probeFile } from '../../server/media/ffmpeg.js';
import type { BuiltApp } from '../../server/app.js';

/**
 * Media pipeline: uploads streamed to storage with type sniffing and size limits,
 * processing in the database job queue (poster, thumbnail, teaser, duration), retries and the retry
 * endpoint, restart survival through leases, two instances sharing one queue, clean shutdown.
 */

const fastJobs = {
  JOBS_POLL_MS: '50',
  JOBS_BACKOFF_MS: '50',
  JOBS_BACKOFF_MAX_MS: '200',
  JOBS_MAX_ATTEMPTS: '3',
  JOBS_LEASE_MS: '5000',
  JOBS_STOP_TIMEOUT_MS: '200',
  VIDEO_TEASER_SECONDS: '2',
  MAX_VIDEO_BYTES: String(2 * 1024 * 1024),
  MAX_IMAGE_BYTES: String(200 * 1024),
};

let media: TestMedia;
beforeAll(async () => {
  media = await makeTestMedia();
});
afterAll(async () => {
  await media?.cleanup();
});

describe.each(engines)('media pipeline on %s', (engine) => {
  let t: TestApp;
  let performer: TestUser;
  let fan: TestUser;
  const siblings: BuiltApp[] = [];

  beforeAll(async () => {
    t = await startTestApp(engine, { env: fastJobs });
    performer = await createUser(t.ctx.db, 'performer');
    fan = await createUser(t.ctx.db, 'user');
  });
  afterAll(async () => {
    for (const s of siblings) await s.close();
    await t?.close();
  });

  const uploadVideo = (fields: Record<string, string | string[]>, files: Parameters<typeof postForm>[2]['files'], who = performer) =>
    postForm(t, '/performer/assets/videos/upload', { fields, files }, { headers: who.headers });
  const video = (id: string) => t.ctx.db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const file = (id: string | null) => t.ctx.db.selectFrom('files').selectAll().where('id', '=', id!).executeTakeFirstOrThrow();
  const jobsOf = (subject: string) => t.ctx.db.selectFrom('jobs').selectAll().where('subject', '=', subject).orderBy('createdAt').execute();
  const waitStatus = (id: string, status: string) =>
    waitFor(async () => (await video(id)).processingStatus === status, `video ${id} to be ${status}`);

  describe('video upload and processing', () => {
    it('stores the upload, answers at once, then derives poster, thumbnail, teaser and duration in the background', async () => {
      const res = await uploadVideo(
        { title: 'Sunset session', description: 'On the beach', visibility: 'sale', price: '499', tags: ['Yoga', 'beach'], scheduledAt: '' },
        [{ name: 'file', filename: 'my clip.mp4', data: media.longVideo, type: 'video/mp4' }],
      );
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ title: 'Sunset session', visibility: 'sale', price: 499, tags: ['yoga', 'beach'], processingStatus: 'processing', duration: null });
      const id = res.body._id as string;

      await waitStatus(id, 'ready');
      const v = await video(id);
      expect(v.duration).toBeGreaterThan(11.5);
      expect(v.duration).toBeLessThan(12.5);
      expect(v.isSale).toBe(1);
      const original = await file(v.fileId);
      expect(original).toMatchObject({ status: 'ready', kind: 'video', mime: 'video/mp4', originalName: 'my clip.mp4', width: 320, height: 240, error: null });
      expect(original.storageKey).toMatch(/^private\/videos\/.+\.mp4$/);
      const children = await t.ctx.db.selectFrom('files').selectAll().where('parentId', '=', original.id).execute();
      expect(children.map((c) => c.variant).sort()).toEqual(['poster', 'teaser', 'thumb']);
      const teaser = await file(v.teaserFileId);
      const thumb = await file(v.thumbnailFileId);
      expect(teaser).toMatchObject({ variant: 'teaser', kind: 'video', mime: 'video/mp4', status: 'ready' });
      expect(thumb).toMatchObject({ variant: 'thumb', kind: 'image', mime: 'image/webp', width: 640, height: 360 });
      for (const f of [original, ...children]) {
        const stat = await t.ctx.storage.stat(f.storageKey);
        expect(stat?.size, f.storageKey).toBeGreaterThan(0);
        expect(Number(f.size)).toBe(stat!.size);
      }
      // The teaser is a short, scaled-down re-encode.
      const teaserInfo = await probeFile(t.ctx.storage.localPath(teaser.storageKey)!);
      expect(teaserInfo.duration).toBeLessThanOrEqual(2.2);
      expect(teaserInfo.hasVideo).toBe(true);
      // Poster, thumbnail and teaser are public; the original is not.
      const teaserRes = await fetch(`${t.url}/media/${teaser.storageKey}`, { headers: { range: 'bytes=0-99' } });
      expect(teaserRes.status).toBe(206);
      expect(teaserRes.headers.get('content-type')).toBe('video/mp4');
      expect((await fetch(`${t.url}/media/${original.storageKey}`)).status).toBe(404);

      const job = await waitFor(async () => {
        const [row] = await jobsOf(`video:${id}`);
        return row?.status === 'done' ? row : undefined;
      }, 'the job to be marked done');
      expect(job).toMatchObject({ type: 'video.process', status: 'done', attempts: 1, lockedBy: null, lastError: null });

      const state = await t.api(`/performer/assets/videos/${id}/processing`, { headers: performer.headers });
      expect(state.status).toBe(200);
      expect(state.body).toMatchObject({ processingStatus: 'ready', processingError: null, attempts: 1 });
      expect(state.body.teaserUrl).toBe(`/media/${teaser.storageKey}`);
    });

    it("uses the performer's own thumbnail and teaser when given", async () => {
      const res = await uploadVideo({ title: 'With extras', visibility: 'subscribers' }, [
        { name: 'file', filename: 'a.mp4', data: media.longVideo },
        { name: 'teaser', filename: 't.mp4', data: media.video },
        { name: 'thumbnail', filename: 'thumb.png', data: media.png },
      ]);
      expect(res.status).toBe(201);
      const id = res.body._id;
      await waitStatus(id, 'ready');
      const v = await video(id);
      const sources = await t.ctx.db.selectFrom('files').selectAll().where('parentId', '=', v.fileId!).where('variant', 'in', ['teaser-source', 'thumb-source']).execute();
      expect(sources).toHaveLength(2);
      expect(sources.every((s) => s.status === 'ready' && s.storageKey.startsWith('private/'))).toBe(true);
      const teaserInfo = await probeFile(t.ctx.storage.localPath((await file(v.teaserFileId)).storageKey)!);
      // The performer's 3 s teaser is not cut to VIDEO_TEASER_SECONDS (2 s), only to the public teaser limit of a
      // 12 s video (a fifth: 2.4 s).
      expect(teaserInfo.duration).toBeGreaterThan(2.2);
      expect(teaserInfo.duration).toBeLessThanOrEqual(2.4);
    });

    it('fails a corrupt video after the configured attempts, with the error, and the retry endpoint processes it again', async () => {
      const res = await uploadVideo({ title: 'Broken' }, [{ name: 'file', filename: 'broken.mp4', data: media.corruptVideo }]);
      expect(res.status).toBe(201);
      const id = res.body._id;
      await waitStatus(id, 'failed');
      const v = await video(id);
      const original = await file(v.fileId);
      expect(original.status).toBe('failed');
      expect(original.error).toMatch(/^The video could not be processed: .*moov atom not found/);
      expect(original.error).not.toMatch(/\/tmp|\/media\/|0x[0-9a-f]{6}/); // no server paths or addresses
      const [job] = await jobsOf(`video:${id}`);
      expect(job).toMatchObject({ status: 'failed', attempts: 3, maxAttempts: 3, lockedBy: null });
      expect(job!.lastError).toBe(original.error);

      const state = await t.api(`/performer/assets/videos/${id}/processing`, { headers: performer.headers });
      expect(state.body).toMatchObject({ processingStatus: 'failed', attempts: 3, maxAttempts: 3 });
      expect(state.body.processingError).toBe(original.error);

      // Only the owner may retry; a fan is refused.
      expect((await t.api(`/performer/assets/videos/${id}/retry`, { method: 'POST', headers: fan.headers })).status).toBe(403);
      // Repair the stored file, then retry: a new job with fresh attempts succeeds.
      await t.ctx.storage.put(original.storageKey, fs.createReadStream(media.video));
      const retry = await t.api(`/performer/assets/videos/${id}/retry`, { method: 'POST', headers: performer.headers });
      expect(retry.status).toBe(202);
      expect(retry.body.processingStatus).toBe('processing');
      await waitStatus(id, 'ready');
      expect((await file(v.fileId)).error).toBeNull();
      const jobs = await jobsOf(`video:${id}`);
      expect(jobs.map((j) => j.status)).toEqual(['failed', 'done']);
      // A ready video cannot be retried.
      const again = await t.api(`/performer/assets/videos/${id}/retry`, { method: 'POST', headers: performer.headers });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('CONFLICT');
    });
  });

  describe('upload checks', () => {
    async function countRows() {
      const [videos, files] = await Promise.all([
        t.ctx.db.selectFrom('videos').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
        t.ctx.db.selectFrom('files').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
      ]);
      return { videos: Number(videos.n), files: Number(files.n) };
    }
    function storedKeys(): string[] {
      const dir = `${t.config.mediaDir}/private/videos`;
      return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    }

    it('refuses guests (401) and fans (403) before reading the upload', async () => {
      const files = [{ name: 'file', filename: 'a.mp4', data: media.video }];
      expect((await postForm(t, '/performer/assets/videos/upload', { fields: { title: 'x' }, files })).status).toBe(401);
      const asFan = await uploadVideo({ title: 'x' }, files, fan);
      expect(asFan.status).toBe(403);
      expect(asFan.body.code).toBe('FORBIDDEN');
    });

    it('answers 400 when the content is not what the field expects, whatever the name or declared type says', async () => {
      const before = await countRows();
      const keys = storedKeys();
      const png = await uploadVideo({ title: 'x' }, [{ name: 'file', filename: 'video.mp4', data: media.png, type: 'video/mp4' }]);
      expect(png.status).toBe(400);
      expect(png.body.code).toBe('UNSUPPORTED_MEDIA');
      expect(png.body.message).toMatch(/video must be MP4.*PNG image/);
      const text = await uploadVideo({ title: 'x' }, [{ name: 'file', filename: 'video.mp4', data: Buffer.from('just some text, not a video at all'), type: 'video/mp4' }]);
      expect(text.status).toBe(400);
      expect(text.body.message).toMatch(/unrecognised format/);
      // A video as the thumbnail is refused too, and the video already stored is removed again.
      const thumb = await uploadVideo({ title: 'x' }, [
        { name: 'file', filename: 'a.mp4', data: media.video },
        { name: 'thumbnail', filename: 'thumb.jpg', data: media.video, type: 'image/jpeg' },
      ]);
      expect(thumb.status).toBe(400);
      expect(thumb.body.message).toMatch(/thumbnail must be JPEG/);
      // JSON instead of multipart.
      const json = await t.api('/performer/assets/videos/upload', { method: 'POST', json: { title: 'x' }, headers: performer.headers });
      expect(json.status).toBe(400);
      expect(await countRows()).toEqual(before);
      expect(storedKeys()).toEqual(keys);
    });

    it('answers 413 for a file over its limit, and 400 for bad fields, leaving nothing behind', async () => {
      const before = await countRows();
      const keys = storedKeys();
      const big = Buffer.concat([fs.readFileSync(media.video), Buffer.alloc(2 * 1024 * 1024)]);
      const res = await uploadVideo({ title: 'Too big' }, [{ name: 'file', filename: 'big.mp4', data: big }]);
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
      expect(res.body.message).toMatch(/video is too large: the limit is 2 MB/);
      const bigThumb = await uploadVideo({ title: 'x' }, [
        { name: 'file', filename: 'a.mp4', data: media.video },
        { name: 'thumbnail', filename: 'big.png', data: Buffer.concat([media.png, Buffer.alloc(300 * 1024)]) },
      ]);
      expect(bigThumb.status).toBe(413);
      expect(bigThumb.body.message).toMatch(/thumbnail is too large/);

      const noTitle = await uploadVideo({ description: 'no title' }, [{ name: 'file', filename: 'a.mp4', data: media.video }]);
      expect(noTitle.status).toBe(400);
      expect(noTitle.body).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ path: 'body.title' }] });
      const noPrice = await uploadVideo({ title: 'For sale', visibility: 'sale' }, [{ name: 'file', filename: 'a.mp4', data: media.video }]);
      expect(noPrice.status).toBe(400);
      expect(noPrice.body.details[0].path).toBe('body.price');
      const badPrice = await uploadVideo({ title: 'x', visibility: 'sale', price: '4.99' }, [{ name: 'file', filename: 'a.mp4', data: media.video }]);
      expect(badPrice.status).toBe(400);
      const noFile = await uploadVideo({ title: 'No file' }, []);
      expect(noFile.status).toBe(400);
      expect(noFile.body.details[0].path).toBe('body.file');
      const unknownField = await uploadVideo({ title: 'x' }, [{ name: 'other', filename: 'a.mp4', data: media.video }]);
      expect(unknownField.status).toBe(400);
      expect(unknownField.body.message).toMatch(/Unexpected file field "other"/);

      expect(await countRows()).toEqual(before);
      expect(storedKeys()).toEqual(keys);
    });
  });

  describe('images', () => {
    it('makes WebP thumbnails of uploaded photos, blurred in a locked gallery except the cover', async () => {
      const gallery = await t.api('/performer/assets/galleries', { method: 'POST', json: { title: 'Shoot', visibility: 'subscribers' }, headers: performer.headers });
      expect(gallery.status).toBe(201);
      const res = await postForm(
        t,
        '/performer/assets/photos/upload',
        { fields: { galleryId: gallery.body._id }, files: [{ name: 'file', filename: 'a.png', data: media.png }, { name: 'file', filename: 'b.jpg', data: media.jpeg }] },
        { headers: performer.headers },
      );
      expect(res.status).toBe(201);
      expect(res.body.items).toHaveLength(2);
      const ids = res.body.items.map((p: { _id: string }) => p._id);
      const photos = await waitFor(async () => {
        const rows = await t.ctx.db.selectFrom('photos').selectAll().where('id', 'in', ids).orderBy('position').execute();
        return rows.every((r) => r.processingStatus === 'ready') && rows;
      }, 'photos to be ready');
      const g = await t.ctx.db.selectFrom('galleries').selectAll().where('id', '=', gallery.body._id).executeTakeFirstOrThrow();
      expect(g.coverPhotoId).toBe(photos[0]!.id);
      expect(g.photoCount).toBe(2);
      const thumbs = await Promise.all(photos.map((p) => file(p.thumbnailFileId)));
      for (const th of thumbs) {
        expect(th).toMatchObject({ mime: 'image/webp', variant: 'thumb', status: 'ready' });
        expect(th.storageKey).toMatch(/^public\/photos\/thumbs\//);
        expect(await t.ctx.storage.stat(th.storageKey)).not.toBeNull();
      }
      // The cover stays sharp (it is shown to everyone); the other thumbnail of the locked gallery is blurred.
      const [coverStats, blurredStats] = await Promise.all(thumbs.map((th) => sharp(t.ctx.storage.localPath(th.storageKey)!).stats()));
      expect(coverStats!.channels[0]!.stdev).toBeGreaterThan(60);
      expect(blurredStats!.channels[0]!.stdev).toBeLessThan(20);
      const original = await file(photos[0]!.fileId);
      expect(original).toMatchObject({ status: 'ready', width: 64, height: 48 });
      expect(original.storageKey).toMatch(/^private\/photos\//);

      // The blurred photo also gets a sharp thumbnail, private (signed URLs only), for those who may open it.
      const privateThumbs = (fileId: string | null) => t.ctx.db.selectFrom('files').selectAll().where('parentId', '=', fileId!).where('variant', '=', 'thumb_private').execute();
      expect(await privateThumbs(photos[0]!.fileId)).toEqual([]);
      const [sharpThumb] = await privateThumbs(photos[1]!.fileId);
      expect(sharpThumb).toMatchObject({ mime: 'image/webp', status: 'ready' });
      expect(sharpThumb!.storageKey).toMatch(/^private\/photos\/thumbs\//);
      expect((await sharp(t.ctx.storage.localPath(sharpThumb!.storageKey)!).stats()).channels[0]!.stdev).toBeGreaterThan(60);
      const listed = await t.api(`/user/assets/gallery/${gallery.body._id}/photos`, { headers: performer.headers });
      expect(listed.body.items[1].thumbnail).toMatch(new RegExp(`^/media/protected/photo/${photos[1]!.id}/${sharpThumb!.id}\\?`));
      expect((await t.api(`/user/assets/gallery/${gallery.body._id}/photos`, { headers: fan.headers })).body.items[1].thumbnail).toMatch(/^\/media\/public\//);

      // Opening the gallery redoes the thumbnails: one sharp public thumbnail, the private twin and its file gone.
      expect((await t.api(`/performer/assets/galleries/${gallery.body._id}`, { method: 'PUT', json: { visibility: 'free' }, headers: performer.headers })).status).toBe(200);
      await waitFor(async () => (await privateThumbs(photos[1]!.fileId)).length === 0 && (await t.ctx.db.selectFrom('photos').select('thumbnailFileId').where('id', '=', photos[1]!.id).executeTakeFirstOrThrow()).thumbnailFileId !== photos[1]!.thumbnailFileId, 'the photo to be processed again');
      // Its file is deleted just after the swap commits.
      await waitFor(async () => (await t.ctx.storage.stat(sharpThumb!.storageKey)) === null, 'the private thumbnail file to be deleted');
      const reopened = await t.ctx.db.selectFrom('photos').select('thumbnailFileId').where('id', '=', photos[1]!.id).executeTakeFirstOrThrow();
      const sharpPublic = await file(reopened.thumbnailFileId);
      expect(sharpPublic.storageKey).toMatch(/^public\/photos\/thumbs\//);
      expect((await sharp(t.ctx.storage.localPath(sharpPublic.storageKey)!).stats()).channels[0]!.stdev).toBeGreaterThan(60);
    });

    it('converts product and post pictures to public WebP and swaps them in', async () => {
      const product = await postForm(
        t,
        '/performer/assets/products',
        { fields: { name: 'Poster', price: '1500', type: 'physical', stock: '3' }, files: [{ name: 'image', filename: 'p.jpg', data: media.jpeg }] },
        { headers: performer.headers },
      );
      expect(product.status).toBe(201);
      expect(product.body).toMatchObject({ imageUrl: null, imageStatus: 'processing', stock: 3 });
      const key = await waitFor(async () => {
        const row = await t.ctx.db.selectFrom('products').innerJoin('files', 'files.id', 'products.imageFileId').select('files.storageKey').where('products.id', '=', product.body._id).executeTakeFirst();
        return row?.storageKey.startsWith('public/products/') && row.storageKey;
      }, 'product picture');
      expect(key).toMatch(/\.webp$/);
      const imageRes = await fetch(`${t.url}/media/${key}`);
      expect(imageRes.status).toBe(200);
      expect(imageRes.headers.get('content-type')).toBe('image/webp');
      // The upload it was made from stays private, marked ready.
      const source = await t.ctx.db.selectFrom('files').selectAll().where('parentId', 'is not', null).where('storageKey', '=', key).executeTakeFirstOrThrow();
      expect((await file(source.parentId)).status).toBe('ready');

      const post = await postForm(t, '/performer/assets/posts', { fields: { title: 'Hello', content: 'First post' }, files: [{ name: 'image', filename: 'p.png', data: media.png }] }, { headers: performer.headers });
      expect(post.status).toBe(201);
      // A free post's picture: a public preview and the picture in full, public too (tests/api/posts.test.ts has the rest).
      await waitFor(async () => {
        const row = await t.ctx.db.selectFrom('postMedia').innerJoin('files', 'files.id', 'postMedia.displayFileId').select('files.storageKey').where('postMedia.postId', '=', post.body._id).executeTakeFirst();
        return row?.storageKey.startsWith('public/posts/displays/');
      }, 'post picture');
    });
  });

  describe('job queue', () => {
    it('survives a restart: a job left running by a dead process is claimed again once its lease expired, a live lease is respected', async () => {
      // An instance without a worker takes the uploads; the "dead process" is simulated in the jobs table.
      const first = await uploadVideo({ title: 'Orphaned' }, [{ name: 'file', filename: 'a.mp4', data: media.longVideo }]);
      const second = await uploadVideo({ title: 'Still leased' }, [{ name: 'file', filename: 'b.mp4', data: media.video }]);
      expect([first.status, second.status]).toEqual([201, 201]);
      // t's own worker may already be on them: wait for both to finish, then put them back as a crashed worker left them.
      await waitStatus(first.body._id, 'ready');
      await waitStatus(second.body._id, 'ready');
      const past = new Date(Date.now() - 60_000).toISOString();
      const future = new Date(Date.now() + 3_600_000).toISOString();
      for (const [id, lease] of [[first.body._id, past], [second.body._id, future]] as const) {
        await t.ctx.db.updateTable('videos').set({ processingStatus: 'processing', teaserFileId: null }).where('id', '=', id).execute();
        await t.ctx.db
          .updateTable('jobs')
          .set({ status: 'running', attempts: 1, lockedBy: 'dead-host:4242:abcdef', lockedAt: past, leaseExpiresAt: lease, finishedAt: null })
          .where('subject', '=', `video:${id}`)
          .execute();
      }
      await t.ctx.jobs.stop(); // t's worker stops: only the "restarted" instance below runs jobs

      const restarted = await startSiblingApp(t, fastJobs);
      siblings.push(restarted);
      await waitStatus(first.body._id, 'ready');
      // The video turns ready inside the handler; the job row is marked done just after it returns.
      const job = await waitFor(async () => {
        const [row] = await jobsOf(`video:${first.body._id}`);
        return row?.status === 'done' ? row : undefined;
      }, 'the reclaimed job to be marked done');
      expect(job).toMatchObject({ status: 'done', attempts: 2, lockedBy: null });
      expect((await video(first.body._id)).teaserFileId).not.toBeNull();
      // The job whose lease is still valid belongs to its (possibly slow) worker: untouched.
      await new Promise((r) => setTimeout(r, 300));
      const [leased] = await jobsOf(`video:${second.body._id}`);
      expect(leased).toMatchObject({ status: 'running', attempts: 1, lockedBy: 'dead-host:4242:abcdef' });
      expect((await video(second.body._id)).processingStatus).toBe('processing');

      await restarted.close();
      siblings.splice(siblings.indexOf(restarted), 1);
    });

    it('two instances on one database never run the same job twice', async () => {
      const a = await startSiblingApp(t, fastJobs);
      const b = await startSiblingApp(t, fastJobs);
      siblings.push(a, b);
      const runs: Array<{ id: string; worker: string }> = [];
      const handler = (worker: string) => ({
        async run(_payload: unknown, job: { id: string }) {
          runs.push({ id: job.id, worker });
          await new Promise((r) => setTimeout(r, 5 + Math.random() * 15));
        },
      });
      a.ctx.jobs.register('test.count', handler('a'));
      b.ctx.jobs.register('test.count', handler('b'));
      const total = 60;
      const now = nowIso();
      await t.ctx.db
        .insertInto('jobs')
        .values(
          Array.from({ length: total }, (_, i) => ({
            id: newId(),
            type: 'test.count',
            payload: JSON.stringify({ i }),
            status: 'queued' as const,
            attempts: 0,
            maxAttempts: 3,
            runAt: now,
            subject: 'test:count',
            lockedAt: null,
            lockedBy: null,
            lastError: null,
            leaseExpiresAt: null,
            finishedAt: null,
            createdAt: now,
            updatedAt: now,
          })),
        )
        .execute();
      a.ctx.jobs.wake();
      b.ctx.jobs.wake();
      await waitFor(async () => {
        const rows = await jobsOf('test:count');
        return rows.every((r) => r.status === 'done');
      }, 'all test jobs done');
      expect(runs).toHaveLength(total);
      expect(new Set(runs.map((r) => r.id)).size).toBe(total);
      expect(runs.some((r) => r.worker === 'a')).toBe(true);
      expect(runs.some((r) => r.worker === 'b')).toBe(true);
      const rows = await jobsOf('test:count');
      expect(rows.every((r) => r.attempts === 1 && r.lockedBy === null)).toBe(true);
    });

    it('stops cleanly on close: a running job is aborted and handed back without using up an attempt', async () => {
      const c = await startSiblingApp(t, { ...fastJobs, JOBS_STOP_TIMEOUT_MS: '100' });
      let aborted = false;
      c.ctx.jobs.register('test.slow', {
        run: (_payload, job) =>
          new Promise<void>((_resolve, reject) => {
            job.signal.addEventListener('abort', () => {
              aborted = true;
              reject(new Error('aborted'));
            });
          }),
      });
      const id = await c.ctx.jobs.enqueue(c.ctx.db, 'test.slow', {}, { subject: 'test:slow' });
      await waitFor(async () => (await jobsOf('test:slow'))[0]?.status === 'running', 'slow job to start');
      await c.close();
      expect(aborted).toBe(true);
      const [job] = await jobsOf('test:slow');
      expect(job).toMatchObject({ id, status: 'queued', attempts: 0, lockedBy: null, leaseExpiresAt: null });
    });
  });
});
