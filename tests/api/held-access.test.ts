import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { createUser } from '../helpers/sessions.js';
import { entitle, subscribe } from '../../server/seed/factories.js';
import { heldAccess } from '../../server/access/access.repository.js';
import { nowIso } from '../../server/db/ids.js';

/**
 * What a visitor holds for a page of items, read in one statement (server/access/access.repository.ts): live
 * subscriptions among the page's performers and live entitlements among its items, of several kinds at once; a
 * lapsed subscription, a revoked purchase and anyone else's hold nothing.
 */
describe.each(engines)('held access on %s', (engine) => {
  let t: TestApp;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await startTestApp(engine);
    const db = t.ctx.db;
    for (const name of ['fan', 'other']) ids[name] = (await createUser(db, 'user')).id;
    for (const name of ['alice', 'bob', 'carol']) ids[name] = (await createUser(db, 'performer')).id;
    const past = new Date(Date.now() - 86_400_000).toISOString();
    await subscribe(db, ids.fan!, ids.alice!);
    await subscribe(db, ids.fan!, ids.bob!, { expiresAt: past });
    await subscribe(db, ids.other!, ids.carol!);
    await entitle(db, ids.fan!, 'video', 'v-bought');
    await entitle(db, ids.fan!, 'gallery', 'g-bought');
    await entitle(db, ids.fan!, 'video', 'v-refunded', { revokedAt: nowIso() });
    await entitle(db, ids.other!, 'product', 'p-theirs');
  });
  afterAll(() => t?.close());

  it('answers subscriptions and purchases of every kind from one statement', async () => {
    const held = await heldAccess(t.ctx.db, ids.fan!, {
      performerIds: [ids.alice!, ids.bob!, ids.carol!, ids.alice!],
      objects: [
        { objectType: 'video', objectId: 'v-bought' },
        { objectType: 'video', objectId: 'v-refunded' },
        { objectType: 'gallery', objectId: 'g-bought' },
        { objectType: 'gallery', objectId: 'v-bought' },
        { objectType: 'product', objectId: 'p-theirs' },
      ],
    }, nowIso());
    expect(held.subscribed).toEqual(new Set([ids.alice]));
    expect(held.purchased).toEqual(new Set(['video:v-bought', 'gallery:g-bought']));
  });

  it('asks one kind alone, and nothing for nothing', async () => {
    expect(await heldAccess(t.ctx.db, ids.fan!, { performerIds: [], objects: [{ objectType: 'gallery', objectId: 'g-bought' }] }, nowIso()))
      .toEqual({ subscribed: new Set(), purchased: new Set(['gallery:g-bought']) });
    expect(await heldAccess(t.ctx.db, ids.other!, { performerIds: [ids.carol!], objects: [] }, nowIso()))
      .toEqual({ subscribed: new Set([ids.carol]), purchased: new Set() });
    expect(await heldAccess(t.ctx.db, ids.fan!, { performerIds: [], objects: [] }, nowIso())).toEqual({ subscribed: new Set(), purchased: new Set() });
  });
});
