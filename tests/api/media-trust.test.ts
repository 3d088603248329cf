import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeTestMedia, postForm, waitFor, type TestMedia } from '../helpers/uploads.js';
import { startSiblingApp } from '../helpers/sibling-app.js';
import { extractPoster, generateTestVideo, inspectContainer, makeTeaser, probeFile, runFfmpeg } from '../../server/media/ffmpeg.js';

/**
 * Paid media must not leak through what is public, and uploads must not steer ffmpeg:
 * - the public teaser is at most 8 s and a fifth of the video, none under 10 s, whatever the settings say;
 * - an item turning from free to locked loses its public previews at once (their URLs answer 404), gets new ones
 *   under new keys (blurred for a gallery's photos), and shows none while processing fails;
 * - uploads ffmpeg would open as a playlist, a script or any container but MP4/MOV/WebM/MKV are refused with a 400
 *   and leave nothing behind; ffmpeg itself opens files with the local file protocol and those demuxers only.
 *
 * The API instance runs no job worker: processing happens when a test starts one (`processAll`), so what the site
 * shows between a change and its processing is observable.
 */

const workerEnv = {
  JOBS_POLL_MS: '50',
  JOBS_BACKOFF_MS: '50',
  JOBS_BACKOFF_MAX_MS: '100',
  JOBS_MAX_ATTEMPTS: '2',
  JOBS_LEASE_MS: '20000',
  JOBS_STOP_TIMEOUT_MS: '200',
  // Configured far longer than the rule allows: the rule must win.
  VIDEO_TEASER_SECONDS: '60',
  VIDEO_TEASER_MAX_SECONDS: '600',
};

const ffprobeDuration = (file: string) =>
  Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file], { encoding: 'utf8' }).trim());

let media: TestMedia;
let dir: string;
const clips: Record<'s5' | 's12' | 's20' | 's60', string> = { s5: '', s12: '', s20: '', s60: '' };
let avi: string;
/** A local HTTP server that counts requests: a playlist pointing at it must never make ffmpeg call it. */
let bait: { server: http.Server; url: string; hits: string[] };

beforeAll(async () => {
  media = await makeTestMedia();
  dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'media-trust-'));
  for (const [name, seconds] of [['s5', 5], ['s12', 12], ['s20', 20], ['s60', 60]] as const) {
    clips[name] = path.join(dir, `${name}.mp4`);
    await generateTestVideo(clips[name], { seconds, width: 160, height: 120, fps: 10, pattern: 'testsrc' });
  }
  avi = path.join(dir, 'clip.avi');
  await runFfmpeg(['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=s=160x120:r=10:d=2', '-c:v', 'mpeg4', avi]);
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    res.end('not a segment');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  bait = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}, 120_000);
afterAll(async () => {
  await media?.cleanup();
  await fsp.rm(dir, { recursive: true, force: true });
  await new Promise((r) => bait?.server.close(r));
});

/** An HLS playlist whose "segments" are a local file and a URL: ffmpeg would read the file or call the URL. */
const playlist = (localFile: string) =>
  `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:5.0,\nfile://${localFile}\n#EXTINF:5.0,\n${bait.url}/segment.ts\n#EXT-X-ENDLIST\n`;
/** An ffconcat script joining a local file and a URL. */
const concatScript = (localFile: string) => `ffconcat version 1.0\nfile '${localFile}'\nfile '${bait.url}/part.mp4'\n`;

describe('ffmpeg opens untrusted files contained', () => {
  it('refuses HLS playlists and ffconcat scripts whatever their name, reading no other file and calling no URL', async () => {
    const cases = [
      ['playlist.mp4', playlist(clips.s12)],
      ['playlist.m3u8', playlist(clips.s12)],
      ['script.mp4', concatScript(clips.s12)],
      ['script.ffconcat', concatScript(clips.s12)],
    ] as const;
    for (const [name, text] of cases) {
      const file = path.join(dir, name);
      await fsp.writeFile(file, text);
      const check = await inspectContainer(file);
      expect(check, name).toMatchObject({ verdict: 'refused', reason: 'format' });
      await expect(probeFile(file), name).rejects.toThrow(/Format not/);
      const out = path.join(dir, `${name}.out.mp4`);
      await expect(makeTeaser(file, out, 2), name).rejects.toThrow();
      expect(fs.existsSync(out) && fs.statSync(out).size > 0, `${name}: no teaser written`).toBe(false);
      await expect(extractPoster(file, path.join(dir, `${name}.jpg`)), name).rejects.toThrow();
    }
    expect(bait.hits).toEqual([]);
    // What is allowed still opens: MP4 and WebM.
    expect((await inspectContainer(clips.s5)).verdict).toBe('video');
    const webm = path.join(dir, 'clip.webm');
    await runFfmpeg(['-y', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=s=160x120:r=10:d=1', '-c:v', 'libvpx', '-b:v', '200k', webm]);
    expect(await inspectContainer(webm)).toMatchObject({ verdict: 'video', info: { formatName: 'matroska,webm', hasVideo: true } });
    // Other containers ffmpeg knows are refused too, and a damaged MP4 is told apart (processing reports why).
    expect(await inspectContainer(avi)).toMatchObject({ verdict: 'refused', format: 'avi' });
    expect(await inspectContainer(media.corruptVideo)).toMatchObject({ verdict: 'damaged' });
  }, 60_000);
});

describe.each(engines)('paid media through public files on %s', (engine) => {
  let t: TestApp;
  let performer: TestUser;
  let fan: TestUser;

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ...workerEnv, JOBS_WORKER: '0' } });
    performer = await createUser(t.ctx.db, 'performer');
    fan = await createUser(t.ctx.db, 'user');
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Runs every queued job (retries included) on a worker instance, then stops it. */
  async function processAll() {
    const worker = await startSiblingApp(t, workerEnv);
    try {
      await waitFor(async () => {
        const open = await t.ctx.db.selectFrom('jobs').select('id').where('status', 'in', ['queued', 'running']).execute();
        return open.length === 0;
      }, 'all jobs to finish', 120_000, 100);
    } finally {
      await worker.close();
    }
  }

  const uploadVideo = async (file: string, fields: Record<string, string> = {}, extra: Parameters<typeof postForm>[2]['files'] = []) => {
    const res = await postForm(t, '/performer/assets/videos/upload', { fields: { title: 'Clip', ...fields }, files: [{ name: 'file', filename: 'clip.mp4', data: file }, ...(extra ?? [])] }, { headers: performer.headers });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body._id as string;
  };
  const videoRow = (id: string) => t.ctx.db.selectFrom('videos').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const fileRow = (id: string) => t.ctx.db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const videoDetail = async (id: string) => {
    const res = await t.api(`/user/assets/videos/${id}`, { headers: fan.headers });
    expect(res.status).toBe(200);
    return res.body as { thumbnail: string | null; poster: string | null; teaser: string | null; processingStatus: string };
  };
  const status = async (url: string) => (await fetch(`${t.url}${url}`)).status;
  const stdevOf = async (url: string) => {
    const res = await fetch(`${t.url}${url}`);
    expect(res.status).toBe(200);
    return (await sharp(Buffer.from(await res.arrayBuffer())).stats()).channels[0]!.stdev;
  };
  /** Every stored file, relative to the media directory. */
  async function storedFiles(): Promise<string[]> {
    const out: string[] = [];
    const walk = async (d: string): Promise<void> => {
      for (const e of await fsp.readdir(d, { withFileTypes: true }).catch(() => [])) {
        const full = path.join(d, e.name);
        if (e.isDirectory()) await walk(full);
        else out.push(path.relative(t.config.mediaDir, full));
      }
    };
    await walk(t.config.mediaDir);
    return out.sort();
  }
  async function counts() {
    const n = async (table: 'videos' | 'files' | 'jobs') => Number((await t.ctx.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    return { videos: await n('videos'), files: await n('files'), jobs: await n('jobs'), stored: await storedFiles() };
  }

  describe('teasers', () => {
    it('are at most 8 s and a fifth of the video, none under 10 s, even when VIDEO_TEASER_SECONDS asks for more', async () => {
      const short = await uploadVideo(clips.s5);
      const mid = await uploadVideo(clips.s20, { visibility: 'free' });
      const long = await uploadVideo(clips.s60, { visibility: 'sale', price: '500' });
      // The performer's own teaser clip as long as the video itself is cut by the same rule.
      const own = await uploadVideo(clips.s20, {}, [{ name: 'teaser', filename: 'teaser.mp4', data: clips.s20 }]);
      const ownShort = await uploadVideo(clips.s5, {}, [{ name: 'teaser', filename: 'teaser.mp4', data: clips.s5 }]);
      await processAll();

      for (const id of [short, ownShort]) {
        const v = await videoRow(id);
        expect(v.processingStatus).toBe('ready');
        expect(v.teaserFileId).toBeNull();
        const teasers = await t.ctx.db.selectFrom('files').select('id').where('parentId', '=', v.fileId!).where('variant', '=', 'teaser').execute();
        expect(teasers).toEqual([]);
        expect((await videoDetail(id)).teaser).toBeNull();
      }
      for (const [id, videoSeconds, limit] of [[mid, 20, 4], [long, 60, 8], [own, 20, 4]] as const) {
        const v = await videoRow(id);
        expect(v.processingStatus).toBe('ready');
        expect(v.duration).toBeCloseTo(videoSeconds, 0);
        const teaser = await fileRow(v.teaserFileId!);
        const seconds = ffprobeDuration(t.ctx.storage.localPath(teaser.storageKey)!);
        expect(seconds, `teaser of the ${videoSeconds} s video`).toBeLessThanOrEqual(limit);
        expect(seconds).toBeGreaterThan(limit - 0.5);
        const detail = await videoDetail(id);
        expect(detail.teaser).toBe(`/media/${teaser.storageKey}`);
        expect(await status(detail.teaser!)).toBe(200);
      }
    }, 180_000);
  });

  describe('free to locked', () => {
    it('a video: the old preview URLs answer 404 at once, new ones under new keys after processing', async () => {
      const id = await uploadVideo(clips.s12, { visibility: 'free' });
      await processAll();
      const before = await videoDetail(id);
      const oldUrls = [before.thumbnail, before.poster, before.teaser];
      expect(oldUrls.every(Boolean)).toBe(true);
      for (const url of oldUrls) expect(await status(url!)).toBe(200);

      const res = await t.api(`/performer/assets/videos/${id}`, { method: 'PUT', json: { visibility: 'subscribers' }, headers: performer.headers });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ visibility: 'subscribers', thumbnailUrl: null, posterUrl: null, teaserUrl: null });
      for (const url of oldUrls) expect(await status(url!), url!).toBe(404);
      // Still published and playable for subscribers; no preview until processed again.
      const between = await videoDetail(id);
      expect(between).toMatchObject({ processingStatus: 'ready', thumbnail: null, poster: null, teaser: null });

      await processAll();
      const after = await videoDetail(id);
      const newUrls = [after.thumbnail, after.poster, after.teaser];
      for (const url of newUrls) {
        expect(url).toBeTruthy();
        expect(oldUrls).not.toContain(url);
        expect(await status(url!)).toBe(200);
      }
      for (const url of oldUrls) expect(await status(url!)).toBe(404);
      // The full file was never touched.
      expect((await fileRow((await videoRow(id)).fileId!)).status).toBe('ready');
    }, 180_000);

    it('a gallery: the unblurred thumbnails answer 404 at once, blurred ones come under new keys', async () => {
      const gallery = await t.api('/performer/assets/galleries', { method: 'POST', json: { title: 'Open shoot', visibility: 'free' }, headers: performer.headers });
      expect(gallery.status).toBe(201);
      const galleryId = gallery.body._id as string;
      const up = await postForm(t, '/performer/assets/photos/upload', { fields: { galleryId }, files: [{ name: 'file', filename: 'a.png', data: media.png }, { name: 'file', filename: 'b.png', data: media.png }] }, { headers: performer.headers });
      expect(up.status).toBe(201);
      await processAll();
      const photos = async () => {
        const res = await t.api(`/user/assets/gallery/${galleryId}/photos`, { headers: fan.headers });
        expect(res.status).toBe(200);
        return res.body.items as Array<{ _id: string; thumbnail: string | null; processingStatus: string }>;
      };
      const before = await photos();
      expect(before).toHaveLength(2);
      const oldUrls = before.map((p) => p.thumbnail!);
      for (const url of oldUrls) expect(await stdevOf(url)).toBeGreaterThan(60); // free: sharp

      const res = await t.api(`/performer/assets/galleries/${galleryId}`, { method: 'PUT', json: { visibility: 'sale', price: 900 }, headers: performer.headers });
      expect(res.status).toBe(200);
      for (const url of oldUrls) expect(await status(url), url).toBe(404);
      expect((await photos()).map((p) => [p.thumbnail, p.processingStatus])).toEqual([[null, 'ready'], [null, 'ready']]);
      const cover = await t.api(`/user/assets/galleries/${galleryId}/view`, { headers: fan.headers });
      expect(cover.status).toBe(200);
      expect(cover.body.cover).toBeNull();

      await processAll();
      const after = await photos();
      for (const p of after) {
        expect(p.thumbnail).toBeTruthy();
        expect(oldUrls).not.toContain(p.thumbnail);
      }
      // The cover stays sharp (the gallery's public face); every other photo of the locked gallery is blurred.
      const coverId = (await t.ctx.db.selectFrom('galleries').select('coverPhotoId').where('id', '=', galleryId).executeTakeFirstOrThrow()).coverPhotoId;
      for (const p of after) {
        const stdev = await stdevOf(p.thumbnail!);
        if (p._id === coverId) expect(stdev).toBeGreaterThan(60);
        else expect(stdev).toBeLessThan(20);
      }
      for (const url of oldUrls) expect(await status(url)).toBe(404);
    }, 180_000);

    it('when processing again fails, nothing unblurred stays public: the items show no preview', async () => {
      const gallery = await t.api('/performer/assets/galleries', { method: 'POST', json: { title: 'Doomed shoot', visibility: 'free' }, headers: performer.headers });
      const galleryId = gallery.body._id as string;
      const up = await postForm(t, '/performer/assets/photos/upload', { fields: { galleryId }, files: [{ name: 'file', filename: 'a.png', data: media.png }, { name: 'file', filename: 'b.png', data: media.png }] }, { headers: performer.headers });
      expect(up.status).toBe(201);
      const videoId = await uploadVideo(clips.s12, { visibility: 'free' });
      await processAll();

      const photoRows = await t.ctx.db.selectFrom('photos').selectAll().where('galleryId', '=', galleryId).execute();
      const video = await videoRow(videoId);
      const originals = await Promise.all([...photoRows.map((p) => p.fileId!), video.fileId!].map(fileRow));
      const previews = await t.ctx.db.selectFrom('files').select('storageKey').where('parentId', 'in', originals.map((o) => o.id)).execute();
      const oldKeys = previews.map((f) => f.storageKey).filter((k) => k.startsWith('public/'));
      expect(oldKeys).toHaveLength(2 + 3); // two photo thumbnails; video thumbnail, poster, teaser
      // The originals turn unreadable, so every attempt to process them again fails.
      for (const o of originals) await fsp.writeFile(t.ctx.storage.localPath(o.storageKey)!, Buffer.alloc(4096, 7));

      expect((await t.api(`/performer/assets/galleries/${galleryId}`, { method: 'PUT', json: { visibility: 'subscribers' }, headers: performer.headers })).status).toBe(200);
      expect((await t.api(`/performer/assets/videos/${videoId}`, { method: 'PUT', json: { visibility: 'sale', price: 700 }, headers: performer.headers })).status).toBe(200);
      for (const key of oldKeys) expect(await status(`/media/${key}`), key).toBe(404);

      await processAll();
      const jobs = await t.ctx.db.selectFrom('jobs').select(['subject', 'status']).where('subject', 'in', [...photoRows.map((p) => `photo:${p.id}`), `video:${videoId}`]).execute();
      expect(jobs.filter((j) => j.status === 'failed').length).toBe(3);
      // No public file is derived from these originals any more, on disk or in the database.
      const stored = await storedFiles();
      for (const key of oldKeys) expect(stored).not.toContain(key);
      expect(await t.ctx.db.selectFrom('files').select('id').where('parentId', 'in', originals.map((o) => o.id)).where('storageKey', 'like', 'public/%').execute()).toEqual([]);
      const shown = await t.api(`/user/assets/gallery/${galleryId}/photos`, { headers: fan.headers });
      expect(shown.body.items.map((p: { thumbnail: string | null }) => p.thumbnail)).toEqual([null, null]);
      expect(await videoDetail(videoId)).toMatchObject({ processingStatus: 'ready', thumbnail: null, poster: null, teaser: null });
    }, 180_000);
  });

  describe('upload containment', () => {
    it('refuses an HLS playlist, an ffconcat script and other containers sent as a video: 400, nothing stored', async () => {
      const before = await counts();
      const refused: Array<{ field: string; filename: string; data: Buffer | string; label: RegExp }> = [
        { field: 'file', filename: 'movie.mp4', data: Buffer.from(playlist(clips.s12)), label: /unrecognised format/ },
        { field: 'file', filename: 'movie.m3u8', data: Buffer.from(playlist(clips.s12)), label: /unrecognised format/ },
        { field: 'file', filename: 'movie.mp4', data: Buffer.from(concatScript(clips.s12)), label: /unrecognised format/ },
        { field: 'file', filename: 'movie.avi', data: avi, label: /AVI video/ },
        { field: 'teaser', filename: 'teaser.mp4', data: Buffer.from(playlist(clips.s12)), label: /teaser must be MP4, MOV, 3GP, WebM or MKV/ },
      ];
      for (const r of refused) {
        const files = r.field === 'file' ? [{ name: 'file', filename: r.filename, data: r.data, type: 'video/mp4' }] : [{ name: 'file', filename: 'ok.mp4', data: clips.s12 }, { name: r.field, filename: r.filename, data: r.data, type: 'video/mp4' }];
        const res = await postForm(t, '/performer/assets/videos/upload', { fields: { title: 'Sneaky' }, files }, { headers: performer.headers });
        expect(res.status, r.filename).toBe(400);
        expect(res.body.code).toBe('UNSUPPORTED_MEDIA');
        expect(res.body.message).toMatch(r.label);
      }
      expect(await counts()).toEqual(before);
      expect(bait.hits).toEqual([]);

      // A normal MP4 still goes through and is processed.
      const ok = await uploadVideo(clips.s12);
      await processAll();
      expect((await videoRow(ok)).processingStatus).toBe('ready');
    }, 180_000);
  });
});
