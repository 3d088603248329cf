import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildCatalogue, type Catalogue } from '../helpers/catalogue-fixture.js';
import type { TestUser } from '../helpers/sessions.js';

/**
 * `GET /users/me/header?performer=`: what a performer's page shows the signed-in visitor about themselves, asked with
 * the header because the page is the same for every member (docs/architecture.md, the member shell). Each visitor
 * gets their own state and nobody else's; a performer whose page they may not see is null, as the page is 404.
 */
describe.each(engines)("the member header with a performer page's state on %s", (engine) => {
  let t: TestApp;
  let c: Catalogue;

  beforeAll(async () => {
    t = await startTestApp(engine);
    c = await buildCatalogue(t.ctx);
    // A week's free trial for new subscribers: a lapsed subscriber is not new.
    await t.ctx.db.updateTable('performers').set({ trialDays: 7 }).where('id', '=', c.alice.id).execute();
  });
  afterAll(() => t?.close());

  const header = (who: TestUser | null, key: string) => t.api(`/users/me/header?performer=${encodeURIComponent(key)}`, { headers: who?.headers ?? {} });
  const viewer = async (who: TestUser, key: string) => {
    const res = await header(who, key);
    expect(res.status).toBe(200);
    return { ...res, body: res.body.performer };
  };

  it('answers each signed-in visitor with their own follow, subscription, offer and messaging, never cached', async () => {
    const fan = await viewer(c.fan, c.alice.id);
    expect(fan.headers.get('cache-control')).toBe('private, no-store');
    expect(fan.body).toMatchObject({ performerId: c.alice.id, self: false, following: false, subscribed: false, offer: { monthly: 999 } });
    expect(fan.body.messaging).toMatchObject({ conversationId: null });
    // A new fan's first month is the trial; the lapsed subscriber pays from the first day.
    const monthly = (body: { offer: { plans: Array<{ type: string; bundleMonths: number | null; firstPrice: number; trialDays: number | null }> } }) =>
      body.offer.plans.find((p) => p.type === 'monthly' && p.bundleMonths === null);
    expect(monthly(fan.body)).toMatchObject({ firstPrice: 0, trialDays: 7 });
    expect(monthly((await viewer(c.lapsed, c.alice.id)).body)).toMatchObject({ firstPrice: 999, trialDays: null });
    expect((await viewer(c.subscriber, 'alice')).body).toMatchObject({ performerId: c.alice.id, subscribed: true });
    // Alice lets subscribers write first: her subscriber may, the fan is told why not, and both are read as the
    // sending route reads them.
    expect((await viewer(c.subscriber, c.alice.id)).body.messaging).toEqual({ allowed: true, reason: null, conversationId: null });
    expect((await viewer(c.fan, c.alice.id)).body.messaging).toMatchObject({ allowed: false, reason: expect.stringContaining('subscribers') });
    expect((await t.api('/messages/conversations', { method: 'POST', headers: c.subscriber.headers, json: { userId: c.alice.id } })).status).toBe(200);

    // Following shows at once, to the follower only.
    expect((await t.api(`/performers/${c.alice.id}/follow`, { method: 'POST', headers: c.fan.headers })).status).toBe(200);
    expect((await viewer(c.fan, c.alice.id)).body).toMatchObject({ following: true, followerCount: 1 });
    expect((await viewer(c.buyer, c.alice.id)).body).toMatchObject({ following: false, followerCount: 1 });
  });

  it('gives the performer their own page without controls, and performers and admins no Message button', async () => {
    expect((await viewer(c.alice, c.alice.id)).body).toMatchObject({ self: true, messaging: null });
    expect((await viewer(c.bob, c.alice.id)).body).toMatchObject({ self: false, messaging: null });
    expect((await viewer(c.admin, c.alice.id)).body).toMatchObject({ self: false, messaging: null, subscribed: false });
  });

  it('finds a performer only where their page opens, and asks for a session', async () => {
    // Carol is inactive: her own page and an admin's open, a fan's is none of theirs, like an unknown performer's.
    expect((await viewer(c.carol, c.carol.id)).body).toMatchObject({ self: true });
    expect((await viewer(c.admin, 'carol')).body).toMatchObject({ performerId: c.carol.id });
    expect((await viewer(c.fan, c.carol.id)).body).toBe(null);
    expect((await viewer(c.fan, 'nobody-here')).body).toBe(null);
    // The header alone says nothing of any performer; a key that is no id or username is refused.
    const plain = await t.api('/users/me/header', { headers: c.fan.headers });
    expect(plain.status).toBe(200);
    expect(plain.body).not.toHaveProperty('performer');
    const bad = await header(c.fan, '../users/me');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ message: expect.any(String), code: expect.any(String) });
    const guest = await header(null, c.alice.id);
    expect(guest.status).toBe(401);
    expect(guest.body).toMatchObject({ message: expect.any(String), code: expect.any(String) });
  });
});
