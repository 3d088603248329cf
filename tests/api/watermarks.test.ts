import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeTestMedia, postForm, waitFor, type TestMedia } from '../helpers/uploads.js';
import { extractPoster } from '../../server/media/ffmpeg.js';
import { mediaSigner } from '../../server/media/signed-urls.js';
import { markOffset, renderMark } from '../../server/media/watermark/mark.js';

/**
 * Watermarks: the performer's page address stamped on full photos, posts' full pictures, video posters and full videos
 * from the clean originals; runs that re-process the catalogue through the job queue with progress, old files served
 * until the new ones are swapped in, no second run over the same settings; the settings validated.
 */

const fastJobs = { JOBS_POLL_MS: '50', JOBS_BACKOFF_MS: '50', JOBS_BACKOFF_MAX_MS: '200', JOBS_LEASE_MS: '5000', JOBS_STOP_TIMEOUT_MS: '200', PUBLIC_URL: 'https://fanstage.example', LOG_LEVEL: 'error' };

type Region = { left: number; top: number; width: number; height: number };

/** Mean absolute difference of two pictures (same size) over a region, 0–255. */
async function regionDiff(a: Buffer, b: Buffer, r: Region): Promise<number> {
  const [x, y] = await Promise.all([a, b].map((img) => sharp(img).extract(r).removeAlpha().raw().toBuffer()));
  let sum = 0;
  for (let i = 0; i < x!.length; i++) sum += Math.abs(x![i]! - y![i]!);
  return sum / x!.length;
}

/** The corner a mark at `position` falls in, and the opposite one, as regions of a `w`×`h` picture. */
const corners = (w: number, h: number) => ({
  'bottom-right': { left: Math.round(w / 2), top: Math.round(h * 0.8), width: w - Math.round(w / 2), height: h - Math.round(h * 0.8) },
  'top-left': { left: 0, top: 0, width: Math.round(w / 2), height: Math.round(h * 0.2) },
});

let media: TestMedia;
let photo: Buffer;
let tmp: string;
beforeAll(async () => {
  media = await makeTestMedia();
  tmp = await fsp.mkdtemp(path.join(os.tmpdir(), 'watermark-test-'));
  // A smooth gradient: a re-encode changes it little, a mark a lot.
  const [w, h] = [640, 480];
  const px = Buffer.alloc(w * h * 3);
  for (let yy = 0; yy < h; yy++) for (let xx = 0; xx < w; xx++) px.set([60 + (xx * 120) / w, 80 + (yy * 100) / h, 140], (yy * w + xx) * 3);
  photo = await sharp(px, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 92 }).toBuffer();
});
afterAll(async () => {
  await media?.cleanup();
  await fsp.rm(tmp, { recursive: true, force: true });
});

describe('the mark', () => {
  it('is placed in the corner its position names, inside the frame', async () => {
    const mark = await renderMark('fanstage.example/performers/mia', 640, 60);
    expect(mark.width).toBeGreaterThan(100);
    expect(mark.width).toBeLessThanOrEqual(640);
    const frame = { width: 640, height: 480 };
    const br = markOffset('bottom-right', frame, mark);
    expect(br.left + mark.width).toBeLessThanOrEqual(640);
    expect(br.top + mark.height).toBeLessThanOrEqual(480);
    expect(br.top).toBeGreaterThan(240);
    expect(markOffset('top-left', frame, mark)).toEqual({ left: 14, top: 14 });
    const c = markOffset('center', frame, mark);
    expect(Math.abs(c.left + mark.width / 2 - 320)).toBeLessThanOrEqual(1);
  });
});

describe.each(engines)('watermarks on %s', (engine) => {
  let t: TestApp;
  let admin: TestUser;
  let performer: TestUser;
  const ids = { video: '', photo: '', post: '' };
  const clean: { photo?: Buffer; poster?: Buffer; frame?: Buffer; post?: Buffer } = {};

  beforeAll(async () => {
    t = await startTestApp(engine, { env: fastJobs });
    admin = await createUser(t.ctx.db, 'admin');
    performer = await createUser(t.ctx.db, 'performer', { username: 'miarivers' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const db = () => t.ctx.db;
  const signed = (objectType: 'video' | 'photo' | 'post', objectId: string, fileId: string) =>
    mediaSigner(t.ctx.config).sign({ objectType, objectId, fileId }, performer.id).url;
  const fetchBytes = async (url: string) => {
    const res = await fetch(`${t.url}${url}`, { headers: performer.headers });
    expect(res.status, url).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };
  const videoRow = () => db().selectFrom('videos').selectAll().where('id', '=', ids.video).executeTakeFirstOrThrow();
  const photoRow = () => db().selectFrom('photos').selectAll().where('id', '=', ids.photo).executeTakeFirstOrThrow();
  const posterOf = async () => {
    const v = await videoRow();
    return db().selectFrom('files').selectAll().where('parentId', '=', v.fileId!).where('variant', '=', 'poster').executeTakeFirstOrThrow();
  };
  const photoUrl = async () => {
    const p = await photoRow();
    return signed('photo', p.id, p.fileId!);
  };
  const videoUrl = async () => {
    const v = await videoRow();
    return signed('video', v.id, v.fileId!);
  };
  const postImage = async () => {
    const res = await t.api(`/posts/${ids.post}`, { headers: performer.headers });
    expect(res.status).toBe(200);
    return fetchBytes(res.body.media[0].image as string);
  };
  const frameOf = async (bytes: Buffer, name: string) => {
    const file = path.join(tmp, `${engine}-${name}.mp4`);
    await fsp.writeFile(file, bytes);
    const out = path.join(tmp, `${engine}-${name}.png`);
    await extractPoster(file, out.replace(/\.png$/, '.jpg'), 1);
    return fsp.readFile(out.replace(/\.png$/, '.jpg'));
  };
  const setWatermark = (json: Record<string, unknown>) => t.api('/admin/settings/watermark', { method: 'PUT', headers: admin.headers, json });
  const waitRun = (runId: string) =>
    waitFor(async () => {
      const res = await t.api(`/admin/watermarks/runs/${runId}`, { headers: admin.headers });
      return res.body.status === 'done' && res.body;
    }, `run ${runId} to finish`, 60_000);

  it('processes a small catalogue clean while watermarks are off', async () => {
    const up = await postForm(t, '/performer/assets/videos/upload', { fields: { title: 'Clip', visibility: 'subscribers' }, files: [{ name: 'file', filename: 'c.mp4', data: media.video, type: 'video/mp4' }] }, { headers: performer.headers });
    expect(up.status).toBe(201);
    ids.video = up.body._id;
    const gallery = await t.api('/performer/assets/galleries', { method: 'POST', json: { title: 'Shoot', visibility: 'subscribers' }, headers: performer.headers });
    const ph = await postForm(t, '/performer/assets/photos/upload', { fields: { galleryId: gallery.body._id }, files: [{ name: 'file', filename: 'a.jpg', data: photo, type: 'image/jpeg' }] }, { headers: performer.headers });
    expect(ph.status).toBe(201);
    ids.photo = ph.body.items[0]._id;
    const post = await postForm(t, '/performer/assets/posts', { fields: { title: 'Hello', content: 'Free for all.' }, files: [{ name: 'file', filename: 'p.jpg', data: photo, type: 'image/jpeg' }] }, { headers: performer.headers });
    expect(post.status, JSON.stringify(post.body)).toBe(201);
    ids.post = post.body._id;
    await waitFor(async () => (await videoRow()).processingStatus === 'ready' && (await photoRow()).processingStatus === 'ready', 'video and photo ready', 30_000);
    await waitFor(async () => {
      const m = await db().selectFrom('postMedia').select('processingStatus').where('postId', '=', ids.post).executeTakeFirst();
      return m?.processingStatus === 'ready';
    }, 'post picture ready');
    const marked = await db().selectFrom('files').select('id').where('variant', '=', 'marked').execute();
    expect(marked).toEqual([]);
    clean.photo = await fetchBytes(await photoUrl());
    clean.poster = await fetchBytes(`/media/${(await posterOf()).storageKey}`);
    clean.frame = await frameOf(await fetchBytes(await videoUrl()), 'clean');
    clean.post = await postImage();
    expect((await sharp(clean.photo).metadata()).width).toBe(640);
  });

  it('refuses bad settings: an unknown position, an opacity out of range, nothing to change', async () => {
    for (const body of [{ watermarkPosition: 'middle' }, { watermarkOpacity: 5 }, { watermarkOpacity: 101 }, {}, { watermarkEnabled: 'yes' }, { other: 1 }]) {
      const res = await setWatermark(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBeTruthy();
    }
    const fan = await createUser(t.ctx.db, 'user');
    expect((await t.api('/admin/settings/watermark', { method: 'PUT', headers: fan.headers, json: { watermarkEnabled: true } })).status).toBe(403);
    const runs = await t.api('/admin/watermarks', { headers: admin.headers });
    expect(runs.body).toMatchObject({ settings: { watermarkEnabled: false, watermarkPosition: 'bottom-right', watermarkOpacity: 60 }, runs: [] });
  });

  it('turning it on re-processes the catalogue in a run: old files served meanwhile, progress to M of M, a second start does not run twice', async () => {
    const photoBefore = await photoUrl();
    const videoBefore = await videoUrl();
    const on = await setWatermark({ watermarkEnabled: true, watermarkPosition: 'bottom-right', watermarkOpacity: 100 });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toMatchObject({ started: true, settings: { watermarkEnabled: true, watermarkPosition: 'bottom-right', watermarkOpacity: 100 } });
    const runId = on.body.runId as string;
    expect(on.body.runs[0]).toMatchObject({ _id: runId, status: 'running', total: 3 });
    // While the run works, the URLs pages already hold keep answering (the old file until the new one is swapped in).
    expect((await fetch(`${t.url}${photoBefore}`, { headers: performer.headers })).status).toBe(200);
    expect((await fetch(`${t.url}${videoBefore}`, { headers: performer.headers, ...{ } })).status).toBe(200);
    // The same settings again, or a start by hand: the running run answers, nothing is enqueued twice.
    const again = await t.api('/admin/watermarks/runs', { method: 'POST', headers: admin.headers });
    expect(again.body).toMatchObject({ started: false, runId });
    const same = await setWatermark({ watermarkOpacity: 100 });
    expect(same.body).toMatchObject({ started: false, runId: null });

    const done = await waitRun(runId);
    expect(done).toMatchObject({ total: 3, done: 3, failed: 0, queued: 0, paged: true });
    expect(done.finishedAt).toBeTruthy();
    const jobs = await db().selectFrom('jobs').select(['type', 'status']).where('subject', '=', `watermark-run:${runId}`).where('type', '=', 'watermark.item').execute();
    expect(jobs).toHaveLength(3);
    // The URLs issued before the run still open, now on the stamped files.
    expect((await fetch(`${t.url}${photoBefore}`, { headers: performer.headers })).status).toBe(200);

    const marked = await fetchBytes(await photoUrl());
    const c = corners(640, 480);
    expect(await regionDiff(clean.photo!, marked, c['bottom-right'])).toBeGreaterThan(6);
    expect(await regionDiff(clean.photo!, marked, c['top-left'])).toBeLessThan(2);
    // The original upload is kept clean: the stamped copy is a child of it.
    const p = await photoRow();
    const original = await db().selectFrom('files').selectAll().where('id', '=', p.fileId!).executeTakeFirstOrThrow();
    expect(original.watermark).toBeNull();
    const copy = await db().selectFrom('files').selectAll().where('parentId', '=', p.fileId!).where('variant', '=', 'marked').executeTakeFirstOrThrow();
    expect(copy.watermark).toBe('bottom-right:100:fanstage.example/performers/miarivers');
    expect(copy.storageKey).toMatch(/^private\/photos\/marked\//);

    const poster = await posterOf();
    expect(poster.watermark).toContain('bottom-right');
    const posterBytes = await fetchBytes(`/media/${poster.storageKey}`);
    const pm = await sharp(posterBytes).metadata();
    const pc = corners(pm.width!, pm.height!);
    expect(await regionDiff(clean.poster!, posterBytes, pc['bottom-right'])).toBeGreaterThan(6);
    expect(await regionDiff(clean.poster!, posterBytes, pc['top-left'])).toBeLessThan(4);

    const frame = await frameOf(await fetchBytes(await videoUrl()), 'marked');
    const fm = await sharp(frame).metadata();
    const fc = corners(fm.width!, fm.height!);
    expect(await regionDiff(clean.frame!, frame, fc['bottom-right'])).toBeGreaterThan(6);
    expect(await regionDiff(clean.frame!, frame, fc['top-left'])).toBeLessThan(6);

    const post = await postImage();
    const postMeta = await sharp(post).metadata();
    const qc = corners(postMeta.width!, postMeta.height!);
    expect(await regionDiff(clean.post!, post, qc['bottom-right'])).toBeGreaterThan(6);
    expect(await regionDiff(clean.post!, post, qc['top-left'])).toBeLessThan(2);

    // The thumbnails stay clean: only full files and posters carry the mark.
    const thumbs = await db().selectFrom('files').select('watermark').where('variant', 'in', ['thumb', 'thumb_private', 'teaser', 'preview']).execute();
    expect(thumbs.every((f) => f.watermark === null)).toBe(true);
  });

  it('moving the mark re-stamps from the clean originals (marks never stack); turning it off serves the originals again', async () => {
    const moved = await setWatermark({ watermarkPosition: 'top-left' });
    expect(moved.body.started).toBe(true);
    expect(await waitRun(moved.body.runId)).toMatchObject({ total: 3, done: 3, failed: 0 });
    const marked = await fetchBytes(await photoUrl());
    const c = corners(640, 480);
    expect(await regionDiff(clean.photo!, marked, c['top-left'])).toBeGreaterThan(6);
    expect(await regionDiff(clean.photo!, marked, c['bottom-right'])).toBeLessThan(2);
    expect(await db().selectFrom('files').select('id').where('variant', '=', 'marked').execute()).toHaveLength(3);

    const off = await setWatermark({ watermarkEnabled: false });
    expect(off.body.started).toBe(true);
    expect(await waitRun(off.body.runId)).toMatchObject({ total: 3, done: 3, failed: 0 });
    expect((await fetchBytes(await photoUrl())).equals(clean.photo!)).toBe(true);
    expect(await db().selectFrom('files').select('id').where('variant', '=', 'marked').execute()).toEqual([]);
    expect((await posterOf()).watermark).toBeNull();
    const overview = await t.api('/admin/watermarks', { headers: admin.headers });
    expect(overview.body.runs.map((r: { status: string }) => r.status)).toEqual(['done', 'done', 'done']);
  });

  it('a new upload is stamped after processing while watermarks are on', async () => {
    const on = await setWatermark({ watermarkEnabled: true, watermarkPosition: 'bottom-right', watermarkOpacity: 80 });
    await waitRun(on.body.runId);
    const gallery = await t.api('/performer/assets/galleries', { method: 'POST', json: { title: 'Later', visibility: 'free' }, headers: performer.headers });
    const ph = await postForm(t, '/performer/assets/photos/upload', { fields: { galleryId: gallery.body._id }, files: [{ name: 'file', filename: 'b.jpg', data: photo, type: 'image/jpeg' }] }, { headers: performer.headers });
    const id = ph.body.items[0]._id as string;
    const copy = await waitFor(async () => {
      const p = await db().selectFrom('photos').select('fileId').where('id', '=', id).executeTakeFirstOrThrow();
      return db().selectFrom('files').selectAll().where('parentId', '=', p.fileId!).where('variant', '=', 'marked').executeTakeFirst();
    }, 'the new photo to be stamped');
    expect(copy.watermark).toBe('bottom-right:80:fanstage.example/performers/miarivers');
  });
});
