import http from 'node:http';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, startTestApp, type TestApp } from '../helpers/test-app.js';
import { buildMoneyWorld, payWithSandbox, type MoneyWorld } from '../helpers/money-fixture.js';
import { makeGallery } from '../../server/seed/factories.js';
import { createUser, type TestUser } from '../helpers/sessions.js';
import { subscriptionOffer } from '../../server/subscriptions/subscriptions.service.js';

/**
 * Where a checkout sends the buyer's browser (the provider's page, then back to our result page), and what the paywall
 * sells: the prices it shows are the prices charged, and a gallery for sale can be bought.
 *
 * The Host header is written by the client, so each case sends its own Host (and X-Forwarded-*) over a raw HTTP
 * request to the real server: PUBLIC_URL always wins; without it, only a host naming this machine is used.
 */

interface Raw {
  status: number;
  body: any;
}

/** POST over node:http with exactly these headers (fetch would not let a test choose the Host header). */
function rawPost(t: TestApp, path: string, who: TestUser, json: unknown, headers: Record<string, string> = {}): Promise<Raw> {
  const url = new URL(`${t.config.apiBase}${path}`, t.url);
  const payload = JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...who.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** This machine's first non-loopback IPv4 address, if it has one (a phone on the LAN would use it). */
function lanAddress(): string | null {
  for (const list of Object.values(os.networkInterfaces())) for (const i of list ?? []) if (i.family === 'IPv4' && !i.internal) return i.address;
  return null;
}

const portOf = (t: TestApp) => new URL(t.url).port;

async function returnUrlOf(t: TestApp, paymentId: string): Promise<string> {
  return (await t.ctx.db.selectFrom('sandboxCharges').select('returnUrl').where('paymentId', '=', paymentId).executeTakeFirstOrThrow()).returnUrl;
}

/** The origins a checkout answered: the provider's page and the stored return address. */
async function origins(t: TestApp, res: Raw): Promise<{ page: string; back: string }> {
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { page: new URL(res.body.redirectUrl).origin, back: new URL(await returnUrlOf(t, res.body.paymentId)).origin };
}

describe.each(engines)('checkout return addresses without PUBLIC_URL on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  let port = '';
  const buyers: TestUser[] = [];
  // Each checkout needs a buyer without a pending one of the same kind: a fresh fan per call.
  const fresh = async () => {
    const u = await createUser(t.ctx.db, 'user');
    buyers.push(u);
    return u;
  };
  const subscribe = async (headers: Record<string, string>) => rawPost(t, '/payment/subscribe', await fresh(), { performerId: w.perf.id, type: 'monthly' }, headers);

  beforeAll(async () => {
    t = await startTestApp(engine);
    w = await buildMoneyWorld(t.ctx);
    port = portOf(t);
    // What an unset PUBLIC_URL gives on a bare machine: a guess that names another host than the one the fan uses.
    expect(t.config.publicUrlConfigured).toBe(false);
    t.ctx.config.publicUrl = `http://localhost:${port}`;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a fan on 127.0.0.1 is sent to the sandbox page on 127.0.0.1 and back to 127.0.0.1, paid or cancelled', async () => {
    const res = await subscribe({ host: `127.0.0.1:${port}` });
    expect(await origins(t, res)).toEqual({ page: `http://127.0.0.1:${port}`, back: `http://127.0.0.1:${port}` });
    expect(await returnUrlOf(t, res.body.paymentId)).toBe(`http://127.0.0.1:${port}/payments/result/${res.body.paymentId}`);
    const buyer = buyers.at(-1)!;
    const paid = await payWithSandbox(t, buyer, res.body.redirectUrl);
    expect(paid.status).toBe(200);
    expect(paid.body.redirectUrl).toBe(`http://127.0.0.1:${port}/payments/result/${res.body.paymentId}`);

    const other = await subscribe({ host: `127.0.0.1:${port}` });
    const cancelled = await payWithSandbox(t, buyers.at(-1)!, other.body.redirectUrl, 'cancel');
    expect(cancelled.body.redirectUrl).toBe(`http://127.0.0.1:${port}/payments/result/${other.body.paymentId}?cancelled=1`);
  });

  it('other names of this machine are kept: localhost, [::1], the configured host, a LAN address of this machine', async () => {
    expect(await origins(t, await subscribe({ host: `localhost:${port}` }))).toEqual({ page: `http://localhost:${port}`, back: `http://localhost:${port}` });
    expect((await origins(t, await subscribe({ host: `[::1]:${port}` }))).back).toBe(`http://[::1]:${port}`);
    expect((await origins(t, await subscribe({ host: `127.0.0.2:${port}` }))).back).toBe(`http://127.0.0.2:${port}`);
    const lan = lanAddress();
    if (lan) expect((await origins(t, await subscribe({ host: `${lan}:${port}` }))).back).toBe(`http://${lan}:${port}`);
  });

  it('a hostile Host is never used: the configured address instead', async () => {
    const configured = `http://localhost:${port}`;
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1.evil.example:${port}`, `127.0.0.1@evil.example`, 'evil.example/127.0.0.1', '10.255.255.1', `[::2]:${port}`, 'localhost:99999']) {
      const res = await subscribe({ host });
      expect(await origins(t, res), host).toEqual({ page: configured, back: configured });
    }
    // Without TRUST_PROXY, forwarded headers are the client's words: ignored.
    const forwarded = await subscribe({ host: `127.0.0.1:${port}`, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
    expect(await origins(t, forwarded)).toEqual({ page: `http://127.0.0.1:${port}`, back: `http://127.0.0.1:${port}` });
  });

  it('video, gallery and cart checkouts use the same address', async () => {
    const host = { host: `127.0.0.1:${port}` };
    const gallery = await makeGallery(t.ctx, w.perf.id, { access: 'sale', price: 1250 });
    const video = await rawPost(t, `/payment/purchase-video/${w.videos.saleVideo.id}`, await fresh(), {}, host);
    const bought = await rawPost(t, `/payment/purchase-gallery/${gallery.id}`, await fresh(), {}, host);
    const cart = await rawPost(t, '/payment/purchase-products', await fresh(), { items: [{ productId: w.products.ebook.id, quantity: 1 }] }, host);
    for (const res of [video, bought, cart]) expect(await origins(t, res)).toEqual({ page: `http://127.0.0.1:${port}`, back: `http://127.0.0.1:${port}` });
  });
});

describe.each(engines)('checkout return addresses behind a trusted proxy, without PUBLIC_URL, on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  let port = '';
  const subscribe = async (headers: Record<string, string>) => rawPost(t, '/payment/subscribe', await createUser(t.ctx.db, 'user'), { performerId: w.perf.id, type: 'monthly' }, headers);

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { TRUST_PROXY: '127.0.0.1' } });
    w = await buildMoneyWorld(t.ctx);
    port = portOf(t);
    t.ctx.config.publicUrl = `http://localhost:${port}`;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("the proxy's forwarded host and scheme are used when they name this machine, never another site", async () => {
    const viaProxy = await subscribe({ host: `127.0.0.1:${port}`, 'x-forwarded-host': '127.0.0.1:8443', 'x-forwarded-proto': 'https' });
    expect(await origins(t, viaProxy)).toEqual({ page: 'https://127.0.0.1:8443', back: 'https://127.0.0.1:8443' });
    const hostile = await subscribe({ host: `127.0.0.1:${port}`, 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' });
    expect(await origins(t, hostile)).toEqual({ page: `http://localhost:${port}`, back: `http://localhost:${port}` });
  });
});

describe.each(engines)('checkout return addresses with PUBLIC_URL on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  const site = 'https://fans.example';
  const subscribe = async (headers: Record<string, string>) => rawPost(t, '/payment/subscribe', await createUser(t.ctx.db, 'user'), { performerId: w.perf.id, type: 'monthly' }, headers);

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { PUBLIC_URL: `${site}/`, TRUST_PROXY: '127.0.0.1' } });
    w = await buildMoneyWorld(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('always wins: the real Host, a forged Host and a forwarded host all get PUBLIC_URL', async () => {
    expect(t.config.publicUrlConfigured).toBe(true);
    const port = portOf(t);
    const cases: Array<Record<string, string>> = [
      { host: `127.0.0.1:${port}` },
      { host: 'evil.example' },
      { host: `localhost:${port}`, 'x-forwarded-host': '127.0.0.1:8443', 'x-forwarded-proto': 'http' },
    ];
    for (const headers of cases) {
      const res = await subscribe(headers);
      expect(await origins(t, res), JSON.stringify(headers)).toEqual({ page: site, back: site });
      expect(await returnUrlOf(t, res.body.paymentId)).toBe(`${site}/payments/result/${res.body.paymentId}`);
    }
  });
});

describe.each(engines)('what the paywall sells on %s', (engine) => {
  let t: TestApp;
  let w: MoneyWorld;
  const post = (path: string, who: TestUser, json: unknown = {}) => t.api(path, { method: 'POST', headers: who.headers, json });

  beforeAll(async () => {
    t = await startTestApp(engine);
    w = await buildMoneyWorld(t.ctx);
  });
  afterAll(async () => {
    await t?.close();
  });

  it("offers the performer's own prices, else the site's package, and charges exactly what it offers", async () => {
    // The list prices, and each plan as the checkout charges it (no offers here: the first price is the price).
    const plans = (o: Awaited<ReturnType<typeof subscriptionOffer>>) => o.plans.map((p) => [p.type, p.bundleMonths, p.price, p.firstPrice, p.periodDays]);
    const mona = await subscriptionOffer(t.ctx.db, w.perf.id);
    expect({ monthly: mona.monthly, yearly: mona.yearly }).toEqual({ monthly: 1000, yearly: 9000 });
    expect(plans(mona)).toEqual([['monthly', null, 1000, 1000, 30], ['yearly', null, 9000, 9000, 365]]);
    // Otto has no yearly price of his own: the site's yearly package applies, as at checkout.
    const otto = await subscriptionOffer(t.ctx.db, w.perf2.id);
    expect({ monthly: otto.monthly, yearly: otto.yearly }).toEqual({ monthly: 500, yearly: 9999 });
    for (const [performer, type, offered] of [[w.perf, 'monthly', 1000], [w.perf, 'yearly', 9000], [w.perf2, 'yearly', 9999]] as const) {
      const res = await post('/payment/subscribe', await createUser(t.ctx.db, 'user'), { performerId: performer.id, type });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body.amount).toBe(offered);
    }
    // Without any price (no own price, no active package) nothing is offered, and nothing can be bought.
    await t.ctx.db.updateTable('subscriptionPackages').set({ status: 'inactive' }).execute();
    const bare = await createUser(t.ctx.db, 'performer', { performer: { monthlyPrice: 0, yearlyPrice: 0 } });
    expect(await subscriptionOffer(t.ctx.db, bare.id)).toEqual({ monthly: null, yearly: null, plans: [] });
    expect((await post('/payment/subscribe', w.fan, { performerId: bare.id, type: 'monthly' })).body.code).toBe('NOT_FOR_SALE');
    expect(await subscriptionOffer(t.ctx.db, 'no-such-performer')).toEqual({ monthly: null, yearly: null, plans: [] });
  });

  it('sells a gallery for sale: paid, its photos open for the buyer; refusals are clear 4xx and write nothing', async () => {
    const gallery = await makeGallery(t.ctx, w.perf.id, { access: 'sale', price: 1299 });
    const members = await makeGallery(t.ctx, w.perf.id, { access: 'subscribers' });
    const view = async (who: TestUser) => (await t.api(`/user/assets/galleries/${gallery.id}/view`, { headers: who.headers })).body;
    expect((await view(w.fan)).locked).toBe(true);
    const payments = async () => Number((await t.ctx.db.selectFrom('payments').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

    const before = await payments();
    expect((await post(`/payment/purchase-gallery/${members.id}`, w.fan)).body.code).toBe('NOT_FOR_SALE');
    const own = await post(`/payment/purchase-gallery/${gallery.id}`, w.perf);
    expect([own.status, own.body.message]).toEqual([400, 'You cannot buy your own gallery']);
    expect((await post('/payment/purchase-gallery/no-such-gallery', w.fan)).status).toBe(404);
    expect((await t.api(`/payment/purchase-gallery/${gallery.id}`, { method: 'POST', json: {} })).status).toBe(401);
    expect(await payments()).toBe(before);

    const res = await post(`/payment/purchase-gallery/${gallery.id}`, w.fan, { couponCode: 'WELCOME10' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', originalPrice: 1299, discount: 129, amount: 1170 });
    const row = await t.ctx.db.selectFrom('payments').select(['type', 'targetId']).where('id', '=', res.body.paymentId).executeTakeFirstOrThrow();
    expect(row).toEqual({ type: 'gallery', targetId: gallery.id });
    expect((await payWithSandbox(t, w.fan, res.body.redirectUrl)).body.status).toBe('paid');
    expect((await view(w.fan)).locked).toBe(false);
    expect((await view(w.fan2)).locked).toBe(true);
    const again = await post(`/payment/purchase-gallery/${gallery.id}`, w.fan);
    expect([again.status, again.body.code]).toEqual([409, 'ALREADY_PURCHASED']);
  });
});
