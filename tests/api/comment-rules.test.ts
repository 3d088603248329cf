import fs from 'node:fs';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { bearer, buildEngagement, manyUsers, type Engagement, recordingCaller, deletePostBeforeNextWrite } from '../helpers/engagement-fixture.js';
import { postForm } from '../helpers/uploads.js';
import { makePost } from '../../server/seed/factories.js';
import { countComments } from '../../server/comments/comments.repository.js';
import { commentMessages } from '../../server/comments/comments.service.js';
import { readCounter } from '../../server/reactions/targets.repository.js';
import type { EngagementObjectType } from '../../common/enums.js';

/**
 * The comment rules at their edges, over real HTTP on every engine: which pictures are taken and how they are
 * stored (formats, the 1280 box, the 40-megapixel limit, unreadable files), that the stored bytes and file rows
 * follow the comment through edits, failures and deletes, cursor pages, who moderates (an admin on the site's own
 * posts, nobody but an admin once the object is gone), the object deleted mid-request, the events pushed to the
 * object's room, and the exact messages.
 */

const redisEnv: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};

/** A PNG whose header claims `width`x`height` (8-bit grey) with one row of pixel data: sharp reads its size, never its pixels. */
function pngClaiming(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth; colour type 0 (grey), no interlace
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(Buffer.alloc(width + 1))), chunk('IEND', Buffer.alloc(0))]);
}

type Emitted = { objectType: string; objectId: string; event: string; payload: any };

describe.each(engines)('comment rules on %s', (engine) => {
  let t: TestApp;
  let e: Engagement;
  const serverErrors: string[] = [];

  const call = recordingCaller(() => t, serverErrors);
  const post = (who: { token: string }, objectType: EngagementObjectType, objectId: string, content: string) => call('POST', '/comments', who, { objectType, objectId, content });
  const search = (q: string, who?: { token: string } | null) => call('GET', `/comments/search?${q}`, who);
  const putImage = (who: { token: string }, id: string, data: Buffer, fields: Record<string, string> = {}) =>
    postForm(t, `/comments/${id}`, { fields, files: [{ name: 'image', filename: 'picture', data }] }, { method: 'PUT', headers: bearer(who) });
  const keyOf = (url: string) => url.replace(/^\/media\//, '');
  /** Where a storage key lives on disk (the tests' storage is the local disk). */
  const onDisk = (key: string) => t.ctx.storage.localPath(key)!;
  const storedComments = () => {
    const dir = onDisk('public/comments');
    return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
  };
  const commentFiles = (ownerId: string) => t.ctx.db.selectFrom('files').select(['id', 'storageKey']).where('variant', '=', 'comment').where('ownerId', '=', ownerId).execute();
  const commentRow = (id: string) => t.ctx.db.selectFrom('comments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  /** Runs `fn` while recording what is pushed to object rooms (still delivered). */
  async function capturingObjectEvents<T>(fn: () => Promise<T>): Promise<{ result: T; emitted: Emitted[] }> {
    const hub = t.ctx.realtime;
    const original = hub.emitToObject;
    const emitted: Emitted[] = [];
    hub.emitToObject = ((objectType: string, objectId: string, event: string, payload: unknown) => {
      emitted.push({ objectType, objectId, event, payload });
      return original.call(hub, objectType as never, objectId, event as never, payload as never);
    }) as typeof hub.emitToObject;
    try {
      return { result: await fn(), emitted };
    } finally {
      hub.emitToObject = original;
    }
  }

  /** Runs `fn` while recording the server's warnings. */
  async function capturingWarnings<T>(fn: () => Promise<T>): Promise<{ result: T; warnings: unknown[][] }> {
    const logger = t.ctx.logger;
    const original = logger.warn;
    const warnings: unknown[][] = [];
    logger.warn = ((...args: unknown[]) => {
      warnings.push(args);
    }) as typeof logger.warn;
    try {
      return { result: await fn(), warnings };
    } finally {
      logger.warn = original;
    }
  }

  /** The database refuses inserts of comment pictures (`files`) or updates of comments while `fn` runs. */
  async function whileDatabaseRefuses<T>(table: 'files' | 'comments', fn: () => Promise<T>): Promise<T> {
    const on = table === 'files' ? 'before insert on files' : 'before update on comments';
    if (t.engine === 'sqlite') {
      await sql.raw(`create trigger refuse_by_test ${on} begin select raise(abort, 'refused by the test'); end`).execute(t.ctx.db);
    } else {
      await sql.raw(`create or replace function refuse_by_test() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`).execute(t.ctx.db);
      await sql.raw(`create trigger refuse_by_test ${on} for each row execute function refuse_by_test()`).execute(t.ctx.db);
    }
    try {
      return await fn();
    } finally {
      await sql.raw(t.engine === 'sqlite' ? 'drop trigger refuse_by_test' : `drop trigger refuse_by_test on ${table}`).execute(t.ctx.db);
    }
  }


  async function commentBy(who: TestUser, objectType: EngagementObjectType = 'video', objectId = e.video.id, content = 'a comment'): Promise<string> {
    const res = await post(who, objectType, objectId, content);
    expect(res.status).toBe(201);
    return res.body._id;
  }

  beforeAll(async () => {
    t = await startTestApp(engine, { env: redisEnv });
    e = await buildEngagement(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('takes a picture in every accepted format (JPEG, PNG, WebP, GIF, TIFF, AVIF/HEIF) and stores it as WebP', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const id = await commentBy(author!);
    const base = () => sharp({ create: { width: 60, height: 40, channels: 3, background: '#33aa66' } });
    const pictures: Array<[string, Buffer]> = [
      ['jpeg', await base().jpeg().toBuffer()],
      ['png', await base().png().toBuffer()],
      ['webp', await base().webp().toBuffer()],
      ['gif', await base().gif().toBuffer()],
      ['tiff', await base().tiff().toBuffer()],
      // AVIF: sharp names its format "heif".
      ['avif', await base().avif().toBuffer()],
    ];
    for (const [format, data] of pictures) {
      const res = await putImage(author!, id, data);
      expect(res.status, format).toBe(200);
      expect(res.body.image, format).toMatch(/^\/media\/public\/comments\/[0-9a-f]{32}\.webp$/);
      const stored = await fetch(`${t.url}${res.body.image}`);
      expect(stored.status).toBe(200);
      const meta = await sharp(Buffer.from(await stored.arrayBuffer())).metadata();
      expect([meta.format, meta.width, meta.height], format).toEqual(['webp', 60, 40]);
    }
    // Each picture replaced the one before: one file row, one stored file of this author.
    const files = await commentFiles(author!.id);
    expect(files).toHaveLength(1);
    expect(files[0]!.storageKey).toBe(keyOf((await search(`objectType=video&objectId=${e.video.id}&limit=100`)).body.items.find((c: { _id: string }) => c._id === id).image));
  });

  it('fits a tall picture inside 1280x1280 by its height', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const id = await commentBy(author!);
    const tall = await sharp({ create: { width: 100, height: 2000, channels: 3, background: '#884422' } }).png().toBuffer();
    const res = await putImage(author!, id, tall);
    expect(res.status).toBe(200);
    const meta = await sharp(onDisk(keyOf(res.body.image))).metadata();
    expect([meta.width, meta.height]).toEqual([64, 1280]);
    const row = await t.ctx.db.selectFrom('files').select(['width', 'height', 'mime']).where('storageKey', '=', keyOf(res.body.image)).executeTakeFirstOrThrow();
    expect(row).toEqual({ width: 64, height: 1280, mime: 'image/webp' });
  });

  it('takes a picture of exactly 40 million pixels; one more row, or a header claiming 400 million, is refused as too large, nothing stored', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const id = await commentBy(author!);
    const atLimit = await sharp({ create: { width: 8000, height: 5000, channels: 3, background: '#224466' } }).png().toBuffer();
    const ok = await putImage(author!, id, atLimit);
    expect(ok.status).toBe(200);
    const meta = await sharp(onDisk(keyOf(ok.body.image))).metadata();
    expect([meta.width, meta.height]).toEqual([1280, 800]);

    const before = storedComments();
    for (const [w, h] of [[8000, 5001], [20000, 20000]] as const) {
      const res = await putImage(author!, id, pngClaiming(w, h));
      expect(res.status, `${w}x${h}`).toBe(400);
      expect(res.body).toMatchObject({ code: 'INVALID_IMAGE', message: 'The image dimensions are too large. Please upload a smaller picture.' });
    }
    expect(storedComments()).toEqual(before);
    expect((await commentRow(id)).imageFileId).toBe((await commentFiles(author!.id))[0]!.id);
  });

  it('refuses as "not a supported image" a file that is no picture, a format the site does not take (SVG), and a picture whose pixels cannot be decoded', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const id = await commentBy(author!);
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    const cases: Array<[string, Buffer]> = [
      ['text', Buffer.from('hello, not a picture')],
      ['svg', svg],
      // The header reads as a 100x100 PNG; its pixel data is one row.
      ['truncated png', pngClaiming(100, 100)],
    ];
    for (const [what, data] of cases) {
      const res = await putImage(author!, id, data, { content: 'must not be saved' });
      expect(res.status, what).toBe(400);
      expect(res.body, what).toMatchObject({ code: 'INVALID_IMAGE', message: 'The file is not a supported image. Please upload a JPEG, PNG, WebP, GIF or AVIF picture.' });
    }
    expect(await commentFiles(author!.id)).toEqual([]);
    expect((await commentRow(id)).content).toBe('a comment');
  });

  it('editing only the text keeps the picture: its file row, its stored bytes and its address', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const id = await commentBy(author!);
    const png = await sharp({ create: { width: 30, height: 30, channels: 3, background: '#000' } }).png().toBuffer();
    const withImage = await putImage(author!, id, png);
    expect(withImage.status).toBe(200);
    const { result: json, warnings } = await capturingWarnings(() => call('PUT', `/comments/${id}`, author!, { content: 'new words' }));
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ content: 'new words', image: withImage.body.image });
    const multipart = await postForm(t, `/comments/${id}`, { fields: { content: 'newer words' } }, { method: 'PUT', headers: bearer(author!) });
    expect(multipart.body).toMatchObject({ content: 'newer words', image: withImage.body.image });
    expect((await fetch(`${t.url}${withImage.body.image}`)).status).toBe(200);
    const files = await commentFiles(author!.id);
    expect(files.map((f) => f.storageKey)).toEqual([keyOf(withImage.body.image)]);
    expect((await commentRow(id)).imageFileId).toBe(files[0]!.id);
    // Nothing to clean up, so nothing failed to be cleaned up.
    expect(warnings).toEqual([]);
  });

  it('an edit with nothing in it is refused: 400 "Send new text or a picture"', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const id = await commentBy(author!);
    // A form with an empty file part and an unknown field: no text, no picture, no removal.
    const res = await postForm(t, `/comments/${id}`, { fields: { colour: 'blue' }, files: [{ name: 'image', filename: 'empty.png', data: Buffer.alloc(0) }] }, { method: 'PUT', headers: bearer(author!) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'BAD_REQUEST', message: 'Send new text or a picture' });
    expect(commentMessages.nothingToChange).toBe('Send new text or a picture');
  });

  it('answers with exact messages: unknown comment, object not visible, not the author, not allowed to delete', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const id = await commentBy(author!);
    expect((await call('PUT', '/comments/unknown', author!, { content: 'x' })).body).toMatchObject({ code: 'NOT_FOUND', message: 'Comment not found' });
    expect((await call('DELETE', '/comments/unknown', author!)).body).toMatchObject({ code: 'NOT_FOUND', message: 'Comment not found' });
    expect((await post(author!, 'video', e.draft.id, 'hi')).body).toMatchObject({ code: 'NOT_FOUND', message: 'Content not found' });
    expect((await search(`objectType=video&objectId=${e.draft.id}`)).body).toMatchObject({ code: 'NOT_FOUND', message: 'Content not found' });
    expect((await call('PUT', `/comments/${id}`, e.friend, { content: 'x' })).body).toMatchObject({ code: 'FORBIDDEN', message: 'Only the author can edit a comment' });
    expect((await call('DELETE', `/comments/${id}`, e.friend)).body).toMatchObject({ code: 'FORBIDDEN', message: 'You can only delete your own comments' });
  });

  it('a hidden comment cannot be edited (404) and deleting it leaves the counter as it is', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const target = await makePost(t.ctx, { title: 'Hidden comments here', imageFileId: null });
    const visible = await commentBy(author!, 'post', target.id, 'visible');
    const hidden = await commentBy(author!, 'post', target.id, 'to hide');
    expect(await readCounter(t.ctx.db, 'post', target.id, 'comment')).toBe(2);
    // A moderator hid it (the count follows the active comments).
    await t.ctx.db.updateTable('comments').set({ status: 'hidden' }).where('id', '=', hidden).execute();
    await t.ctx.db.updateTable('posts').set({ commentCount: 1 }).where('id', '=', target.id).execute();
    const edit = await call('PUT', `/comments/${hidden}`, author!, { content: 'back' });
    expect(edit.status).toBe(404);
    expect(edit.body.message).toBe('Comment not found');
    expect((await commentRow(hidden)).content).toBe('to hide');

    const { result: del, emitted } = await capturingObjectEvents(() => call('DELETE', `/comments/${hidden}`, author!));
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ _id: hidden, objectType: 'post', objectId: target.id, commentCount: 1 });
    expect(emitted).toEqual([{ objectType: 'post', objectId: target.id, event: 'comment/deleted', payload: del.body }]);
    expect(await readCounter(t.ctx.db, 'post', target.id, 'comment')).toBe(1);
    expect(await countComments(t.ctx.db, 'post', target.id)).toBe(1);
    expect((await search(`objectType=post&objectId=${target.id}`)).body.items.map((c: { _id: string }) => c._id)).toEqual([visible]);
  });

  it('pages by cursor exactly: full pages carry a cursor, the short last page and the page after an exact fit do not', async () => {
    const writers = await manyUsers(t.ctx.db, 2);
    const target = await makePost(t.ctx, { title: 'Paged', imageFileId: null });
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push(await commentBy(writers[i % 2]!, 'post', target.id, `comment ${i}`));
    const newest = [...made].reverse();
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const res = await search(`objectType=post&objectId=${target.id}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(5);
      pages.push(res.body.items.map((c: { _id: string }) => c._id));
      cursor = res.body.nextCursor;
      expect(typeof cursor === 'string' || cursor === null).toBe(true);
    } while (cursor && pages.length < 10);
    expect(pages).toEqual([newest.slice(0, 2), newest.slice(2, 4), newest.slice(4)]);

    // Four comments in pages of two: the second page is full, so it has a cursor; the page after it is empty.
    await call('DELETE', `/comments/${made[0]}`, writers[0]!);
    const first = await search(`objectType=post&objectId=${target.id}&limit=2`);
    const second = await search(`objectType=post&objectId=${target.id}&limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.items.map((c: { _id: string }) => c._id)).toEqual(newest.slice(2, 4));
    expect(second.body.nextCursor).toEqual(expect.any(String));
    const third = await search(`objectType=post&objectId=${target.id}&limit=2&cursor=${encodeURIComponent(second.body.nextCursor)}`);
    expect(third.body).toEqual({ items: [], total: 4, nextCursor: null, canModerate: false });
    // One page holding all: no cursor.
    expect((await search(`objectType=post&objectId=${target.id}&limit=10`)).body.nextCursor).toBeNull();
  });

  it('an admin moderates the site’s own posts (no performer), may read and write the comments of a draft site post, and a fan may not', async () => {
    const sitePost = await makePost(t.ctx, { title: 'Site news', performerId: null, imageFileId: null });
    const draftSitePost = await makePost(t.ctx, { title: 'Site draft', performerId: null, status: 'draft', imageFileId: null });
    const id = await commentBy(e.fan, 'post', sitePost.id, 'hello site');
    expect((await search(`objectType=post&objectId=${sitePost.id}`, e.admin)).body.canModerate).toBe(true);
    expect((await search(`objectType=post&objectId=${sitePost.id}`, e.star)).body.canModerate).toBe(false);
    expect((await call('DELETE', `/comments/${id}`, e.star)).status).toBe(403);
    const del = await call('DELETE', `/comments/${id}`, e.admin);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ _id: id, objectType: 'post', objectId: sitePost.id, commentCount: 0 });

    expect((await search(`objectType=post&objectId=${draftSitePost.id}`, e.fan)).status).toBe(404);
    expect((await post(e.fan, 'post', draftSitePost.id, 'sneak')).status).toBe(404);
    const read = await search(`objectType=post&objectId=${draftSitePost.id}`, e.admin);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ items: [], total: 0, nextCursor: null, canModerate: true });
    expect((await post(e.admin, 'post', draftSitePost.id, 'draft note')).status).toBe(201);
  });

  it('once the object is gone, its comments are deleted by their author or an admin, refused (403) to anyone else', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const target = await makePost(t.ctx, { title: 'Soon gone', performerId: e.star.id, imageFileId: null });
    const [a, b] = [await commentBy(author!, 'post', target.id, 'one'), await commentBy(author!, 'post', target.id, 'two')];
    await t.ctx.db.deleteFrom('posts').where('id', '=', target.id).execute();
    for (const who of [e.friend, e.star]) {
      const res = await call('DELETE', `/comments/${a}`, who);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('You can only delete your own comments');
    }
    expect((await call('DELETE', `/comments/${a}`, e.admin)).body).toEqual({ _id: a, objectType: 'post', objectId: target.id, commentCount: 0 });
    expect((await call('DELETE', `/comments/${b}`, author!)).body).toEqual({ _id: b, objectType: 'post', objectId: target.id, commentCount: 0 });
    expect(await t.ctx.db.selectFrom('comments').select('id').where('objectId', '=', target.id).execute()).toEqual([]);
  });

  it('an object deleted between the check and the insert takes no comment: 404, no row, no notification', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const target = await makePost(t.ctx, { title: 'Vanishing', performerId: e.other.id, imageFileId: null });
    const notes = async () => (await t.ctx.db.selectFrom('notifications').select('id').where('userId', '=', e.other.id).execute()).length;
    const before = await notes();
    deletePostBeforeNextWrite(t.ctx.db, target.id);
    const { result: res, emitted } = await capturingObjectEvents(() => post(author!, 'post', target.id, 'too late'));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: 'Content not found' });
    expect(await t.ctx.db.selectFrom('comments').select('id').where('objectId', '=', target.id).execute()).toEqual([]);
    expect(await notes()).toBe(before);
    expect(emitted).toEqual([]);
  });

  it('a new comment shows the author’s own avatar, the same in the answer, the room event and the list', async () => {
    const writer = await createUser(t.ctx.db, 'user', { name: 'Has Avatar' });
    await t.ctx.db.updateTable('users').set({ avatarPath: 'public/avatars/has-avatar.webp' }).where('id', '=', writer.id).execute();
    const { result: res, emitted } = await capturingObjectEvents(() => post(writer, 'video', e.video.id, 'look at me'));
    expect(res.status).toBe(201);
    const user = { _id: writer.id, name: 'Has Avatar', username: writer.username, avatar: '/media/public/avatars/has-avatar.webp' };
    expect(res.body.user).toEqual(user);
    const { commentCount, ...comment } = res.body;
    expect(emitted).toEqual([{ objectType: 'video', objectId: e.video.id, event: 'comment/created', payload: { comment, commentCount } }]);
    const listed = (await search(`objectType=video&objectId=${e.video.id}&limit=1`)).body.items[0];
    expect(listed).toEqual(comment);
  });

  it('a comment by someone else notifies the object’s performer: a stored notification and their unread count pushed to them; their own comment does neither', async () => {
    const performer = await createUser(t.ctx.db, 'performer', { name: 'Notified Performer' });
    const target = await makePost(t.ctx, { title: 'Notify me', performerId: performer.id, imageFileId: null });
    const [fan] = await manyUsers(t.ctx.db, 1);
    const hub = t.ctx.realtime;
    const original = hub.emitToUser;
    const toUsers: Array<[string, string, unknown]> = [];
    hub.emitToUser = ((userId: string, event: string, payload: unknown) => {
      toUsers.push([userId, event, payload]);
      return original.call(hub, userId, event as never, payload as never);
    }) as typeof hub.emitToUser;
    try {
      const byFan = await post(fan!, 'post', target.id, 'hello performer');
      expect(byFan.status).toBe(201);
      // The new notification as the list shows it, then the count.
      expect(toUsers).toEqual([
        [performer.id, 'notification/created', { notification: expect.objectContaining({ type: 'comment', text: expect.stringContaining('commented on “Notify me”'), url: `/posts/${target.id}`, read: false }) }],
        [performer.id, 'notification/count', { count: 1 }],
      ]);
      expect((await post(performer, 'post', target.id, 'my own words')).status).toBe(201);
      expect(toUsers).toHaveLength(2);
    } finally {
      hub.emitToUser = original;
    }
    const notes = await t.ctx.db.selectFrom('notifications').select(['type', 'payload', 'readAt']).where('userId', '=', performer.id).execute();
    expect(notes).toHaveLength(1);
    expect(notes[0]!.type).toBe('comment');
    expect(notes[0]!.readAt).toBeNull();
    expect(JSON.parse(notes[0]!.payload)).toEqual({
      commentId: expect.any(String), objectType: 'post', objectId: target.id, userId: fan!.id, title: 'Notify me', actorName: expect.any(String), url: `/posts/${target.id}`,
    });
  });

  it('an edit is pushed to the object’s room with the comment as answered', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const id = await commentBy(author!, 'gallery', e.gallery.id);
    const { result: res, emitted } = await capturingObjectEvents(() => call('PUT', `/comments/${id}`, author!, { content: 'changed' }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: id, content: 'changed' });
    expect(emitted).toEqual([{ objectType: 'gallery', objectId: e.gallery.id, event: 'comment/updated', payload: { comment: res.body } }]);
  });

  it('deleting a comment deletes its picture: the file row and the stored bytes; a comment without one warns of nothing', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const withPicture = await commentBy(author!);
    const plain = await commentBy(author!);
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#fff' } }).png().toBuffer();
    const image = (await putImage(author!, withPicture, png)).body.image as string;
    const { warnings } = await capturingWarnings(async () => {
      expect((await call('DELETE', `/comments/${plain}`, author!)).status).toBe(200);
      expect((await call('DELETE', `/comments/${withPicture}`, author!)).status).toBe(200);
    });
    expect(warnings).toEqual([]);
    expect(await commentFiles(author!.id)).toEqual([]);
    expect(fs.existsSync(onDisk(keyOf(image)))).toBe(false);
    expect((await fetch(`${t.url}${image}`)).status).toBe(404);
  });

  it('a picture that cannot be removed from storage does not fail the edit or the delete; the failure is logged with its key', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const id = await commentBy(author!);
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#123' } }).png().toBuffer();
    const first = (await putImage(author!, id, png)).body.image as string;
    const storage = t.ctx.storage;
    const original = storage.delete;
    storage.delete = async (key: string) => {
      throw new Error(`disk refuses ${key}`);
    };
    try {
      const edit = await capturingWarnings(() => putImage(author!, id, png));
      expect(edit.result.status).toBe(200);
      const second = edit.result.body.image as string;
      expect(second).not.toBe(first);
      expect(edit.warnings).toHaveLength(1);
      expect(edit.warnings[0]).toEqual([{ err: expect.objectContaining({ message: `disk refuses ${keyOf(first)}` }), key: keyOf(first) }, 'old comment image could not be deleted']);

      const del = await capturingWarnings(() => call('DELETE', `/comments/${id}`, author!));
      expect(del.result.status).toBe(200);
      expect(del.warnings).toEqual([[{ err: expect.objectContaining({ message: `disk refuses ${keyOf(second)}` }), key: keyOf(second) }, 'comment image could not be deleted']]);
    } finally {
      storage.delete = original;
    }
    expect(await commentFiles(author!.id)).toEqual([]);
  });

  it('when the picture’s file row cannot be written, the stored bytes are removed and the comment is unchanged', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const id = await commentBy(author!);
    const before = storedComments();
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#456' } }).png().toBuffer();
    const res = await whileDatabaseRefuses('files', () => postForm(t, `/comments/${id}`, { fields: { content: 'with picture' }, files: [{ name: 'image', filename: 'p.png', data: png }] }, { method: 'PUT', headers: bearer(author!) }));
    expect(res.status).toBe(500);
    expect(storedComments()).toEqual(before);
    expect(await commentFiles(author!.id)).toEqual([]);
    expect(await commentRow(id)).toMatchObject({ content: 'a comment', imageFileId: null });
  });

  it('when the comment cannot be updated, the new picture’s bytes and file row are removed and the old picture stays', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const id = await commentBy(author!);
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#789' } }).png().toBuffer();
    const old = (await putImage(author!, id, png)).body.image as string;
    const oldRow = await commentRow(id);
    const before = storedComments();
    const res = await whileDatabaseRefuses('comments', () => postForm(t, `/comments/${id}`, { fields: { content: 'replaced' }, files: [{ name: 'image', filename: 'p.png', data: png }] }, { method: 'PUT', headers: bearer(author!) }));
    expect(res.status).toBe(500);
    expect(storedComments()).toEqual(before);
    expect((await commentFiles(author!.id)).map((f) => f.storageKey)).toEqual([keyOf(old)]);
    expect(await commentRow(id)).toEqual(oldRow);
    expect((await fetch(`${t.url}${old}`)).status).toBe(200);
    // A text-only edit that fails stores nothing and changes nothing.
    const textOnly = await whileDatabaseRefuses('comments', () => t.api(`/comments/${id}`, { method: 'PUT', headers: bearer(author!), json: { content: 'also refused' } }));
    expect(textOnly.status).toBe(500);
    expect(await commentRow(id)).toEqual(oldRow);
    expect(storedComments()).toEqual(before);
  });

  it("refuses a fan the performer blocked on every kind of the performer's objects (403 BLOCKED_BY_PERFORMER, nothing stored), not elsewhere, and takes them again once unblocked", async () => {
    const [blocked] = await manyUsers(t.ctx.db, 1);
    expect((await call('POST', '/performer/blocks', e.star, { userId: blocked!.id })).status).toBe(200);
    const kinds = Object.entries(e.objects) as Array<[EngagementObjectType, string]>;
    for (const [objectType, objectId] of kinds) {
      const before = [await countComments(t.ctx.db, objectType, objectId), await readCounter(t.ctx.db, objectType, objectId, 'comment')];
      const refused = await post(blocked!, objectType, objectId, 'Let me in');
      expect([refused.status, refused.body.code, refused.body.message], objectType).toEqual([403, 'BLOCKED_BY_PERFORMER', 'This performer does not accept comments from you']);
      expect([await countComments(t.ctx.db, objectType, objectId), await readCounter(t.ctx.db, objectType, objectId, 'comment')], objectType).toEqual(before);
    }
    // Another performer's items, and the other fans on this one's, are not affected.
    expect((await post(blocked!, 'video', e.otherVideo.id, 'Elsewhere')).status).toBe(201);
    const [other] = await manyUsers(t.ctx.db, 1);
    expect((await post(other!, 'performer', e.star.id, 'Not blocked')).status).toBe(201);
    expect((await call('DELETE', `/performer/blocks/${blocked!.id}`, e.star)).status).toBe(200);
    for (const [objectType, objectId] of kinds) expect((await post(blocked!, objectType, objectId, 'Back again')).status, objectType).toBe(201);
  });

  it('never answered 5xx (other than where the test broke the database on purpose)', () => {
    expect(serverErrors).toEqual([]);
  });
});
