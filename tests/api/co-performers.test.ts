import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeGallery, makePost, makeVideo } from '../../server/seed/factories.js';
import { makeTestMedia, postForm, type TestMedia } from '../helpers/uploads.js';
import { mediaSigner } from '../../server/media/signed-urls.js';

/**
 * Co-performers and consent records (docs/product.md, Co-performers and consent) over real HTTP: a named performer of
 * this site holds the item back until they confirm in their studio (declining keeps it back until the name is
 * removed); an outside person counts as confirmed with a release form and an identity document, whose types are
 * sniffed from the bytes; nobody reaches another performer's items or requests; the files open for admins only,
 * through links signed for that admin; the record-keeping statement page shows the admin's (cleaned) setting.
 */

describe.each(engines)('co-performers on %s', (engine) => {
  let t: TestApp;
  let media: TestMedia;
  let admin: TestUser;
  let a: TestUser;
  let b: TestUser;
  let c: TestUser;
  let fan: TestUser;

  const call = (who: TestUser | null, path: string, init: { method?: string; json?: unknown } = {}) =>
    t.api(path, { method: init.method ?? 'GET', headers: who?.headers ?? {}, ...(init.json !== undefined ? { json: init.json } : {}) });
  const activeVideo = async (owner: TestUser = a, title = 'A duet') => (await makeVideo(t.ctx, owner.id, { title, access: 'free', status: 'active', withFiles: false })).id;
  const name = (who: TestUser, type: string, id: string, username: string) => call(who, `/performer/co-performers/${type}/${id}`, { method: 'POST', json: { username } });
  const publishVideo = (who: TestUser, id: string) => call(who, `/performer/assets/videos/${id}`, { method: 'PUT', json: { status: 'active' } });
  const statusOf = async (table: 'videos' | 'galleries' | 'posts', id: string) => (await t.ctx.db.selectFrom(table).select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const requestOf = async (who: TestUser, objectId: string) => {
    const res = await call(who, '/performer/co-performer-requests');
    expect(res.status).toBe(200);
    return (res.body.items as Array<{ _id: string; objectId: string; status: string; title: string }>).find((r) => r.objectId === objectId);
  };
  const outside = (who: TestUser, type: string, id: string, files: Array<{ name: string; filename: string; data: Buffer; type?: string }>, legalName = 'Jane Outside') =>
    postForm(t, `/performer/co-performers/${type}/${id}/outside`, { fields: { legalName }, files }, { headers: who.headers });
  const fetchRoot = (url: string, who: TestUser | null) => fetch(`${t.url}${url}`, { headers: who?.headers ?? {} });

  beforeAll(async () => {
    t = await startTestApp(engine);
    media = await makeTestMedia();
    admin = await createUser(t.ctx.db, 'admin');
    a = await createUser(t.ctx.db, 'performer', { name: 'Ana Uploader' });
    b = await createUser(t.ctx.db, 'performer', { name: 'Bea Partner' });
    c = await createUser(t.ctx.db, 'performer', { name: 'Cy Other' });
    fan = await createUser(t.ctx.db, 'user');
  }, 60_000);
  afterAll(async () => {
    await media?.cleanup();
    await t?.close();
  });

  it('a named site performer holds the item back (a published one goes to draft) until they confirm; then it publishes', async () => {
    const video = await activeVideo();
    expect((await call(null, `/user/assets/videos/${video}`)).status).toBe(200);

    const named = await name(a, 'video', video, `@${b.username}`);
    expect(named.status, JSON.stringify(named.body)).toBe(201);
    expect(named.body.publishable).toBe(false);
    expect(named.body.items).toEqual([expect.objectContaining({ kind: 'performer', status: 'pending', performer: expect.objectContaining({ _id: b.id }) })]);
    expect(await statusOf('videos', video)).toBe('draft');
    expect((await call(null, `/user/assets/videos/${video}`)).status).toBe(404);

    const refused = await publishVideo(a, video);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('CO_PERFORMER_UNCONFIRMED');
    // Scheduling is publishing later: refused too.
    const scheduled = await call(a, `/performer/assets/videos/${video}`, { method: 'PUT', json: { status: 'active', scheduledAt: new Date(Date.now() + 86_400_000).toISOString() } });
    expect(scheduled.body.code).toBe('CO_PERFORMER_UNCONFIRMED');
    expect(await statusOf('videos', video)).toBe('draft');

    // B is told, in the app, and sees the request in their studio.
    const notes = await t.ctx.db.selectFrom('notifications').select(['type', 'payload']).where('userId', '=', b.id).where('type', '=', 'co_performer').execute();
    expect(notes.map((n) => JSON.parse(n.payload))).toContainEqual(expect.objectContaining({ action: 'requested', objectId: video, url: '/studio/co-performers' }));
    const request = await requestOf(b, video);
    expect(request).toMatchObject({ status: 'pending', title: 'A duet' });

    const confirmed = await call(b, `/performer/co-performer-requests/${request!._id}/confirm`, { method: 'POST' });
    expect(confirmed.status, JSON.stringify(confirmed.body)).toBe(200);
    expect((await requestOf(b, video))!.status).toBe('confirmed');
    expect((await call(b, `/performer/co-performer-requests/${request!._id}/decline`, { method: 'POST' })).body.code).toBe('CO_PERFORMER_ALREADY_ANSWERED');
    const told = await t.ctx.db.selectFrom('notifications').select('payload').where('userId', '=', a.id).where('type', '=', 'co_performer').execute();
    expect(told.map((n) => JSON.parse(n.payload))).toContainEqual(expect.objectContaining({ action: 'confirmed', objectId: video }));

    const published = await publishVideo(a, video);
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(published.body.status).toBe('active');
    expect((await call(null, `/user/assets/videos/${video}`)).status).toBe(200);
    // Named twice: refused.
    expect((await name(a, 'video', video, b.username)).body.code).toBe('CO_PERFORMER_ALREADY_NAMED');
  });

  it('a decline keeps the item unpublished until the uploader removes the name', async () => {
    const gallery = (await makeGallery(t.ctx, a.id, { title: 'Beach day', access: 'free', status: 'active' })).id;
    expect((await name(a, 'gallery', gallery, b.username)).status).toBe(201);
    expect(await statusOf('galleries', gallery)).toBe('draft');
    const request = await requestOf(b, gallery);
    expect((await call(b, `/performer/co-performer-requests/${request!._id}/decline`, { method: 'POST' })).status).toBe(200);
    const publish = () => call(a, `/performer/assets/galleries/${gallery}`, { method: 'PUT', json: { status: 'active' } });
    expect((await publish()).body.code).toBe('CO_PERFORMER_UNCONFIRMED');
    const list = await call(a, `/performer/co-performers/gallery/${gallery}`);
    expect(list.body.items[0].status).toBe('declined');
    expect((await call(a, `/performer/co-performers/${list.body.items[0]._id}`, { method: 'DELETE' })).body).toEqual({ items: [], publishable: true });
    expect((await publish()).status).toBe(200);
    expect(await statusOf('galleries', gallery)).toBe('active');
  });

  it('a performer post works the same (published goes back to draft)', async () => {
    const post = (await makePost(t.ctx, { title: 'Behind the scenes', performerId: a.id, authorId: a.id, status: 'published' })).id;
    expect((await name(a, 'post', post, b.username)).status).toBe(201);
    expect(await statusOf('posts', post)).toBe('draft');
    const publish = await call(a, `/performer/assets/posts/${post}`, { method: 'PUT', json: { status: 'published' } });
    expect(publish.body.code).toBe('CO_PERFORMER_UNCONFIRMED');
  });

  it('only an approved performer of this site can be named, never oneself', async () => {
    const video = await activeVideo();
    const pending = await createUser(t.ctx.db, 'performer', { performer: { approved: 0 } });
    for (const username of ['nobody-here-at-all', fan.username, pending.username, a.username]) {
      const res = await name(a, 'video', video, username);
      expect(res.status, username).toBe(400);
    }
    expect(await statusOf('videos', video)).toBe('active');
  });

  it('an outside person with a release form and an identity document counts as confirmed; the files are private', async () => {
    const video = await activeVideo();
    const res = await outside(a, 'video', video, [
      { name: 'releaseForm', filename: 'release.pdf', data: media.pdf, type: 'application/pdf' },
      { name: 'idDocument', filename: 'passport.jpg', data: media.jpeg, type: 'image/jpeg' },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.publishable).toBe(true);
    expect(res.body.items).toEqual([expect.objectContaining({ kind: 'outside', legalName: 'Jane Outside', status: 'confirmed', hasReleaseForm: true, hasIdDocument: true })]);
    // Nothing in the answer is a file's address, and the item stayed published.
    expect(JSON.stringify(res.body)).not.toMatch(/consent\/|media\//);
    expect(await statusOf('videos', video)).toBe('active');
    const row = await t.ctx.db.selectFrom('coPerformers').selectAll().where('objectId', '=', video).executeTakeFirstOrThrow();
    const files = await t.ctx.db.selectFrom('files').select(['storageKey', 'mime']).where('id', 'in', [row.releaseFileId!, row.idFileId!]).execute();
    expect(files.map((f) => f.storageKey).every((k) => k.startsWith('private/consent/'))).toBe(true);
    expect(files.map((f) => f.mime).sort()).toEqual(['application/pdf', 'image/jpeg']);
    // Publishing is allowed.
    expect((await publishVideo(a, video)).status).toBe(200);
    // Removing the person deletes their files too.
    expect((await call(a, `/performer/co-performers/${row.id}`, { method: 'DELETE' })).status).toBe(200);
    for (const f of files) expect(await t.ctx.storage.stat(f.storageKey)).toBeNull();
  });

  it('refuses wrong file types and missing files, keeping nothing', async () => {
    const video = await activeVideo();
    const before = await t.ctx.db.selectFrom('files').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const cases: Array<[Array<{ name: string; filename: string; data: Buffer; type?: string }>, number, string]> = [
      [[{ name: 'releaseForm', filename: 'release.txt', data: Buffer.from('I agree, signed Jane'), type: 'text/plain' }, { name: 'idDocument', filename: 'id.png', data: media.png }], 400, 'UNSUPPORTED_MEDIA'],
      // An identity document must be a picture: a PDF is refused.
      [[{ name: 'releaseForm', filename: 'release.pdf', data: media.pdf }, { name: 'idDocument', filename: 'id.pdf', data: media.pdf }], 400, 'UNSUPPORTED_MEDIA'],
      // A file named .jpg that is a PDF is what its bytes say.
      [[{ name: 'releaseForm', filename: 'release.pdf', data: media.pdf }, { name: 'idDocument', filename: 'id.jpg', data: media.pdf, type: 'image/jpeg' }], 400, 'UNSUPPORTED_MEDIA'],
      [[{ name: 'releaseForm', filename: 'release.pdf', data: media.pdf }], 400, 'VALIDATION_FAILED'],
      [[{ name: 'idDocument', filename: 'id.png', data: media.png }], 400, 'VALIDATION_FAILED'],
    ];
    for (const [files, status, code] of cases) {
      const res = await outside(a, 'video', video, files);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body.code).toBe(code);
    }
    expect((await outside(a, 'video', video, [{ name: 'releaseForm', filename: 'r.pdf', data: media.pdf }, { name: 'idDocument', filename: 'i.png', data: media.png }], '')).status).toBe(400);
    const after = await t.ctx.db.selectFrom('files').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect((await call(a, `/performer/co-performers/video/${video}`)).body.items).toEqual([]);
  });

  it("another performer's items, records and requests are 404", async () => {
    const video = await activeVideo();
    expect((await name(a, 'video', video, b.username)).status).toBe(201);
    const record = (await call(a, `/performer/co-performers/video/${video}`)).body.items[0]._id as string;
    expect((await call(c, `/performer/co-performers/video/${video}`)).status).toBe(404);
    expect((await name(c, 'video', video, b.username)).status).toBe(404);
    expect((await outside(c, 'video', video, [{ name: 'releaseForm', filename: 'r.pdf', data: media.pdf }, { name: 'idDocument', filename: 'i.png', data: media.png }])).status).toBe(404);
    expect((await call(c, `/performer/co-performers/${record}`, { method: 'DELETE' })).status).toBe(404);
    // Only the named performer answers their request; the uploader cannot confirm for them.
    for (const who of [a, c]) expect((await call(who, `/performer/co-performer-requests/${record}/confirm`, { method: 'POST' })).status).toBe(404);
    expect(await requestOf(c, video)).toBeUndefined();
    // A site post (no performer) is nobody's to name people in.
    const sitePost = (await makePost(t.ctx, { title: 'Site news', performerId: null, authorId: admin.id })).id;
    expect((await name(a, 'post', sitePost, b.username)).status).toBe(404);
    expect(await statusOf('videos', video)).toBe('draft');
  });

  it('the files open for admins only, through links signed for that admin and short-lived', async () => {
    const video = await activeVideo(a, 'Files check');
    expect((await outside(a, 'video', video, [{ name: 'releaseForm', filename: 'release.pdf', data: media.pdf }, { name: 'idDocument', filename: 'id.png', data: media.png }], 'Kim Private')).status).toBe(201);
    const listed = await call(admin, `/admin/consent?objectType=video&objectId=${video}`);
    expect(listed.status).toBe(200);
    expect(listed.body.total).toBe(1);
    const rec = listed.body.items[0];
    expect(rec).toMatchObject({ legalName: 'Kim Private', title: 'Files check', owner: expect.objectContaining({ _id: a.id }) });
    expect(Date.parse(rec.releaseForm.expiresAt) - Date.now()).toBeLessThanOrEqual(300_000);
    const release = await fetchRoot(rec.releaseForm.url, admin);
    expect(release.status).toBe(200);
    expect(Buffer.from(await release.arrayBuffer()).equals(media.pdf)).toBe(true);
    expect(release.headers.get('cache-control')).toContain('no-store');
    const id = await fetchRoot(rec.idDocument.url, admin);
    expect(id.status).toBe(200);
    expect(id.headers.get('content-type')).toBe('image/png');

    // The admin's URL replayed by anybody else: refused (it names the admin).
    for (const who of [fan, a, b, null]) {
      const res = await fetchRoot(rec.idDocument.url, who);
      expect(res.status, who?.role ?? 'guest').toBe(403);
    }
    // A link properly signed for somebody else (as if the site ever made one) still does not open: admins only.
    const signer = mediaSigner(t.config);
    const recordId = rec._id as string;
    const fileId = new URL(rec.idDocument.url, t.url).pathname.split('/').pop()!;
    for (const who of [fan, a]) {
      const forged = signer.sign({ objectType: 'consent', objectId: recordId, fileId }, who.id);
      expect((await fetchRoot(forged.url, who)).status).toBe(404);
    }
    expect((await fetchRoot(signer.sign({ objectType: 'consent', objectId: recordId, fileId }, null).url, null)).status).toBe(404);
    // Another record's file through this record: not found.
    const other = await activeVideo(a, 'Other files');
    await outside(a, 'video', other, [{ name: 'releaseForm', filename: 'r.pdf', data: media.pdf }, { name: 'idDocument', filename: 'i.png', data: media.png }]);
    expect((await fetchRoot(signer.sign({ objectType: 'consent', objectId: recordId, fileId: 'x' + fileId.slice(1) }, admin.id).url, admin)).status).toBe(404);
    // Expired: refused.
    const expired = signer.sign({ objectType: 'consent', objectId: recordId, fileId }, admin.id, { expiresAt: Math.floor(Date.now() / 1000) - 1 });
    expect((await (await fetchRoot(expired.url, admin)).json()).code).toBe('MEDIA_URL_EXPIRED');
    // The console's list is admins' only.
    for (const who of [fan, a]) expect((await call(who, '/admin/consent')).status).toBe(403);
  });

  it('an admin refuses a record: declined, the item back to draft, audited', async () => {
    const video = await activeVideo(a, 'Refused release');
    await outside(a, 'video', video, [{ name: 'releaseForm', filename: 'r.pdf', data: media.pdf }, { name: 'idDocument', filename: 'i.png', data: media.png }]);
    const rec = (await call(admin, `/admin/consent?objectType=video&objectId=${video}`)).body.items[0];
    const res = await call(admin, `/admin/consent/${rec._id}/refuse`, { method: 'POST' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ objectType: 'video', objectId: video, unpublished: true });
    expect(await statusOf('videos', video)).toBe('draft');
    expect((await publishVideo(a, video)).body.code).toBe('CO_PERFORMER_UNCONFIRMED');
    const audit = await t.ctx.db.selectFrom('auditLog').select(['action', 'actorId']).where('targetId', '=', rec._id).execute();
    expect(audit).toEqual([{ action: 'consent.refuse', actorId: admin.id }]);
    expect((await call(admin, `/admin/consent/${rec._id}/refuse`, { method: 'POST' })).status).toBe(409);
  });
});

describe.each(engines)('the record-keeping statement page on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { web: true });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('shows the default, then the admin setting, cleaned; the footer links to it', async () => {
    const first = await fetch(`${t.url}/record-keeping`);
    expect(first.status).toBe(200);
    const html = await first.text();
    expect(html).toContain('Record-keeping statement');
    expect(html).toContain('Custodian of Records');
    expect(html).toMatch(/href="\/record-keeping"/);

    const admin = await createUser(t.ctx.db, 'admin');
    const put = await t.api('/admin/settings', { method: 'PUT', headers: admin.headers, json: { recordKeepingStatement: '<p>Records kept by Example Ltd, 1 Main St.</p><script>alert(1)</script><a href="javascript:alert(2)">x</a>' } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.recordKeepingStatement).toBe('<p>Records kept by Example Ltd, 1 Main St.</p><a>x</a>');
    // Settings are cached per instance for SETTINGS_CACHE_MS; the admin's change invalidates this instance's cache.
    const page = await (await fetch(`${t.url}/record-keeping`)).text();
    expect(page).toContain('Records kept by Example Ltd, 1 Main St.');
    expect(page).not.toContain('alert(');
    const fan = await createUser(t.ctx.db, 'user');
    expect((await t.api('/admin/settings', { method: 'PUT', headers: fan.headers, json: { recordKeepingStatement: '<p>x</p>' } })).status).toBe(403);
  });
});
