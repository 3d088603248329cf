import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeGallery, makePhoto, makeVideo } from '../../server/seed/factories.js';
import { parseTargetUrl } from '../../server/takedowns/target-url.js';

/**
 * Takedown requests (docs/product.md, Takedown requests): anyone files one without an account; the item is hidden at
 * once (its page, the API and protected media), the requester and the admins are mailed; a second request of the same item
 * is recorded and changes nothing more; the console upholds or restores (back to the status it had), audited, each
 * requester told. Floods meet the per-address limit and the captcha.
 */

let ipCounter = 0;
/** Each request from its own address unless a test says otherwise: the limit is per address. */
const freshIp = () => `10.9.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

describe.each(engines)('takedown requests on %s', (engine) => {
  let t: TestApp;
  let admin: TestUser;
  let perf: TestUser;

  const file = (body: Record<string, unknown>, ip = freshIp()) => t.api('/takedowns', { method: 'POST', json: body, headers: { 'x-forwarded-for': ip } });
  const valid = (url: string, extra: Record<string, unknown> = {}) => ({
    url,
    name: 'Dana Depicted',
    email: 'dana@example.org',
    relationship: 'depicted',
    statement: 'This video shows me and I never agreed to it being published here.',
    declaration: true,
    ...extra,
  });
  const resolve = (who: TestUser | null, type: string, id: string, action: string) =>
    t.api(`/admin/takedowns/${type}/${id}/resolve`, { method: 'POST', headers: who?.headers ?? {}, json: { action } });
  const statusOf = async (id: string) => (await t.ctx.db.selectFrom('videos').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
  const rowsOf = (id: string) => t.ctx.db.selectFrom('takedownRequests').selectAll().where('targetId', '=', id).orderBy('createdAt').orderBy('id').execute();
  const auditOf = async (id: string) => (await t.ctx.db.selectFrom('auditLog').select(['action', 'actorId', 'details']).where('targetId', '=', id).execute()).map((a) => a.action).sort();
  /** The outbox's mails (to, subject, template) written since the test began. */
  const outbox = async () => {
    await t.ctx.mailer.flush();
    const dir = path.join(t.config.dataDir, 'outbox');
    if (!fs.existsSync(dir)) return [];
    return fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { to: string; subject: string; template: string });
  };
  const freeVideo = async (title = 'Clip') => makeVideo(t.ctx, perf.id, { title, access: 'free' });

  beforeAll(async () => {
    t = await startTestApp(engine, { web: true, env: { TRUST_PROXY: '1' } });
    admin = await createUser(t.ctx.db, 'admin', { name: 'Ada Admin' });
    perf = await createUser(t.ctx.db, 'performer', { name: 'Taken Performer' });
  });
  afterAll(async () => t?.close());

  it('reads an address of this site as one item, and nothing else', () => {
    const own = ['fans.example', 'localhost:4321'];
    expect(parseTargetUrl('https://fans.example/videos/abc', own)).toEqual({ type: 'video', key: 'abc' });
    expect(parseTargetUrl('/galleries/g1?photo=p1', own)).toEqual({ type: 'photo', key: 'p1' });
    expect(parseTargetUrl('/performers/some.one', own)).toEqual({ type: 'performer', key: 'some.one' });
    expect(parseTargetUrl('http://localhost:4321/posts/my-post#x', own)).toEqual({ type: 'post', key: 'my-post' });
    for (const bad of ['https://evil.example/videos/abc', '//evil.example/videos/abc', 'javascript:alert(1)', '/videos', '/videos/a/b', '/studio/videos', '/videos/%zz', '/videos/a%20b', 'ftp://fans.example/videos/a', '']) {
      expect(parseTargetUrl(bad, own), bad).toBeNull();
    }
  });

  it('refuses bad input with a 400 and hides nothing: unknown or foreign addresses, missing declaration, long texts', async () => {
    const video = await freeVideo('Stays up');
    const bad: Array<[Record<string, unknown>, string?]> = [
      [valid(`${t.url}/nope/${video.id}`), 'UNKNOWN_ITEM'],
      [valid(`https://elsewhere.example/videos/${video.id}`), 'UNKNOWN_ITEM'],
      [valid('/videos/no-such-video'), 'UNKNOWN_ITEM'],
      [valid('/videos'), 'UNKNOWN_ITEM'],
      [valid(`/videos/${video.id}`, { declaration: false })],
      [valid(`/videos/${video.id}`, { declaration: undefined })],
      [valid(`/videos/${video.id}`, { email: 'not-an-email' })],
      [valid(`/videos/${video.id}`, { relationship: 'fan' })],
      [valid(`/videos/${video.id}`, { statement: 'x'.repeat(5001) })],
      [valid(`/videos/${video.id}`, { statement: 'too short' })],
      [valid(`/videos/${video.id}`, { name: 'n'.repeat(201) })],
      [valid(`/videos/${'v'.repeat(3000)}`)],
      [valid(`/videos/${video.id}`, { extra: 'field' })],
    ];
    for (const [body, code] of bad) {
      const res = await file(body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      if (code) expect(res.body.code).toBe(code);
    }
    expect(await statusOf(video.id)).toBe('active');
    expect(await rowsOf(video.id)).toHaveLength(0);
  });

  it('hides the item at once: API 404, protected media refused; mails the requester a reference and the admins', async () => {
    const video = await freeVideo('Taken down');
    const before = await t.api(`/user/assets/videos/${video.id}`);
    expect(before.status).toBe(200);
    const mediaUrl = before.body.video.url as string;
    expect((await fetch(`${t.url}${mediaUrl}`)).status).toBe(200);
    expect((await fetch(`${t.url}/videos/${video.id}`)).status).toBe(200);
    const mailsBefore = (await outbox()).length;

    const res = await file(valid(`${t.url}/videos/${video.id}`));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ reference: expect.stringMatching(/^TD-[0-9A-F]{10}$/), status: 'received' });
    expect(await statusOf(video.id)).toBe('hidden');
    expect((await t.api(`/user/assets/videos/${video.id}`)).status).toBe(404);
    expect((await fetch(`${t.url}${mediaUrl}`)).status).toBe(404);
    expect((await fetch(`${t.url}/videos/${video.id}`)).status).toBe(404);
    const [row] = await rowsOf(video.id);
    expect(row).toMatchObject({ reference: res.body.reference, isLead: 1, previousStatus: 'active', status: 'open', requesterEmail: 'dana@example.org', targetType: 'video' });
    // The hide is the console's own, audited without an actor and with the request's reference.
    const hide = await t.ctx.db.selectFrom('auditLog').selectAll().where('targetId', '=', video.id).where('action', '=', 'content.hide').executeTakeFirstOrThrow();
    expect(hide.actorId).toBeNull();
    expect(JSON.parse(hide.details)).toMatchObject({ from: 'active', to: 'hidden', takedown: res.body.reference });

    const mails = (await outbox()).slice(mailsBefore);
    expect(mails.find((m) => m.template === 'takedown-received')).toMatchObject({ to: 'dana@example.org', subject: expect.stringContaining(res.body.reference) });
    expect(mails.find((m) => m.template === 'takedown-admin')).toMatchObject({ to: admin.email });
  });

  it('a second request of an item already taken down is recorded, harms nothing more, and is resolved with the first', async () => {
    const video = await makeVideo(t.ctx, perf.id, { title: 'Twice', access: 'free', status: 'inactive' });
    expect((await file(valid(`/videos/${video.id}`))).status).toBe(201);
    expect((await file(valid(`/videos/${video.slug}`, { name: 'Rita Representative', email: 'rita@example.org', relationship: 'representative' }))).status).toBe(201);
    const rows = await rowsOf(video.id);
    expect(rows.map((r) => [r.isLead, r.previousStatus, r.status])).toEqual([[1, 'inactive', 'open'], [0, null, 'open']]);
    expect((await auditOf(video.id)).filter((a) => a === 'content.hide')).toHaveLength(1);

    const queue = await t.api('/admin/takedowns', { headers: admin.headers });
    expect(queue.status).toBe(200);
    const entry = queue.body.items.find((c: { targetId: string }) => c.targetId === video.id);
    expect(entry).toMatchObject({ targetType: 'video', itemStatus: 'hidden', previousStatus: 'inactive', overdue: false, url: `/videos/${video.id}` });
    expect(entry.requests.map((r: { email: string }) => r.email)).toEqual(['dana@example.org', 'rita@example.org']);

    const mailsBefore = (await outbox()).length;
    const restored = await resolve(admin, 'video', video.id, 'restore');
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body).toEqual({ targetType: 'video', targetId: video.id, status: 'restored', itemStatus: 'inactive', resolved: 2 });
    // Back to what it was (inactive), not to "active".
    expect(await statusOf(video.id)).toBe('inactive');
    expect(await auditOf(video.id)).toEqual(['content.hide', 'content.status', 'takedown.restore']);
    const outcome = (await outbox()).slice(mailsBefore).filter((m) => m.template === 'takedown-restored').map((m) => m.to).sort();
    expect(outcome).toEqual(['dana@example.org', 'rita@example.org']);
    // Resolved once: a second admin's click finds no open case and changes nothing.
    expect((await resolve(admin, 'video', video.id, 'uphold')).status).toBe(404);
    expect(await statusOf(video.id)).toBe('inactive');
  });

  it('uphold keeps it hidden, audited and told; the performer cannot publish it again', async () => {
    const video = await freeVideo('Upheld');
    expect((await file(valid(`/videos/${video.id}`))).status).toBe(201);
    expect((await resolve(perf, 'video', video.id, 'uphold')).status).toBe(403);
    expect((await resolve(null, 'video', video.id, 'uphold')).status).toBe(401);
    const mailsBefore = (await outbox()).length;
    const res = await resolve(admin, 'video', video.id, 'uphold');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'upheld', itemStatus: 'hidden', resolved: 1 });
    expect(await statusOf(video.id)).toBe('hidden');
    const entry = await t.ctx.db.selectFrom('auditLog').selectAll().where('targetId', '=', video.id).where('action', '=', 'takedown.uphold').executeTakeFirstOrThrow();
    expect(entry.actorId).toBe(admin.id);
    expect((await outbox()).slice(mailsBefore).map((m) => m.template)).toEqual(['takedown-upheld']);
    const republish = await t.api(`/performer/assets/videos/${video.id}`, { method: 'PUT', headers: perf.headers, json: { status: 'active' } });
    expect(republish.status).toBe(403);
    expect(republish.body.code).toBe('HIDDEN_BY_ADMIN');
    // Listed as upheld, no longer open.
    const done = await t.api('/admin/takedowns?status=upheld', { headers: admin.headers });
    expect(done.body.items.some((c: { targetId: string }) => c.targetId === video.id)).toBe(true);
    const open = await t.api('/admin/takedowns', { headers: admin.headers });
    expect(open.body.items.some((c: { targetId: string }) => c.targetId === video.id)).toBe(false);
  });

  it('an item an admin had hidden stays hidden when its takedown is restored', async () => {
    const video = await makeVideo(t.ctx, perf.id, { title: 'Hidden before', status: 'hidden' });
    expect((await file(valid(`/videos/${video.id}`))).status).toBe(201);
    expect((await rowsOf(video.id))[0]).toMatchObject({ isLead: 1, previousStatus: 'hidden' });
    expect(await auditOf(video.id)).toEqual([]);
    expect((await resolve(admin, 'video', video.id, 'restore')).body).toMatchObject({ itemStatus: 'hidden' });
    expect(await statusOf(video.id)).toBe('hidden');
  });

  it('a photo is taken down alone; a performer page waits for an admin', async () => {
    const gallery = await makeGallery(t.ctx, perf.id, { title: 'Album', access: 'free' });
    const photo = await makePhoto(t.ctx, perf.id, { galleryId: gallery.id });
    expect((await file(valid(`/galleries/${gallery.id}?photo=${photo.id}`))).status).toBe(201);
    const photoStatus = async () => (await t.ctx.db.selectFrom('photos').select('status').where('id', '=', photo.id).executeTakeFirstOrThrow()).status;
    const galleryStatus = async () => (await t.ctx.db.selectFrom('galleries').select('status').where('id', '=', gallery.id).executeTakeFirstOrThrow()).status;
    expect(await photoStatus()).toBe('hidden');
    expect(await galleryStatus()).toBe('active');
    expect((await resolve(admin, 'photo', photo.id, 'restore')).status).toBe(200);
    expect(await photoStatus()).toBe('active');

    const username = (await t.ctx.db.selectFrom('performers').select('username').where('id', '=', perf.id).executeTakeFirstOrThrow()).username;
    expect((await file(valid(`/performers/${username}`))).status).toBe(201);
    expect((await t.ctx.db.selectFrom('performers').select('status').where('id', '=', perf.id).executeTakeFirstOrThrow()).status).toBe('active');
    expect((await rowsOf(perf.id))[0]).toMatchObject({ targetType: 'performer', isLead: 1, previousStatus: null });
    expect((await resolve(admin, 'performer', perf.id, 'uphold')).status).toBe(200);
  });

  it('limits requests per address: the sixth within the hour is 429 with Retry-After', async () => {
    const ip = '10.77.0.1';
    const videos = await Promise.all(Array.from({ length: 6 }, (_, i) => freeVideo(`Flood ${i}`)));
    for (const v of videos.slice(0, 5)) expect((await file(valid(`/videos/${v.id}`), ip)).status).toBe(201);
    const sixth = await file(valid(`/videos/${videos[5]!.id}`), ip);
    expect(sixth.status).toBe(429);
    expect(sixth.body.code).toBe('RATE_LIMITED');
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await statusOf(videos[5]!.id)).toBe('active');
    // Another address is not affected.
    expect((await file(valid(`/videos/${videos[5]!.id}`))).status).toBe(201);
  });

  it('requires the captcha when the site has one', async () => {
    const provider = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ success: form.get('secret') === 's3cret' && form.get('response') === 'good-token' }));
      });
    });
    await new Promise<void>((r) => provider.listen(0, '127.0.0.1', r));
    const captcha = t.ctx.captcha as unknown as { verifyUrl: string };
    const previousUrl = captcha.verifyUrl;
    const video = await freeVideo('Captcha');
    try {
      captcha.verifyUrl = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/siteverify`;
      await t.ctx.settings.set('captchaSecret', 's3cret');
      const none = await file(valid(`/videos/${video.id}`));
      expect(none.status).toBe(400);
      const wrong = await file(valid(`/videos/${video.id}`, { captchaToken: 'bad' }));
      expect(wrong.status).toBe(400);
      expect(await statusOf(video.id)).toBe('active');
      expect((await file(valid(`/videos/${video.id}`, { captchaToken: 'good-token' }))).status).toBe(201);
      expect(await statusOf(video.id)).toBe('hidden');
    } finally {
      await t.ctx.settings.set('captchaSecret', '');
      captcha.verifyUrl = previousUrl;
      provider.close();
    }
  });
});
