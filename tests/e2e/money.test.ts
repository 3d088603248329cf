import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { hasChromium, saveScreen, useBrowser, waitForIsland, waitForPerformerControls, waitForVideoControls } from '../helpers/browser.js';
import { buildMoneyWorld, ledger, payWithSandbox, type MoneyWorld } from '../helpers/money-fixture.js';

/**
 * The money journey in chromium: a fan subscribes through the sandbox payment page and the locked video opens;
 * buys a product with a coupon through the cart and sees the order; the performer sees the earning and ships it;
 * a digital product, once bought, downloads from the order and product pages (and shows no button to others).
 */
describe.skipIf(!hasChromium)('money journey in chromium', () => {
  let t: TestApp;
  let w: MoneyWorld;
  const chromium = useBrowser(() => t.url);
  let fanContext: BrowserContext;
  let page: Page;

  const hydrated = waitForIsland;


  beforeAll(async () => {
    t = await startTestApp('sqlite', { web: true });
    w = await buildMoneyWorld(t.ctx);
    fanContext = await chromium.context({ as: w.fan });
    page = await fanContext.newPage();
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('subscribes through the sandbox page, and the locked video opens', async () => {
    await page.goto(`${t.url}/videos/${w.videos.subsVideo.id}`);
    await waitForVideoControls(page);
    expect(await page.getByTestId('lock-box').count()).toBe(1);

    await page.goto(`${t.url}/performers/${w.perf.username}`);
    await waitForPerformerControls(page);
    await saveScreen(page, 'performer-profile', { fullPage: true });
    expect(await page.getByTestId('subscribe-monthly').textContent()).toContain('$10.00');
    await page.getByTestId('subscribe-monthly').click();
    await page.waitForURL('**/payments/sandbox/**');
    expect(await page.getByTestId('sandbox-amount').textContent()).toBe('$10.00');
    await hydrated(page, 'SandboxPay');
    await saveScreen(page, 'money-sandbox');
    await page.getByTestId('sandbox-approve').click();
    await page.waitForURL('**/payments/result/**');
    await expect.poll(() => page.getByTestId('payment-result').getAttribute('data-status')).toBe('success');

    await page.goto(`${t.url}/videos/${w.videos.subsVideo.id}`);
    await waitForVideoControls(page);
    expect(await page.getByTestId('lock-box').count()).toBe(0);
    await saveScreen(page, 'video-unlocked', { fullPage: true });
    const video = await page.request.get(`${t.url}/api/user/assets/videos/${w.videos.subsVideo.id}`);
    expect((await video.json()).locked).toBe(false);

    await page.goto(`${t.url}/account/subscriptions`);
    await hydrated(page, 'SubscriptionsList');
    expect(await page.getByTestId('subscription-row').getAttribute('data-live')).toBe('true');
    await saveScreen(page, 'account-subscriptions', { fullPage: true });
  }, 60_000);

  it('buys a product with a coupon through the cart and sees the order', async () => {
    await page.goto(`${t.url}/products/${w.products.mug.id}`);
    await hydrated(page, 'AddToCartButton');
    await saveScreen(page, 'product', { fullPage: true });
    await page.getByTestId('add-to-cart').click();
    await expect.poll(() => page.getByTestId('in-cart').count()).toBe(1);
    expect(await page.evaluate(() => JSON.parse(localStorage.getItem('cart') ?? 'null'))).toMatchObject({ total: 1, items: [{ _id: expect.any(String), quantity: 1 }] });

    await page.goto(`${t.url}/cart`);
    await hydrated(page, 'Cart');
    await expect.poll(() => page.getByTestId('cart-subtotal').textContent()).toBe('$15.00');
    await saveScreen(page, 'cart', { fullPage: true });
    await page.getByTestId('cart-quantity').fill('2');
    await expect.poll(() => page.getByTestId('cart-subtotal').textContent()).toBe('$30.00');
    expect(await page.getByTestId('cart-count').textContent()).toContain('2 items');
    await page.getByTestId('cart-checkout').click();

    await page.waitForURL('**/checkout');
    await hydrated(page, 'Checkout');
    await expect.poll(() => page.getByTestId('checkout-total').textContent()).toBe('$30.00');
    // The browser logs the answer to the code typed wrong on purpose (404).
    chromium.expectErrors('/api/coupons/NOPE/apply-coupon');
    await page.getByTestId('coupon-code').fill('NOPE');
    await page.getByTestId('coupon-apply').click();
    await expect.poll(() => page.locator('[data-testid="checkout-form"] [role="alert"]').count()).toBeGreaterThan(0);
    await page.getByTestId('coupon-code').fill('WELCOME10');
    await page.getByTestId('coupon-apply').click();
    await expect.poll(() => page.getByTestId('checkout-total').textContent()).toBe('$27.00');
    await page.getByTestId('shipping-address').fill('7 Journey Road, Testville 12345');
    await saveScreen(page, 'checkout', { fullPage: true });
    await page.getByTestId('checkout-submit').click();

    await page.waitForURL('**/payments/sandbox/**');
    expect(await page.getByTestId('sandbox-amount').textContent()).toBe('$27.00');
    await hydrated(page, 'SandboxPay');
    await page.getByTestId('sandbox-approve').click();
    await page.waitForURL('**/payments/result/**');
    await expect.poll(() => page.getByTestId('payment-result').getAttribute('data-status')).toBe('success');
    // Paid: the cart is emptied.
    await expect.poll(() => page.evaluate(() => JSON.parse(localStorage.getItem('cart') ?? 'null')?.total)).toBe(0);

    await page.getByTestId('payment-next').click();
    await page.waitForURL('**/account/orders');
    expect(await page.getByTestId('order-row').count()).toBe(1);
    expect(await page.getByTestId('order-status').textContent()).toBe('paid');
    await page.getByTestId('order-link').click();
    await page.waitForURL('**/account/orders/**');
    expect(await page.getByTestId('order-total').textContent()).toBe('$27.00');
    expect(await page.getByTestId('order-item').count()).toBe(1);
    await saveScreen(page, 'account-order', { fullPage: true });
    const stock = await t.ctx.db.selectFrom('products').select('stock').where('id', '=', w.products.mug.id).executeTakeFirstOrThrow();
    expect(stock.stock).toBe(3);

    await page.goto(`${t.url}/account/transactions`);
    expect(await page.getByTestId('transaction-row').count()).toBe(2);
    await saveScreen(page, 'account-transactions', { fullPage: true });
  }, 60_000);

  it('the performer sees the earnings and ships the order', async () => {
    const context = await chromium.context({ as: w.perf });
    const studio = await context.newPage();
    await studio.goto(`${t.url}/studio/earnings`);
    // Subscription 1000 and mug 2700 at the site's 20 %: 800 + 2160 net.
    expect(await studio.getByTestId('earning-net').textContent()).toBe('$29.60');
    expect(await studio.getByTestId('earning-gross').textContent()).toBe('$37.00');
    expect(await studio.getByTestId('earning-row').count()).toBe(2);
    expect(await studio.locator('[data-testid="earning-chart"] rect').count()).toBe(1);
    await saveScreen(studio, 'money-earnings', { fullPage: true });

    await studio.goto(`${t.url}/studio/orders`);
    await hydrated(studio, 'OrderDelivery');
    await saveScreen(studio, 'studio-orders', { fullPage: true });
    await studio.getByTestId('delivery-status').selectOption('shipping');
    await studio.getByTestId('tracking-code').fill('TRACK-42');
    await studio.getByTestId('delivery-save').click();
    await expect.poll(() => studio.getByTestId('toast').count()).toBeGreaterThan(0);
    await context.close();

    const order = await t.ctx.db.selectFrom('orders').select('id').where('buyerId', '=', w.fan.id).executeTakeFirstOrThrow();
    await page.goto(`${t.url}/account/orders/${order.id}`);
    expect(await page.getByTestId('order-delivery').textContent()).toBe('shipping');
    expect(await page.getByTestId('order-tracking').textContent()).toBe('TRACK-42');

    const l = await ledger(t.ctx.db);
    expect(l.paid).toBe(3700);
    expect(l.net + l.commission).toBe(3700);
  }, 60_000);

  it('downloads a bought digital product from the order and product pages; others see no button', async () => {
    const other = await chromium.context({ as: w.fan2 });
    const otherPage = await other.newPage();
    await otherPage.goto(`${t.url}/products/${w.products.ebook.id}`);
    expect(await otherPage.getByTestId('product-download').count()).toBe(0);
    expect(await otherPage.getByTestId('add-to-cart').count()).toBe(1);
    await other.close();

    const bought = await t.api('/payment/purchase-products', { method: 'POST', headers: w.fan.headers, json: { items: [{ _id: w.products.ebook.id, quantity: 1 }] } });
    expect(bought.status).toBe(201);
    expect((await payWithSandbox(t, w.fan, bought.body.redirectUrl)).status).toBe(200);

    const orderId = bought.body.orderIds[0] as string;
    await page.goto(`${t.url}/account/orders/${orderId}`);
    await hydrated(page, 'DownloadButton');
    const [fromOrder] = await Promise.all([page.waitForEvent('download'), page.getByTestId('order-download').click()]);
    expect(fromOrder.suggestedFilename()).toMatch(/\.pdf$/);
    expect(new URL(fromOrder.url()).pathname).toMatch(new RegExp(`^/media/protected/product/${w.products.ebook.id}/`));
    await fromOrder.path();
    // The page stayed where it was: no JSON on screen.
    expect(new URL(page.url()).pathname).toBe(`/account/orders/${orderId}`);

    await page.goto(`${t.url}/products/${w.products.ebook.id}`);
    expect(await page.getByTestId('product-owned').count()).toBe(1);
    await hydrated(page, 'DownloadButton');
    await saveScreen(page, 'product-download', { fullPage: true });
    const [fromProduct] = await Promise.all([page.waitForEvent('download'), page.getByTestId('product-download').click()]);
    expect(fromProduct.suggestedFilename()).toMatch(/\.pdf$/);
  }, 60_000);

  it('the admin gives back part of a payment from the console; the buyer keeps the video and sees the refund', async () => {
    const bought = await t.api(`/payment/purchase-video/${w.videos.saleVideo.id}`, { method: 'POST', headers: w.fan2.headers, json: {} });
    expect(bought.status).toBe(201);
    expect((await payWithSandbox(t, w.fan2, bought.body.redirectUrl)).status).toBe(200);
    const paymentId = bought.body.paymentId as string;

    const desk = await (await chromium.context({ as: w.admin })).newPage();
    await desk.goto(`${t.url}/admin/payments?q=${paymentId}`);
    const row = desk.getByTestId(`payment-row-${paymentId}`);
    await row.getByText('Refund part', { exact: true }).click();
    const form = row.getByTestId('payment-refund-part');
    await waitForIsland(desk, 'AdminForm');
    // More than was paid is refused in the browser, with the bound in words.
    await form.getByLabel('Amount to give back').fill('13.00');
    await form.getByTestId('payment-refund-part-submit').click();
    await expect.poll(() => form.getByRole('alert').first().textContent()).toBe('The amount must be at most $12.98');
    await form.getByLabel('Amount to give back').fill('3.00');
    await Promise.all([desk.waitForEvent('load'), form.getByTestId('payment-refund-part-submit').click()]);
    expect(await desk.getByTestId(`payment-row-${paymentId}`).getByTestId('payment-refunded').textContent()).toContain('$3.00 refunded');
    await saveScreen(desk, 'admin-partial-refund', { fullPage: true });
    await desk.context().close();

    const fan = await (await chromium.context({ as: w.fan2 })).newPage();
    await fan.goto(`${t.url}/account/transactions`);
    expect(await fan.getByTestId('transaction-refunded').first().textContent()).toContain('$3.00 refunded');
    await fan.goto(`${t.url}/videos/${w.videos.saleVideo.id}`);
    await waitForVideoControls(fan);
    expect(await fan.getByTestId('lock-box').count()).toBe(0);
    const l = await ledger(t.ctx.db);
    expect(l.paid).toBe(l.net + l.commission);
    await fan.context().close();
  }, 60_000);
});
