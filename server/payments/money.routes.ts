import type { AddressInfo } from 'node:net';
import type { ApiApp } from '../http/types.js';
import { createMoney } from './money.js';
import type { Deliver } from './sandbox.gateway.js';
import { paymentsRoutes } from './payments.routes.js';
import { webhookRoutes } from './webhooks.routes.js';
import { moneyClock } from './maintenance.service.js';
import { subscriptionsRoutes } from '../subscriptions/subscriptions.routes.js';
import { packagesRoutes } from '../packages/packages.routes.js';
import { couponsRoutes } from '../coupons/coupons.routes.js';
import { ordersRoutes } from '../orders/orders.routes.js';
import { earningsRoutes } from '../earnings/earnings.routes.js';
import { payoutsRoutes } from '../payouts/payouts.routes.js';

/** How often this instance runs the money clock (sandbox renewals, expired checkouts, lapsed subscriptions). */
const SWEEP_MS = 60_000;

/**
 * Every money route group: checkouts and transactions, webhooks, subscriptions, packages, coupons,
 * orders, earnings, payouts. See server/payments/README.md.
 */
export async function moneyRoutes(app: ApiApp): Promise<void> {
  // The sandbox provider posts its webhooks to this very server over HTTP (as a hosted provider would), at the
  // address it listens on; SANDBOX_WEBHOOK_URL overrides it (e.g. behind a proxy that must see them).
  const deliver: Deliver = async (body, headers) => {
    const url = app.ctx.config.sandboxWebhookUrl || `${selfUrl(app)}${app.ctx.config.apiBase}/payment/webhooks/sandbox`;
    const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(15_000) });
    await res.arrayBuffer();
    return { status: res.status };
  };
  const money = createMoney(app.ctx, { deliver });

  await app.register(paymentsRoutes, { money });
  await app.register(webhookRoutes, { money });
  await app.register(subscriptionsRoutes, { money });
  await app.register(packagesRoutes);
  await app.register(couponsRoutes);
  await app.register(ordersRoutes);
  await app.register(earningsRoutes);
  await app.register(payoutsRoutes);

  const timer = setInterval(() => {
    void moneyClock(money).catch((err) => app.ctx.logger.warn({ err: (err as Error).message }, 'money sweep failed'));
  }, SWEEP_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}

function selfUrl(app: ApiApp): string {
  const address = app.server.address() as AddressInfo | string | null;
  if (!address || typeof address === 'string') return app.ctx.config.publicUrl;
  const loopback = address.address === '0.0.0.0' || address.address === '::' || address.address === '::1' ? '127.0.0.1' : address.address;
  const host = loopback.includes(':') ? `[${loopback}]` : loopback;
  return `http://${host}:${address.port}`;
}
