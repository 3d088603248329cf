import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser } from '../helpers/sessions.js';
import { bearer, buildEngagement, manyUsers, type Engagement, recordingCaller } from '../helpers/engagement-fixture.js';
import { postForm } from '../helpers/uploads.js';
import { COMMENT_CREATE_LIMIT } from '../../server/comments/comments.routes.js';
import { countComments } from '../../server/comments/comments.repository.js';
import { readCounter } from '../../server/reactions/targets.repository.js';
import { ENGAGEMENT_OBJECT_TYPES, type EngagementObjectType } from '../../common/enums.js';

/**
 * Comments over real HTTP on every engine: create, search, edit (JSON and multipart with a picture), delete,
 * permissions, validation (script payloads are stored as plain text), counters exact under concurrency,
 * the per-user rate limit, and no 5xx anywhere.
 */

const redisEnv: Record<string, string> = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};

describe.each(engines)('comments API on %s', (engine) => {
  let t: TestApp;
  let e: Engagement;
  const serverErrors: string[] = [];

  const call = recordingCaller(() => t, serverErrors);
  const post = (who: { token: string } | null, body: unknown) => call('POST', '/comments', who, body);
  const search = (q: string, who?: { token: string } | null) => call('GET', `/comments/search?${q}`, who);
  const commentCount = (type: EngagementObjectType, id: string) => readCounter(t.ctx.db, type, id, 'comment');

  beforeAll(async () => {
    t = await startTestApp(engine, { env: redisEnv });
    e = await buildEngagement(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('guests read an empty list and cannot comment', async () => {
    const res = await search(`objectType=video&objectId=${e.video.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], total: 0, nextCursor: null, canModerate: false });
    const denied = await post(null, { objectType: 'video', objectId: e.video.id, content: 'hi' });
    expect(denied.status).toBe(401);
    expect(denied.body.code).toBe('UNAUTHORIZED');
  });

  it('creates a comment: trimmed text, author, counter +1 in the same answer', async () => {
    const res = await post(e.fan, { objectType: 'video', objectId: e.video.id, content: '  First!  \r\nSecond line  ' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      objectType: 'video',
      objectId: e.video.id,
      content: 'First!  \nSecond line',
      image: null,
      userId: e.fan.id,
      user: { _id: e.fan.id, name: 'Fan One', username: e.fan.username, avatar: '/no-avatar.png' },
      commentCount: 1,
    });
    expect(res.body._id).toMatch(/^[0-9a-f]{32}$/);
    expect(await commentCount('video', e.video.id)).toBe(1);
    const list = await search(`objectType=video&objectId=${e.video.id}`);
    expect(list.body.total).toBe(1);
    expect(list.body.items[0]).toMatchObject({ _id: res.body._id, content: 'First!  \nSecond line' });
  });

  it('stores a script payload as plain text and answers it unchanged (the page renders it as text)', async () => {
    const payload = '<script>window.__pwned = 1</script><img src=x onerror="alert(1)"> & "quotes"';
    const res = await post(e.friend, { objectType: 'video', objectId: e.video.id, content: payload });
    expect(res.status).toBe(201);
    expect(res.body.content).toBe(payload);
    const row = await t.ctx.db.selectFrom('comments').select('content').where('id', '=', res.body._id).executeTakeFirstOrThrow();
    expect(row.content).toBe(payload);
    // JSON answers are never sniffed as HTML.
    const raw = await fetch(`${t.url}/api/comments/search?objectType=video&objectId=${e.video.id}`);
    expect(raw.headers.get('content-type')).toMatch(/^application\/json/);
    expect(raw.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('comments on every object type and counts on its row', async () => {
    for (const type of ENGAGEMENT_OBJECT_TYPES) {
      const id = e.objects[type];
      const before = (await commentCount(type, id)) ?? 0;
      const res = await post(e.friend, { objectType: type, objectId: id, content: `About this ${type}` });
      expect(res.status, type).toBe(201);
      expect(res.body.commentCount).toBe(before + 1);
      expect(await commentCount(type, id)).toBe(before + 1);
      expect(await countComments(t.ctx.db, type, id)).toBe(before + 1);
    }
  });

  it('validates the body: 400 with field details, nothing stored', async () => {
    const [writer] = await manyUsers(t.ctx.db, 1);
    const before = await countComments(t.ctx.db, 'video', e.video.id);
    const cases: Array<[unknown, string]> = [
      [{ objectType: 'video', objectId: e.video.id, content: '' }, 'body.content'],
      [{ objectType: 'video', objectId: e.video.id, content: '   \n\t ' }, 'body.content'],
      [{ objectType: 'video', objectId: e.video.id, content: 'x'.repeat(2001) }, 'body.content'],
      [{ objectType: 'video', objectId: e.video.id, content: 42 }, 'body.content'],
      [{ objectType: 'video', objectId: e.video.id }, 'body.content'],
      [{ objectType: 'photo', objectId: e.video.id, content: 'hi' }, 'body.objectType'],
      [{ objectType: 'video', objectId: '../etc/passwd', content: 'hi' }, 'body.objectId'],
      [{ objectType: 'video', content: 'hi' }, 'body.objectId'],
    ];
    for (const [body, path] of cases) {
      const res = await post(writer!, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const notJson = await t.api('/comments', { method: 'POST', headers: { ...bearer(writer!), 'content-type': 'application/json' }, body: '{"objectType":' });
    expect(notJson.status).toBe(400);
    expect(await countComments(t.ctx.db, 'video', e.video.id)).toBe(before);
  });

  it('accepts exactly 2000 characters after trimming, drops control characters, and refuses NUL like every text field', async () => {
    const [writer] = await manyUsers(t.ctx.db, 1);
    const long = await post(writer!, { objectType: 'video', objectId: e.video.id, content: `  ${'y'.repeat(2000)}  ` });
    expect(long.status).toBe(201);
    expect(long.body.content).toHaveLength(2000);
    const bell = await post(writer!, { objectType: 'video', objectId: e.video.id, content: 'a\u0007b\u001bc' });
    expect(bell.status).toBe(201);
    expect(bell.body.content).toBe('abc');
    // NUL is refused API-wide (server/http/nul-guard.ts): PostgreSQL cannot store it in text.
    const nul = await post(writer!, { objectType: 'video', objectId: e.video.id, content: 'a\u0000b' });
    expect(nul.status).toBe(400);
    expect(nul.body.message).toMatch(/NUL/);
    const emoji = await post(writer!, { objectType: 'video', objectId: e.video.id, content: 'ünïcødé 🎉 日本語' });
    expect(emoji.status).toBe(201);
    expect(emoji.body.content).toBe('ünïcødé 🎉 日本語');
  });

  it('404 for objects that do not exist or are not visible; their performer and admins may still comment', async () => {
    expect((await post(e.fan, { objectType: 'video', objectId: 'nope', content: 'hi' })).status).toBe(404);
    expect((await post(e.fan, { objectType: 'gallery', objectId: e.video.id, content: 'wrong table' })).status).toBe(404);
    expect((await post(e.fan, { objectType: 'video', objectId: e.draft.id, content: 'hi' })).status).toBe(404);
    expect((await post(e.fan, { objectType: 'gallery', objectId: e.draftGallery.id, content: 'hi' })).status).toBe(404);
    expect((await search(`objectType=video&objectId=${e.draft.id}`)).status).toBe(404);
    expect((await search(`objectType=video&objectId=${e.draft.id}`, e.fan)).status).toBe(404);
    const own = await post(e.star, { objectType: 'video', objectId: e.draft.id, content: 'note to self' });
    expect(own.status).toBe(201);
    expect((await search(`objectType=video&objectId=${e.draft.id}`, e.star)).body.total).toBe(1);
    expect((await search(`objectType=video&objectId=${e.draft.id}`, e.admin)).status).toBe(200);
    const bad = await search('objectType=video');
    expect(bad.status).toBe(400);
    expect((await search(`objectType=nope&objectId=${e.video.id}`)).status).toBe(400);
  });

  it('lists newest first with offset and cursor paging, and tells who may moderate', async () => {
    const performer = await createUser(t.ctx.db, 'performer');
    const writers = await manyUsers(t.ctx.db, 3);
    const target = e.product.id;
    const before = (await search(`objectType=product&objectId=${target}&limit=100`)).body.total;
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await post(writers[i % 3]!, { objectType: 'product', objectId: target, content: `comment ${i}` });
      expect(res.status).toBe(201);
      made.push(res.body._id);
    }
    const newest = [...made].reverse();
    const first = await search(`objectType=product&objectId=${target}&limit=3`);
    expect(first.body.items.map((c: { _id: string }) => c._id)).toEqual(newest.slice(0, 3));
    expect(first.body.total).toBe(before + 7);
    expect(first.body.nextCursor).toBeTruthy();
    const second = await search(`objectType=product&objectId=${target}&limit=3&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(second.body.items.map((c: { _id: string }) => c._id)).toEqual(newest.slice(3, 6));
    expect(second.body.total).toBe(before + 7);
    const byOffset = await search(`objectType=product&objectId=${target}&limit=3&offset=3`);
    expect(byOffset.body.items.map((c: { _id: string }) => c._id)).toEqual(newest.slice(3, 6));
    expect(byOffset.body.total).toBe(before + 7);
    // Past the end, by offset and by cursor: no items, the total still counted.
    const pastEnd = await search(`objectType=product&objectId=${target}&limit=3&offset=${before + 7}`);
    expect(pastEnd.body).toMatchObject({ items: [], total: before + 7 });
    const last = await search(`objectType=product&objectId=${target}&limit=${before + 7}`);
    expect(last.body.nextCursor).toBeTruthy();
    const afterLast = await search(`objectType=product&objectId=${target}&limit=3&cursor=${encodeURIComponent(last.body.nextCursor)}`);
    expect(afterLast.body).toMatchObject({ items: [], total: before + 7 });
    expect((await search(`objectType=product&objectId=${target}&cursor=garbage`)).status).toBe(400);
    expect((await search(`objectType=product&objectId=${target}&limit=101`)).status).toBe(400);

    expect((await search(`objectType=product&objectId=${target}`, e.fan)).body.canModerate).toBe(false);
    expect((await search(`objectType=product&objectId=${target}`, performer)).body.canModerate).toBe(false);
    expect((await search(`objectType=product&objectId=${target}`, e.star)).body.canModerate).toBe(true);
    expect((await search(`objectType=product&objectId=${target}`, e.admin)).body.canModerate).toBe(true);
  });

  it('edits: only the author; JSON text, then multipart text + picture, then removing the picture', async () => {
    const created = (await post(e.fan, { objectType: 'gallery', objectId: e.gallery.id, content: 'original' })).body;
    const path = `/comments/${created._id}`;
    expect((await call('PUT', path, null, { content: 'x' })).status).toBe(401);
    expect((await call('PUT', path, e.friend, { content: 'hijack' })).status).toBe(403);
    expect((await call('PUT', path, e.admin, { content: 'admin edit' })).status).toBe(403);
    // The gallery's own performer may delete a fan's comment on it, never put words in the fan's mouth.
    expect((await call('PUT', path, e.star, { content: 'performer edit' })).status).toBe(403);
    expect((await call('PUT', path, e.other, { content: 'other performer edit' })).status).toBe(403);
    expect((await t.ctx.db.selectFrom('comments').select('content').where('id', '=', created._id).executeTakeFirstOrThrow()).content).toBe('original');
    expect((await call('PUT', '/comments/unknown', e.fan, { content: 'x' })).status).toBe(404);
    expect((await call('PUT', path, e.fan, { content: '' })).status).toBe(400);
    expect((await call('PUT', path, e.fan, {})).status).toBe(400);

    const edited = await call('PUT', path, e.fan, { content: '  edited <b>text</b> ' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ _id: created._id, content: 'edited <b>text</b>', image: null });
    expect(edited.body.updatedAt >= created.updatedAt).toBe(true);

    const png = await sharp({ create: { width: 1600, height: 900, channels: 3, background: '#3366ff' } }).png().toBuffer();
    const withImage = await postForm(t, path, { fields: { content: 'now with a picture' }, files: [{ name: 'image', filename: 'p.png', data: png, type: 'image/png' }] }, { method: 'PUT', headers: bearer(e.fan) });
    expect(withImage.status).toBe(200);
    expect(withImage.body.content).toBe('now with a picture');
    expect(withImage.body.image).toMatch(/^\/media\/public\/comments\/[0-9a-f]{32}\.webp$/);
    const img = await fetch(`${t.url}${withImage.body.image}`);
    expect(img.status).toBe(200);
    const meta = await sharp(Buffer.from(await img.arrayBuffer())).metadata();
    expect(meta.format).toBe('webp');
    expect(meta.width).toBe(1280);
    expect(meta.height).toBe(720);
    const listed = (await search(`objectType=gallery&objectId=${e.gallery.id}`)).body.items.find((c: { _id: string }) => c._id === created._id);
    expect(listed.image).toBe(withImage.body.image);

    // A new picture replaces the old one, whose file is deleted.
    const jpeg = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#ff0000' } }).jpeg().toBuffer();
    const replaced = await postForm(t, path, { files: [{ name: 'file', filename: 'q.jpg', data: jpeg, type: 'image/jpeg' }] }, { method: 'PUT', headers: bearer(e.fan) });
    expect(replaced.status).toBe(200);
    expect(replaced.body.content).toBe('now with a picture');
    expect(replaced.body.image).not.toBe(withImage.body.image);
    expect((await fetch(`${t.url}${withImage.body.image}`)).status).toBe(404);

    const notImage = await postForm(t, path, { files: [{ name: 'image', filename: 'evil.png', data: Buffer.from('<svg onload=alert(1)>'), type: 'image/png' }] }, { method: 'PUT', headers: bearer(e.fan) });
    expect(notImage.status).toBe(400);
    expect(notImage.body.code).toBe('INVALID_IMAGE');
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');
    expect((await postForm(t, path, { files: [{ name: 'image', filename: 'x.svg', data: svg, type: 'image/svg+xml' }] }, { method: 'PUT', headers: bearer(e.fan) })).status).toBe(400);
    const tooLong = await postForm(t, path, { fields: { content: 'z'.repeat(2001) } }, { method: 'PUT', headers: bearer(e.fan) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.code).toBe('VALIDATION_FAILED');
    const big = Buffer.alloc(5 * 1024 * 1024 + 10, 1);
    const tooBig = await postForm(t, path, { files: [{ name: 'image', filename: 'big.png', data: big, type: 'image/png' }] }, { method: 'PUT', headers: bearer(e.fan) });
    expect(tooBig.status).toBe(413);
    const twoFiles = await postForm(t, path, { files: [{ name: 'a', filename: 'a.png', data: png }, { name: 'b', filename: 'b.png', data: png }] }, { method: 'PUT', headers: bearer(e.fan) });
    expect(twoFiles.status).toBe(400);

    const removed = await postForm(t, path, { fields: { removeImage: 'true' } }, { method: 'PUT', headers: bearer(e.fan) });
    expect(removed.status).toBe(200);
    expect(removed.body.image).toBeNull();
    expect((await fetch(`${t.url}${replaced.body.image}`)).status).toBe(404);
    const files = await t.ctx.db.selectFrom('files').select('id').where('variant', '=', 'comment').where('ownerId', '=', e.fan.id).execute();
    expect(files).toHaveLength(0);
  });

  it('deletes: the author, the object performer or an admin; others 403; counter -1; twice is 404', async () => {
    const [author] = await manyUsers(t.ctx.db, 1);
    const mk = async (who = author!) => (await post(who, { objectType: 'video', objectId: e.video.id, content: 'to delete' })).body._id as string;
    const [a, b, c] = [await mk(), await mk(), await mk()];
    const before = (await commentCount('video', e.video.id))!;
    expect((await call('DELETE', `/comments/${a}`, null)).status).toBe(401);
    expect((await call('DELETE', `/comments/${a}`, e.friend)).status).toBe(403);
    expect((await call('DELETE', `/comments/${a}`, e.other)).status).toBe(403);
    const byAuthor = await call('DELETE', `/comments/${a}`, author!);
    expect(byAuthor.status).toBe(200);
    expect(byAuthor.body).toEqual({ _id: a, objectType: 'video', objectId: e.video.id, commentCount: before - 1 });
    expect((await call('DELETE', `/comments/${b}`, e.star)).status).toBe(200);
    expect((await call('DELETE', `/comments/${c}`, e.admin)).status).toBe(200);
    expect((await call('DELETE', `/comments/${a}`, author!)).status).toBe(404);
    expect((await call('DELETE', '/comments/..%2F..', author!)).status).toBe(400);
    expect(await commentCount('video', e.video.id)).toBe(before - 3);
    expect(await countComments(t.ctx.db, 'video', e.video.id)).toBe(before - 3);
  });

  it('notifies the performer of comments by others (not of their own)', async () => {
    const before = await t.ctx.db.selectFrom('notifications').select('id').where('userId', '=', e.star.id).execute();
    await post(e.friend, { objectType: 'post', objectId: e.post.id, content: 'nice post' });
    await post(e.star, { objectType: 'post', objectId: e.post.id, content: 'thanks' });
    const after = await t.ctx.db.selectFrom('notifications').selectAll().where('userId', '=', e.star.id).execute();
    expect(after.length).toBe(before.length + 1);
    const last = after.find((n) => !before.some((b) => b.id === n.id))!;
    expect(last.type).toBe('comment');
    expect(JSON.parse(last.payload)).toMatchObject({ objectType: 'post', objectId: e.post.id, userId: e.friend.id });
  });

  it('keeps the counter exact under 60 concurrent comments and concurrent deletes of the same comment', async () => {
    const users = await manyUsers(t.ctx.db, 60);
    const target = e.otherVideo.id;
    const results = await Promise.all(users.map((u, i) => post(u, { objectType: 'video', objectId: target, content: `burst ${i}` })));
    expect(results.map((r) => r.status)).toEqual(users.map(() => 201));
    expect(await commentCount('video', target)).toBe(60);
    expect(await countComments(t.ctx.db, 'video', target)).toBe(60);
    const victim = results[0]!.body._id;
    const deletes = await Promise.all(Array.from({ length: 10 }, () => call('DELETE', `/comments/${victim}`, users[0]!)));
    expect(deletes.filter((d) => d.status === 200)).toHaveLength(1);
    expect(deletes.filter((d) => d.status === 404)).toHaveLength(9);
    expect(await commentCount('video', target)).toBe(59);
  });

  it(`rate-limits new comments per user (${COMMENT_CREATE_LIMIT.max} per ${COMMENT_CREATE_LIMIT.windowSec} s)`, async () => {
    const [spammer, bystander] = await manyUsers(t.ctx.db, 2);
    for (let i = 0; i < COMMENT_CREATE_LIMIT.max; i++) {
      expect((await post(spammer!, { objectType: 'post', objectId: e.post.id, content: `spam ${i}` })).status).toBe(201);
    }
    const limited = await post(spammer!, { objectType: 'post', objectId: e.post.id, content: 'one more' });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Someone else is not affected.
    expect((await post(bystander!, { objectType: 'post', objectId: e.post.id, content: 'hello' })).status).toBe(201);
  });

  it('refuses a cookie-authenticated comment from another site', async () => {
    const [writer] = await manyUsers(t.ctx.db, 1);
    const res = await fetch(`${t.url}/api/comments`, {
      method: 'POST',
      headers: { cookie: `token=${writer!.token}`, origin: 'https://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ objectType: 'video', objectId: e.video.id, content: 'csrf' }),
    });
    expect(res.status).toBe(403);
    const same = await fetch(`${t.url}/api/comments`, {
      method: 'POST',
      headers: { cookie: `token=${writer!.token}`, origin: t.url, 'content-type': 'application/json' },
      body: JSON.stringify({ objectType: 'video', objectId: e.video.id, content: 'same site' }),
    });
    expect(same.status).toBe(201);
  });

  it('documents the routes in the OpenAPI document', async () => {
    const doc = await call('GET', '/docs/openapi.json');
    expect(doc.status).toBe(200);
    for (const p of ['/comments', '/comments/search', '/comments/{id}']) expect(Object.keys(doc.body.paths)).toContain(p);
    expect(Object.keys(doc.body.paths['/comments/{id}'])).toEqual(expect.arrayContaining(['put', 'delete']));
  });

  it('never answered 5xx', () => {
    expect(serverErrors).toEqual([]);
  });
});
