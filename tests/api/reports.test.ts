import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { makeGallery, makePost, makeProduct, makeVideo, subscribe } from '../../server/seed/factories.js';
import { newId } from '../../server/db/ids.js';
import { REPORT_TARGET_TYPES } from '../../common/reports.js';
import type { ReportTargetType } from '../../common/enums.js';
import { postForm, waitFor } from '../helpers/uploads.js';
import { nextEvent, socketsClosedAfterEach, type TestSocket } from '../helpers/realtime-client.js';

/**
 * Reports (docs/product.md, Reports): a signed-in user reports what they can see, once while it is open, within a
 * rate limit; the console lists reported targets with their reports (open oldest first, overdue after 7 days) and
 * resolves all of a target's reports at once by removing it, suspending its owner or dismissing, each audited and
 * told to every reporter with a `report` notification.
 */

const openSocket = socketsClosedAfterEach();

/** Low enough to reach in one test; each other test uses fresh reporters, so none of them meets it. */
const LIMIT = 8;
const DAY = 86_400_000;

describe.each(engines)('reports on %s', (engine) => {
  let t: TestApp;
  let admin: TestUser;
  let perf: TestUser;
  let fan: TestUser;
  let targets: Record<ReportTargetType, string>;
  let subsVideo: string;

  const report = (who: TestUser | null, body: Record<string, unknown>) => t.api('/reports', { method: 'POST', headers: who?.headers ?? {}, json: body });
  const resolve = (who: TestUser | null, type: string, id: string, action: string) =>
    t.api(`/admin/reports/${type}/${id}/resolve`, { method: 'POST', headers: who?.headers ?? {}, json: { action } });
  const queue = (query = '', who: TestUser = admin) => t.api(`/admin/reports${query}`, { headers: who.headers });
  const reportsOf = (targetId: string) => t.ctx.db.selectFrom('reports').selectAll().where('targetId', '=', targetId).orderBy('createdAt').execute();
  /** A target's audit entries, by action (one transaction's entries may share a millisecond). */
  const auditOf = async (targetId: string) =>
    (await t.ctx.db.selectFrom('auditLog').select(['action', 'targetType', 'details', 'actorId']).where('targetId', '=', targetId).execute()).sort((a, b) => a.action.localeCompare(b.action));
  const notificationsOf = async (userId: string) =>
    (await t.ctx.db.selectFrom('notifications').select(['type', 'payload']).where('userId', '=', userId).where('type', '=', 'report').execute()).map((n) => JSON.parse(n.payload));
  const fans = (n: number) => Promise.all(Array.from({ length: n }, () => createUser(t.ctx.db, 'user')));
  const freeVideo = async (title = 'Reported clip') => (await makeVideo(t.ctx, perf.id, { title, access: 'free', withFiles: false })).id;
  /** Opens the fan's conversation with a performer who takes messages from any fan; answers its id. */
  const conversationOf = async (who: TestUser, performer: TestUser) => {
    const res = await t.api('/messages/conversations', { method: 'POST', headers: who.headers, json: { userId: performer.id } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body._id as string;
  };
  const say = async (who: TestUser, conversationId: string, text: string) => {
    const res = await t.api(`/messages/conversations/${conversationId}/messages`, { method: 'POST', headers: who.headers, json: { text } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body._id as string;
  };

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { RATE_LIMIT_REPORTS: `${LIMIT}/3600` } });
    const ctx = t.ctx;
    admin = await createUser(ctx.db, 'admin', { name: 'Ada Admin' });
    perf = await createUser(ctx.db, 'performer', { name: 'Reported Performer', performer: { messagePolicy: 'fans' } });
    fan = await createUser(ctx.db, 'user', { name: 'Careful Fan' });
    const commenter = await createUser(ctx.db, 'user', { name: 'Rude Commenter' });
    const video = await freeVideo('Free clip');
    subsVideo = (await makeVideo(ctx, perf.id, { title: 'Subscribers clip', access: 'subscribers', withFiles: false })).id;
    const comment = await t.api('/comments', { method: 'POST', headers: commenter.headers, json: { objectType: 'video', objectId: video, content: 'A rude comment' } });
    expect(comment.status, JSON.stringify(comment.body)).toBe(201);
    targets = {
      performer: perf.id,
      video,
      gallery: (await makeGallery(ctx, perf.id, { title: 'A gallery', access: 'free', photos: 1 })).id,
      product: (await makeProduct(ctx, perf.id, { name: 'A mug' })).id,
      post: (await makePost(ctx, { title: 'A post', performerId: perf.id, authorId: perf.id })).id,
      comment: comment.body._id,
      message: '',
    };
    const conversation = await conversationOf(fan, perf);
    await say(fan, conversation, 'Hello');
    targets.message = await say(perf, conversation, 'A rude answer');
  }, 90_000);
  afterAll(async () => {
    await t?.close();
  });

  it('takes a report of every kind of target from a signed-in user, with a reason and optional words', async () => {
    expect(Object.keys(targets).sort()).toEqual([...REPORT_TARGET_TYPES].sort());
    for (const [targetType, targetId] of Object.entries(targets)) {
      const res = await report(fan, { targetType, targetId, reason: 'spam', details: `  About this ${targetType}  ` });
      expect(res.status, `${targetType}: ${JSON.stringify(res.body)}`).toBe(201);
      expect(res.body).toMatchObject({ _id: expect.any(String), targetType, targetId, reason: 'spam', details: `About this ${targetType}`, status: 'open' });
      const rows = await reportsOf(targetId);
      expect(rows.map((r) => [r.reporterId, r.targetType, r.reason, r.status])).toEqual([[fan.id, targetType, 'spam', 'open']]);
    }
    const bare = await report((await fans(1))[0]!, { targetType: 'video', targetId: targets.video, reason: 'other' });
    expect(bare.status).toBe(201);
    expect(bare.body.details).toBeNull();
  });

  it('answers 404 for what the reporter cannot see, exactly as for an id that does not exist, and writes nothing', async () => {
    const ctx = t.ctx;
    const [reporter] = await fans(1);
    const unapproved = await createUser(ctx.db, 'performer', { performer: { approved: 0 } });
    const hidden = {
      draft: (await makeVideo(ctx, perf.id, { title: 'Draft', status: 'draft', publishedAt: null, withFiles: false })).id,
      hiddenGallery: (await makeGallery(ctx, perf.id, { title: 'Hidden', status: 'hidden', photos: 0 })).id,
      draftPost: (await makePost(ctx, { title: 'Draft post', performerId: perf.id, authorId: perf.id, status: 'draft' })).id,
    };
    // The same thing read: a draft video is 404 to a fan.
    const read = await t.api(`/user/assets/videos/${hidden.draft}`, { headers: reporter!.headers });
    expect(read.status).toBe(404);
    const unknown = await report(reporter!, { targetType: 'video', targetId: newId(), reason: 'illegal' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND' });
    const cases: Array<[ReportTargetType, string, string]> = [
      ['video', hidden.draft, newId()],
      ['gallery', hidden.hiddenGallery, newId()],
      ['post', hidden.draftPost, newId()],
      ['performer', unapproved.id, newId()],
      ['performer', fan.id, newId()], // a fan's account is not a performer
    ];
    // A fresh reporter per case: probing counts against the rate limit like any report.
    for (const [targetType, hiddenId, missingId] of cases) {
      const [prober] = await fans(1);
      const a = await report(prober!, { targetType, targetId: hiddenId, reason: 'illegal' });
      const b = await report(prober!, { targetType, targetId: missingId, reason: 'illegal' });
      expect([a.status, b.status], `${targetType} ${hiddenId}`).toEqual([404, 404]);
      expect(a.body).toEqual(b.body);
    }
    // A comment on a subscribers-only video is not the reporter's to read.
    const subscriber = await createUser(ctx.db, 'user');
    await subscribe(ctx.db, subscriber.id, perf.id);
    const locked = await t.api('/comments', { method: 'POST', headers: subscriber.headers, json: { objectType: 'video', objectId: subsVideo, content: 'For subscribers' } });
    expect(locked.status, JSON.stringify(locked.body)).toBe(201);
    const lockedReport = await report(reporter!, { targetType: 'comment', targetId: locked.body._id, reason: 'harassment' });
    const missingComment = await report(reporter!, { targetType: 'comment', targetId: newId(), reason: 'harassment' });
    expect([lockedReport.status, missingComment.status]).toEqual([404, 404]);
    expect(lockedReport.body).toEqual(missingComment.body);
    // Its performer and an admin do see it, so they may report it.
    expect((await report(admin, { targetType: 'comment', targetId: locked.body._id, reason: 'harassment' })).status).toBe(201);
    // Its own performer may report none of their things; a fan may not report their own comment.
    const own = await report(perf, { targetType: 'video', targetId: hidden.draft, reason: 'spam' });
    expect(own.status).toBe(400);
    expect(own.body.code).toBe('CANNOT_REPORT_OWN');
    expect((await report(subscriber, { targetType: 'comment', targetId: locked.body._id, reason: 'spam' })).body.code).toBe('CANNOT_REPORT_OWN');
    for (const id of Object.values(hidden)) expect(await reportsOf(id)).toEqual([]);
  });

  it('refuses guests, unknown reasons, unknown kinds and over-long words with { message, code }', async () => {
    const [reporter] = await fans(1);
    expect((await report(null, { targetType: 'video', targetId: targets.video, reason: 'spam' })).status).toBe(401);
    for (const body of [
      { targetType: 'video', targetId: targets.video, reason: 'boring' },
      { targetType: 'photo', targetId: targets.video, reason: 'spam' },
      { targetType: 'video', targetId: targets.video, reason: 'spam', details: 'x'.repeat(1001) },
      { targetType: 'video', targetId: 'bad id!', reason: 'spam' },
      { targetType: 'video', targetId: targets.video, reason: 'spam', extra: 1 },
    ]) {
      const res = await report(reporter!, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.any(String) });
    }
    expect((await reportsOf(targets.video)).filter((r) => r.reporterId === reporter!.id)).toEqual([]);
  });

  it('keeps one open report per reporter and target: a repeat, even at once, is 409 ALREADY_REPORTED', async () => {
    const video = await freeVideo();
    const [a, b] = await fans(2);
    expect((await report(a!, { targetType: 'video', targetId: video, reason: 'spam' })).status).toBe(201);
    const again = await report(a!, { targetType: 'video', targetId: video, reason: 'copyright', details: 'changed my mind' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'ALREADY_REPORTED', message: expect.any(String) });
    const racing = await Promise.all(Array.from({ length: 5 }, () => report(b!, { targetType: 'video', targetId: video, reason: 'spam' })));
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    const rows = await reportsOf(video);
    expect(rows.map((r) => [r.reporterId, r.reason])).toEqual([[a!.id, 'spam'], [b!.id, 'spam']]);
    // Once resolved, the same reporter may report it again.
    expect((await resolve(admin, 'video', video, 'dismiss')).status).toBe(200);
    expect((await report(a!, { targetType: 'video', targetId: video, reason: 'copyright' })).status).toBe(201);
  });

  it(`limits a user to ${LIMIT} reports in the window: 429 with Retry-After, nothing written`, async () => {
    const [flooder] = await fans(1);
    const videos = await Promise.all(Array.from({ length: LIMIT + 1 }, (_, i) => freeVideo(`Flood ${i}`)));
    const statuses: number[] = [];
    for (const v of videos) statuses.push((await report(flooder!, { targetType: 'video', targetId: v, reason: 'spam' })).status);
    expect(statuses).toEqual([...Array(LIMIT).fill(201), 429]);
    const over = await report(flooder!, { targetType: 'video', targetId: videos[LIMIT]!, reason: 'spam' });
    expect(over.status).toBe(429);
    expect(over.body.code).toBe('RATE_LIMITED');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await reportsOf(videos[LIMIT]!)).toEqual([]);
    // Another user is not slowed by it.
    const [other] = await fans(1);
    expect((await report(other!, { targetType: 'video', targetId: videos[LIMIT]!, reason: 'spam' })).status).toBe(201);
  });

  it('lists reported targets once with their reports, oldest first, overdue after 7 days; filters by status and kind; counts them on the dashboard', async () => {
    const video = await freeVideo('Queue clip');
    const oldVideo = await freeVideo('Old queue clip');
    const reporters = await fans(3);
    for (const r of reporters) expect((await report(r, { targetType: 'video', targetId: video, reason: 'underage' })).status).toBe(201);
    // A report from eight days ago (written as it would have been then).
    await t.ctx.db
      .insertInto('reports')
      .values({ id: newId(), reporterId: reporters[0]!.id, targetType: 'video', targetId: oldVideo, reason: 'illegal', details: null, status: 'open', createdAt: new Date(Date.now() - 8 * DAY).toISOString(), outcome: null, resolvedAt: null, resolvedBy: null })
      .execute();

    const open = await queue('?status=open&targetType=video&limit=100');
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    const ids = open.body.items.map((g: { targetId: string }) => g.targetId);
    expect(ids[0]).toBe(oldVideo); // the oldest on top
    const group = open.body.items.find((g: { targetId: string }) => g.targetId === video);
    expect(group).toMatchObject({
      targetType: 'video', count: 3, overdue: false, status: 'open', actions: ['remove', 'suspend', 'dismiss'],
      target: { title: 'Queue clip', url: `/videos/${video}`, owner: { _id: perf.id, username: perf.username }, status: 'active' },
    });
    expect(group.reports.map((r: { reporter: { _id: string }; reason: string }) => [r.reporter._id, r.reason])).toEqual(reporters.map((r) => [r.id, 'underage']));
    expect(open.body.items.find((g: { targetId: string }) => g.targetId === oldVideo)).toMatchObject({ count: 1, overdue: true });
    expect(open.body.open).toBeGreaterThanOrEqual(4);
    expect(open.body.overdue).toBe(1);
    expect(open.body.items.every((g: { targetType: string }) => g.targetType === 'video')).toBe(true);
    // Other kinds, and each target once.
    const comments = await queue('?targetType=comment');
    expect(comments.body.items.map((g: { targetType: string }) => g.targetType)).toEqual(expect.arrayContaining(['comment']));
    expect(comments.body.items.every((g: { targetType: string }) => g.targetType === 'comment')).toBe(true);
    const all = await queue('?limit=100');
    const keys = all.body.items.map((g: { targetType: string; targetId: string }) => `${g.targetType}:${g.targetId}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(all.body.total).toBe(keys.length);
    const paged = await queue('?limit=2&offset=0');
    expect(paged.body.items).toHaveLength(2);
    expect(paged.body.total).toBe(all.body.total);

    const dash = await t.api('/admin/dashboard', { headers: admin.headers });
    expect(dash.body.counts).toMatchObject({ openReports: open.body.open, overdueReports: 1 });

    // Resolved, they leave the open list for the resolved one.
    expect((await resolve(admin, 'video', oldVideo, 'dismiss')).status).toBe(200);
    const after = await queue('?status=open&targetType=video&limit=100');
    expect(after.body.items.map((g: { targetId: string }) => g.targetId)).not.toContain(oldVideo);
    expect(after.body.overdue).toBe(0);
    const resolved = await queue('?status=resolved&limit=100');
    const done = resolved.body.items.find((g: { targetId: string }) => g.targetId === oldVideo);
    expect(done).toMatchObject({ status: 'resolved', overdue: false, actions: [], count: 1 });
    expect(done.reports[0]).toMatchObject({ outcome: 'dismissed', resolvedBy: { _id: admin.id }, resolvedAt: expect.any(String) });
    expect((await queue('?status=closed')).status).toBe(400);
  });

  it('"remove" hides an item: gone from the public site, every open report resolved, audited, each reporter told', async () => {
    const video = await freeVideo('Clip to remove');
    const reporters = await fans(2);
    for (const r of reporters) expect((await report(r, { targetType: 'video', targetId: video, reason: 'non_consensual' })).status).toBe(201);
    expect((await t.api(`/user/assets/videos/${video}`)).status).toBe(200);

    const res = await resolve(admin, 'video', video, 'remove');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ targetType: 'video', targetId: video, outcome: 'removed', resolved: 2 });
    expect((await t.ctx.db.selectFrom('videos').select('status').where('id', '=', video).executeTakeFirstOrThrow()).status).toBe('hidden');
    expect((await t.api(`/user/assets/videos/${video}`)).status).toBe(404);
    expect((await reportsOf(video)).map((r) => [r.status, r.outcome, r.resolvedBy])).toEqual([['resolved', 'removed', admin.id], ['resolved', 'removed', admin.id]]);
    const audit = await auditOf(video);
    expect(audit.map((a) => a.action)).toEqual(['content.hide', 'report.resolve']);
    expect(audit.every((a) => a.actorId === admin.id)).toBe(true);
    expect(JSON.parse(audit.find((a) => a.action === 'report.resolve')!.details)).toMatchObject({ outcome: 'removed', reports: 2 });
    const rows = await reportsOf(video);
    for (const [i, r] of reporters.entries()) {
      expect(await notificationsOf(r.id)).toEqual([{ reportId: rows[i]!.id, outcome: 'removed', targetType: 'video', actorName: null, url: `/videos/${video}` }]);
    }
    // Nothing left to resolve: a second action is 404 and changes nothing.
    expect((await resolve(admin, 'video', video, 'dismiss')).status).toBe(404);
    expect((await auditOf(video)).length).toBe(2);
  });

  it('"remove" deletes a comment (its counter goes down) and "suspend" ends the account behind a target', async () => {
    const ctx = t.ctx;
    const video = await freeVideo('Commented clip');
    const author = await createUser(ctx.db, 'user', { name: 'Troll' });
    const c = await t.api('/comments', { method: 'POST', headers: author.headers, json: { objectType: 'video', objectId: video, content: 'Nasty words' } });
    const [reporter] = await fans(1);
    expect((await report(reporter!, { targetType: 'comment', targetId: c.body._id, reason: 'harassment' })).status).toBe(201);
    expect((await resolve(admin, 'comment', c.body._id, 'remove')).status).toBe(200);
    expect(await ctx.db.selectFrom('comments').select('id').where('id', '=', c.body._id).executeTakeFirst()).toBeUndefined();
    expect((await ctx.db.selectFrom('videos').select('commentCount').where('id', '=', video).executeTakeFirstOrThrow()).commentCount).toBe(0);
    expect((await auditOf(c.body._id)).map((a) => a.action)).toEqual(['comment.delete', 'report.resolve']);
    expect(await notificationsOf(reporter!.id)).toEqual([expect.objectContaining({ outcome: 'removed', targetType: 'comment', url: `/videos/${video}` })]);

    // A comment's author is suspended: their sessions end.
    const c2 = await t.api('/comments', { method: 'POST', headers: author.headers, json: { objectType: 'video', objectId: video, content: 'More nasty words' } });
    expect((await report(reporter!, { targetType: 'comment', targetId: c2.body._id, reason: 'harassment' })).status).toBe(201);
    const suspended = await resolve(admin, 'comment', c2.body._id, 'suspend');
    expect(suspended.body).toMatchObject({ outcome: 'suspended', resolved: 1 });
    expect((await ctx.db.selectFrom('users').select('status').where('id', '=', author.id).executeTakeFirstOrThrow()).status).toBe('suspended');
    expect((await t.api('/users/me', { headers: author.headers })).status).toBe(401);
    expect((await auditOf(author.id)).map((a) => a.action)).toEqual(['user.suspend']);
    expect((await auditOf(c2.body._id)).map((a) => a.action)).toEqual(['report.resolve']);

    // A performer reported for their gallery is suspended and off the site.
    const p = await createUser(ctx.db, 'performer', { name: 'Bad Performer' });
    const gallery = (await makeGallery(ctx, p.id, { title: 'Bad gallery', access: 'free', photos: 0 })).id;
    expect((await report(reporter!, { targetType: 'gallery', targetId: gallery, reason: 'illegal' })).status).toBe(201);
    expect((await resolve(admin, 'gallery', gallery, 'suspend')).status).toBe(200);
    expect((await ctx.db.selectFrom('performers').select('status').where('id', '=', p.id).executeTakeFirstOrThrow()).status).toBe('suspended');
    expect((await t.api(`/performers/${p.id}`)).status).toBe(404);
    expect((await notificationsOf(reporter!.id)).map((n) => `${n.targetType} ${n.outcome}`).sort()).toEqual(['comment removed', 'comment suspended', 'gallery suspended']);
  });

  it('"dismiss" changes nothing but the reports; an action a target does not take is 400 and changes nothing', async () => {
    const ctx = t.ctx;
    const p = await createUser(ctx.db, 'performer');
    const [reporter] = await fans(1);
    expect((await report(reporter!, { targetType: 'performer', targetId: p.id, reason: 'other', details: 'Fake profile?' })).status).toBe(201);
    const refused = await resolve(admin, 'performer', p.id, 'remove');
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('ACTION_NOT_ALLOWED');
    expect((await reportsOf(p.id))[0]!.status).toBe('open');
    expect(await auditOf(p.id)).toEqual([]);

    const dismissed = await resolve(admin, 'performer', p.id, 'dismiss');
    expect(dismissed.body).toMatchObject({ outcome: 'dismissed', resolved: 1 });
    expect((await ctx.db.selectFrom('performers').select('status').where('id', '=', p.id).executeTakeFirstOrThrow()).status).toBe('active');
    expect((await auditOf(p.id)).map((a) => a.action)).toEqual(['report.resolve']);
    expect(await notificationsOf(reporter!.id)).toEqual([expect.objectContaining({ outcome: 'dismissed', targetType: 'performer', url: `/performers/${p.username}` })]);
    // An admin's account is never suspended from a report.
    const otherAdmin = await createUser(ctx.db, 'admin');
    const c = await t.api('/comments', { method: 'POST', headers: otherAdmin.headers, json: { objectType: 'video', objectId: targets.video, content: 'Admin words' } });
    expect((await report(reporter!, { targetType: 'comment', targetId: c.body._id, reason: 'spam' })).status).toBe(201);
    const adminSuspend = await resolve(admin, 'comment', c.body._id, 'suspend');
    expect(adminSuspend.status).toBe(400);
    expect((await reportsOf(c.body._id))[0]!.status).toBe('open');
    expect((await resolve(admin, 'video', newId(), 'dismiss')).status).toBe(404);
    expect((await t.api(`/admin/reports/video/${targets.video}/resolve`, { method: 'POST', headers: admin.headers, json: { action: 'delete' } })).status).toBe(400);
  });

  it('keeps the queue and its actions to admins', async () => {
    const [reporter] = await fans(1);
    const video = await freeVideo('Guarded clip');
    expect((await report(reporter!, { targetType: 'video', targetId: video, reason: 'spam' })).status).toBe(201);
    expect((await t.api('/admin/reports')).status).toBe(401);
    expect((await resolve(null, 'video', video, 'remove')).status).toBe(401);
    for (const who of [reporter!, perf, fan]) {
      expect((await queue('', who)).status).toBe(403);
      expect((await resolve(who, 'video', video, 'remove')).status).toBe(403);
    }
    expect((await reportsOf(video))[0]!.status).toBe('open');
    expect((await t.ctx.db.selectFrom('videos').select('status').where('id', '=', video).executeTakeFirstOrThrow()).status).toBe('active');
  });
});

describe.each(engines)('reports of direct messages on %s', (engine) => {
  let t: TestApp;
  let admin: TestUser;
  let perf: TestUser;
  let png: Buffer;

  const report = (who: TestUser, targetId: string, reason = 'harassment') => t.api('/reports', { method: 'POST', headers: who.headers, json: { targetType: 'message', targetId, reason } });
  const resolve = (type: string, id: string, action: string) => t.api(`/admin/reports/${type}/${id}/resolve`, { method: 'POST', headers: admin.headers, json: { action } });
  const reportsOf = (targetId: string) => t.ctx.db.selectFrom('reports').selectAll().where('targetId', '=', targetId).execute();
  const messageRow = (id: string) => t.ctx.db.selectFrom('messages').select(['id', 'body']).where('id', '=', id).executeTakeFirst();
  const conversationRow = (id: string) => t.ctx.db.selectFrom('conversations').select(['lastMessageId', 'lastMessageAt']).where('id', '=', id).executeTakeFirstOrThrow();
  async function thread(fan: TestUser, texts: Array<[TestUser, string]>) {
    const opened = await t.api('/messages/conversations', { method: 'POST', headers: fan.headers, json: { userId: perf.id } });
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const ids: string[] = [];
    for (const [who, text] of texts) {
      const sent = await t.api(`/messages/conversations/${opened.body._id}/messages`, { method: 'POST', headers: who.headers, json: { text } });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      ids.push(sent.body._id);
    }
    return { conversationId: opened.body._id as string, ids };
  }

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { JOBS_POLL_MS: '50' } });
    admin = await createUser(t.ctx.db, 'admin');
    perf = await createUser(t.ctx.db, 'performer', { name: 'Messaging Performer', performer: { messagePolicy: 'fans' } });
    png = await sharp({ create: { width: 16, height: 12, channels: 3, background: { r: 200, g: 40, b: 40 } } }).png().toBuffer();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('takes the report of the participant who received it; anyone else finds nothing (404 as an unknown id), its sender may not, nothing is written', async () => {
    const fan = await createUser(t.ctx.db, 'user');
    const { ids } = await thread(fan, [[fan, 'Hi'], [perf, 'Buy my stuff at a shady site']]);
    const [hello, spam] = ids as [string, string];
    const [otherFan, otherPerf] = [await createUser(t.ctx.db, 'user'), await createUser(t.ctx.db, 'performer')];
    const unknown = await report(otherFan, newId());
    expect(unknown.status).toBe(404);
    for (const outsider of [otherFan, otherPerf, admin]) {
      const res = await report(outsider, spam);
      expect([res.status, res.body], outsider.username).toEqual([404, unknown.body]);
    }
    // Its sender knows it exists: their own is refused as own.
    const own = await report(perf, spam);
    expect([own.status, own.body.code]).toEqual([400, 'CANNOT_REPORT_OWN']);
    expect((await report(fan, hello)).body.code).toBe('CANNOT_REPORT_OWN');
    expect(await reportsOf(spam)).toEqual([]);
    expect(await reportsOf(hello)).toEqual([]);

    const ok = await report(fan, spam, 'spam');
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body).toMatchObject({ targetType: 'message', targetId: spam, reason: 'spam', status: 'open' });
    expect((await report(fan, spam)).status).toBe(409);
    // A performer reports what a fan sent them.
    expect((await report(perf, hello, 'spam')).status).toBe(201);
  });

  it('shows the admin the message, its sender and the messages around it, and the conversation a link away', async () => {
    const fan = await createUser(t.ctx.db, 'user', { name: 'Reporting Fan' });
    const lines: Array<[TestUser, string]> = [[fan, 'one'], [perf, 'two'], [fan, 'three'], [perf, 'four'], [perf, 'the nasty one'], [fan, 'what?'], [perf, 'sorry'], [fan, 'ok'], [perf, 'late']];
    const { conversationId, ids } = await thread(fan, lines);
    const nasty = ids[4]!;
    expect((await report(fan, nasty)).status).toBe(201);
    const queue = await t.api('/admin/reports?targetType=message&limit=100', { headers: admin.headers });
    expect(queue.status, JSON.stringify(queue.body)).toBe(200);
    const group = queue.body.items.find((g: { targetId: string }) => g.targetId === nasty);
    expect(group).toMatchObject({
      targetType: 'message', count: 1, actions: ['remove', 'suspend', 'dismiss'],
      target: { title: 'the nasty one', url: `/messages/${conversationId}`, owner: { _id: perf.id }, status: 'active' },
    });
    // Four before it, two after, oldest first; the reported one marked.
    expect(group.thread.map((l: { text: string; reported: boolean }) => `${l.text}${l.reported ? ' *' : ''}`)).toEqual(['one', 'two', 'three', 'four', 'the nasty one *', 'what?', 'sorry']);
    expect(group.thread[1]).toMatchObject({ sender: { _id: perf.id, name: 'Messaging Performer' }, attachments: 0, createdAt: expect.any(String) });
    expect(group.thread[0].sender).toMatchObject({ _id: fan.id, name: 'Reporting Fan' });
    // Other kinds carry no thread.
    const video = (await makeVideo(t.ctx, perf.id, { title: 'Clip', access: 'free', withFiles: false })).id;
    expect((await t.api('/reports', { method: 'POST', headers: fan.headers, json: { targetType: 'video', targetId: video, reason: 'spam' } })).status).toBe(201);
    const videos = await t.api('/admin/reports?targetType=video', { headers: admin.headers });
    expect(videos.body.items.find((g: { targetId: string }) => g.targetId === video).thread).toBeNull();
    // The admin reads the whole conversation.
    const read = await t.api(`/messages/conversations/${conversationId}/messages?limit=50`, { headers: admin.headers });
    expect(read.body.items.map((m: { _id: string }) => m._id)).toContain(nasty);
  });

  it('"remove" deletes the message, its attachments and files, puts the conversation\'s last message back, audits it and tells the reporter and both tabs', async () => {
    const fan = await createUser(t.ctx.db, 'user');
    const { conversationId, ids } = await thread(fan, [[fan, 'Hi there'], [perf, 'Earlier answer']]);
    const sent = await postForm(t, `/messages/conversations/${conversationId}/messages`, { fields: { text: 'Look at this' }, files: [{ name: 'file', filename: 'x.png', data: png, type: 'image/png' }] }, { headers: perf.headers });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const bad = sent.body._id as string;
    const fileId = sent.body.attachments[0]._id as string;
    const key = (await t.ctx.db.selectFrom('files').select('storageKey').where('id', '=', fileId).executeTakeFirstOrThrow()).storageKey;
    expect(await t.ctx.storage.stat(key)).not.toBeNull();
    expect((await conversationRow(conversationId)).lastMessageId).toBe(bad);
    expect((await report(fan, bad, 'illegal')).status).toBe(201);

    const [fanTab, perfTab] = (await Promise.all([fan, perf].map((u) => openSocket(t.url, { token: u.token })))) as TestSocket[];
    const gone = [nextEvent(fanTab!, 'message/deleted'), nextEvent(perfTab!, 'message/deleted')];
    const badge = nextEvent(fanTab!, 'messages/unread');
    const res = await resolve('message', bad, 'remove');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ targetType: 'message', targetId: bad, outcome: 'removed', resolved: 1 });
    for (const e of await Promise.all(gone)) expect(e).toEqual({ conversationId, messageId: bad });
    expect((await badge).count).toBe(1); // "Earlier answer" is still unread

    expect(await messageRow(bad)).toBeUndefined();
    expect(await t.ctx.db.selectFrom('messageAttachments').select('fileId').where('messageId', '=', bad).execute()).toEqual([]);
    expect(await t.ctx.db.selectFrom('files').select('id').where('id', '=', fileId).executeTakeFirst()).toBeUndefined();
    expect(await t.ctx.storage.stat(key)).toBeNull();
    const earlier = await t.ctx.db.selectFrom('messages').select(['id', 'createdAt']).where('id', '=', ids[1]!).executeTakeFirstOrThrow();
    expect(await conversationRow(conversationId)).toEqual({ lastMessageId: earlier.id, lastMessageAt: earlier.createdAt });
    // Gone for both sides and the admin; the conversation's preview is the message before it.
    for (const who of [fan, perf, admin]) {
      const items = (await t.api(`/messages/conversations/${conversationId}/messages`, { headers: who.headers })).body.items.map((m: { _id: string }) => m._id);
      expect(items).toEqual([ids[1], ids[0]]);
      expect((await t.api(`/messages/${bad}`, { headers: who.headers })).status).toBe(404);
    }
    expect((await t.api('/messages/conversations', { headers: fan.headers })).body.items[0].lastMessage).toMatchObject({ text: 'Earlier answer' });

    const audit = (await t.ctx.db.selectFrom('auditLog').select(['action', 'details', 'actorId']).where('targetId', '=', bad).execute()).sort((a, b) => a.action.localeCompare(b.action));
    expect(audit.map((a) => a.action)).toEqual(['message.delete', 'report.resolve']);
    expect(JSON.parse(audit[0]!.details)).toMatchObject({ conversationId, senderId: perf.id, recipientId: fan.id, text: 'Look at this', attachments: 1, filesDeleted: 1, bought: false });
    const told = (await t.ctx.db.selectFrom('notifications').select('payload').where('userId', '=', fan.id).where('type', '=', 'report').execute()).map((n) => JSON.parse(n.payload));
    expect(told).toEqual([expect.objectContaining({ outcome: 'removed', targetType: 'message', url: `/messages/${conversationId}` })]);
    // Nothing left to resolve.
    expect((await resolve('message', bad, 'dismiss')).status).toBe(404);
  });

  it('removing the only message empties the conversation; a mass message\'s copy keeps the files the other copies show', async () => {
    const fan = await createUser(t.ctx.db, 'user');
    const { conversationId, ids } = await thread(fan, [[fan, 'Only one']]);
    const reporterPerf = perf;
    expect((await report(reporterPerf, ids[0]!)).status).toBe(201);
    expect((await resolve('message', ids[0]!, 'remove')).status).toBe(200);
    expect((await conversationRow(conversationId)).lastMessageId).toBeNull();
    expect((await t.api('/messages/conversations', { headers: fan.headers })).body.items.map((c: { _id: string }) => c._id)).not.toContain(conversationId);

    // Two followers get one mass message with a picture; removing one copy leaves the other's picture.
    const [a, b] = [await createUser(t.ctx.db, 'user'), await createUser(t.ctx.db, 'user')];
    for (const f of [a, b]) expect((await t.api(`/performers/${perf.id}/follow`, { method: 'POST', headers: f.headers })).status).toBe(200);
    const mass = await postForm(t, '/performer/mass-messages', { fields: { text: 'For my followers', audience: 'followers' }, files: [{ name: 'file', filename: 'm.png', data: png, type: 'image/png' }] }, { headers: perf.headers });
    expect(mass.status, JSON.stringify(mass.body)).toBe(201);
    const copies = await waitForCopies(mass.body._id, 2);
    const copyOfA = copies.find((c) => c.recipientId === a.id)!;
    const copyOfB = copies.find((c) => c.recipientId === b.id)!;
    expect((await report(a, copyOfA.id, 'spam')).status).toBe(201);
    expect((await resolve('message', copyOfA.id, 'remove')).status).toBe(200);
    expect(await messageRow(copyOfA.id)).toBeUndefined();
    const seen = await t.api(`/messages/${copyOfB.id}`, { headers: b.headers });
    expect(seen.status).toBe(200);
    expect(seen.body.attachments).toHaveLength(1);
    expect((await fetch(`${t.url}${seen.body.attachments[0].url}`, { headers: b.headers })).status).toBe(200);
  });

  it('"suspend" ends the sender\'s account; "dismiss" keeps the message', async () => {
    const sender = await createUser(t.ctx.db, 'performer', { performer: { messagePolicy: 'fans' } });
    const fan = await createUser(t.ctx.db, 'user');
    const opened = await t.api('/messages/conversations', { method: 'POST', headers: fan.headers, json: { userId: sender.id } });
    await t.api(`/messages/conversations/${opened.body._id}/messages`, { method: 'POST', headers: fan.headers, json: { text: 'Hi' } });
    const rude = await t.api(`/messages/conversations/${opened.body._id}/messages`, { method: 'POST', headers: sender.headers, json: { text: 'Rude' } });
    const fine = await t.api(`/messages/conversations/${opened.body._id}/messages`, { method: 'POST', headers: sender.headers, json: { text: 'Fine' } });
    expect((await report(fan, fine.body._id)).status).toBe(201);
    expect((await resolve('message', fine.body._id, 'dismiss')).body).toMatchObject({ outcome: 'dismissed' });
    expect(await messageRow(fine.body._id)).toBeTruthy();
    expect((await report(fan, rude.body._id)).status).toBe(201);
    expect((await resolve('message', rude.body._id, 'suspend')).body).toMatchObject({ outcome: 'suspended', resolved: 1 });
    expect((await t.ctx.db.selectFrom('users').select('status').where('id', '=', sender.id).executeTakeFirstOrThrow()).status).toBe('suspended');
    expect(await messageRow(rude.body._id)).toBeTruthy();
  });

  const waitForCopies = (massId: string, n: number) =>
    waitFor(async () => {
      const rows = await t.ctx.db.selectFrom('messages').select(['id', 'recipientId']).where('massMessageId', '=', massId).execute();
      return rows.length >= n ? rows : null;
    }, 'the mass message to be delivered');
});
