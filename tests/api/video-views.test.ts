import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { makeVideo, subscribe } from '../../server/seed/factories.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { countViews } from '../../server/videos/views.repository.js';
import { recordVideoView, VIEW_REPEAT_MS } from '../../server/videos/views.service.js';

/**
 * Views are plays, counted as rows (migration 0013, server/videos/views.service.ts): the number a video page shows
 * is the number of `video_views` rows, moved in the transaction that writes the row. Who counts: whoever may watch the
 * full video, once per hour, never its performer or an admin; a guest is told apart by their IP (TRUST_PROXY=1 here, so
 * X-Forwarded-For plays several guests).
 */

describe.each(engines)('video views on %s', (engine) => {
  let t: TestApp;
  let perf: TestUser;
  let fan: TestUser;
  let admin: TestUser;
  let free: { id: string };
  let members: { id: string };

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { TRUST_PROXY: '1' } });
    const ctx = { db: t.ctx.db, storage: t.ctx.storage };
    perf = await createUser(t.ctx.db, 'performer');
    fan = await createUser(t.ctx.db, 'user');
    admin = await createUser(t.ctx.db, 'admin');
    free = await makeVideo(ctx, perf.id, { title: 'Free to watch', access: 'free' });
    members = await makeVideo(ctx, perf.id, { title: 'Members only', access: 'subscribers' });
  });
  afterAll(async () => {
    await t?.close();
  });

  const play = (id: string, o: { user?: TestUser; ip?: string } = {}) =>
    t.api(`/user/assets/videos/${id}/views`, { method: 'POST', headers: { ...(o.user?.headers ?? {}), 'x-forwarded-for': o.ip ?? '198.51.100.1' } });
  const counters = async (videoId: string) => {
    const video = await t.ctx.db.selectFrom('videos').select('viewCount').where('id', '=', videoId).executeTakeFirstOrThrow();
    const performer = await t.ctx.db.selectFrom('performers').select('viewCount').where('id', '=', perf.id).executeTakeFirstOrThrow();
    const performerRows = await t.ctx.db.selectFrom('videoViews').select((eb) => eb.fn.countAll<number>().as('n')).where('performerId', '=', perf.id).executeTakeFirstOrThrow();
    return { video: Number(video.viewCount), rows: await countViews(t.ctx.db, videoId), performer: Number(performer.viewCount), performerRows: Number(performerRows.n) };
  };

  it('a play counts once per viewer and hour: guests by IP, users by account; the counters are the rows', async () => {
    const before = await counters(free.id);
    expect(before).toEqual({ video: 0, rows: 0, performer: 0, performerRows: 0 });

    const first = await play(free.id, { ip: '198.51.100.7' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ counted: true, views: 1 });
    // The same guest playing again (a reload) is not a new view.
    expect((await play(free.id, { ip: '198.51.100.7' })).body).toEqual({ counted: false, views: 1 });
    // Another guest is.
    expect((await play(free.id, { ip: '203.0.113.9' })).body).toEqual({ counted: true, views: 2 });
    // A signed-in fan counts once, whatever address they come from.
    expect((await play(free.id, { user: fan, ip: '198.51.100.7' })).body).toEqual({ counted: true, views: 3 });
    expect((await play(free.id, { user: fan, ip: '192.0.2.44' })).body).toEqual({ counted: false, views: 3 });

    expect(await counters(free.id)).toEqual({ video: 3, rows: 3, performer: 3, performerRows: 3 });
    // The guest's address is not stored, only a keyed hash of it.
    const viewers = (await t.ctx.db.selectFrom('videoViews').select('viewer').where('videoId', '=', free.id).execute()).map((r) => r.viewer);
    expect(viewers).toContain(`u:${fan.id}`);
    expect(viewers.join(' ')).not.toContain('198.51.100.7');
    expect(viewers.filter((v) => v.startsWith('g:'))).toHaveLength(2);
  });

  it('the performer and admins are not the audience: their plays are not counted', async () => {
    const before = await counters(free.id);
    expect((await play(free.id, { user: perf })).body).toEqual({ counted: false, views: before.video });
    expect((await play(free.id, { user: admin })).body).toEqual({ counted: false, views: before.video });
    expect(await counters(free.id)).toEqual(before);
  });

  it('a locked video counts only for those who may watch it; unknown videos are 404; nothing is written on a refusal', async () => {
    const locked = await play(members.id, { user: fan });
    expect(locked.status).toBe(403);
    expect(locked.body.code).toBe('LOCKED');
    expect((await play(members.id, { ip: '198.51.100.200' })).status).toBe(403);
    expect((await play('no-such-video')).status).toBe(404);
    expect(await counters(members.id)).toMatchObject({ video: 0, rows: 0 });

    await subscribe(t.ctx.db, fan.id, perf.id);
    expect((await play(members.id, { user: fan })).body).toEqual({ counted: true, views: 1 });
    expect(await counters(members.id)).toMatchObject({ video: 1, rows: 1 });
  });

  it('after the hour the same viewer counts again', async () => {
    const later = new Date(Date.now() + VIEW_REPEAT_MS + 60_000);
    const before = await counters(free.id);
    const again = await recordVideoView({ db: t.ctx.db, appSecret: t.config.appSecret }, { id: fan.id, role: 'user' }, free.id, { country: null, ip: '192.0.2.1' }, later);
    expect(again).toEqual({ counted: true, views: before.video + 1 });
    expect(await counters(free.id)).toMatchObject({ video: before.video + 1, rows: before.rows + 1 });
  });

  it('concurrent plays by different fans: counter = rows', async () => {
    const video = await makeVideo({ db: t.ctx.db, storage: t.ctx.storage }, perf.id, { title: 'Busy', access: 'free' });
    const fans = await Promise.all(Array.from({ length: 20 }, () => createUser(t.ctx.db, 'user')));
    const answers = await Promise.all(fans.map((f, i) => play(video.id, { user: f, ip: `198.51.100.${i + 10}` })));
    expect(answers.map((a) => a.status)).toEqual(fans.map(() => 200));
    expect(await counters(video.id)).toMatchObject({ video: 20, rows: 20 });
    const after = await counters(video.id);
    expect(after.performer).toBe(after.performerRows);
  });
});
