import type { AppContext } from '../context.js';
import { isGatewayName, type PaymentGateway, type GatewayName } from './gateway.js';
import { activeGatewayName, gatewayFor, sandboxGateway, type GatewayDeps } from './gateways.js';
import type { Deliver, SandboxGateway } from './sandbox.gateway.js';
import { applyGatewayEvent, type Effects, type SettlementDeps } from './settlement.service.js';
import { sendMoneyMails } from './money-mail.js';
import { pushNotificationCount } from '../notifications/notifications.service.js';

/**
 * What the money use cases need, built from the app context: the database, settings, the gateways and what to do
 * once a settlement has committed (push `payment/success` / `subscription/success` to the buyer, mail what happened,
 * ask a provider to refund a payment that could not be fulfilled). Without a mailer (a command-line tool that was not
 * given one) the money mails are logged as not sent.
 */
export interface Money {
  ctx: Pick<AppContext, 'db' | 'config' | 'settings' | 'logger'> & Partial<Pick<AppContext, 'realtime' | 'mailer'>>;
  settlement: SettlementDeps;
  gatewayDeps: GatewayDeps;
  gateway(name: GatewayName): Promise<PaymentGateway>;
  activeGatewayName(): Promise<GatewayName>;
  sandbox(): SandboxGateway;
  afterCommit(effects: Effects): Promise<void>;
  /** Stops recurring billings at their providers (best effort: logged when a provider cannot be reached). */
  cancelRecurring(billings: Effects['recurringToCancel']): Promise<void>;
}

/**
 * Money whose sandbox provider hands its signed webhooks straight to the settlement in this process (the admin back
 * office, `npm run payments:renew`): verified and applied exactly as over HTTP, without a server to post to.
 */
export function createInProcessMoney(ctx: Money['ctx']): Money {
  const money: Money = createMoney(ctx, {
    deliver: async (body, headers) => {
      const event = await money.sandbox().parseWebhook(Buffer.from(body), headers);
      const result = await applyGatewayEvent(money.settlement, 'sandbox', event, body);
      await money.afterCommit(result.effects);
      return { status: 200 };
    },
  });
  return money;
}

export function createMoney(ctx: Money['ctx'], opts: { deliver?: Deliver } = {}): Money {
  const gatewayDeps: GatewayDeps = { db: ctx.db, config: ctx.config, settings: ctx.settings, logger: ctx.logger, deliver: opts.deliver };
  const settlement: SettlementDeps = {
    db: ctx.db,
    rates: async () => ({ commissionBps: Number(await ctx.settings.get('commissionBps')), graceDays: Number(await ctx.settings.get('renewalGraceDays')) }),
  };
  const money: Money = {
    ctx,
    settlement,
    gatewayDeps,
    gateway: (name) => gatewayFor(name, gatewayDeps),
    activeGatewayName: () => activeGatewayName(gatewayDeps),
    sandbox: () => sandboxGateway(gatewayDeps),
    async afterCommit(effects) {
      for (const n of effects.notifications) {
        try {
          if (n.event === 'payment/success') ctx.realtime?.emitToUser(n.userId, 'payment/success', n.payload);
          else if (n.event === 'tip/received') ctx.realtime?.emitToUser(n.userId, 'tip/received', n.payload);
          else ctx.realtime?.emitToUser(n.userId, 'subscription/success', n.payload);
        } catch (err) {
          ctx.logger.warn({ err: (err as Error).message, event: n.event }, 'realtime emit failed');
        }
      }
      if (ctx.realtime) for (const userId of new Set(effects.notified)) await pushNotificationCount(ctx.db, ctx.realtime, userId);
      await sendMoneyMails(ctx, effects.mails);
      for (const p of effects.refundsDue) {
        try {
          if (!isGatewayName(p.gateway)) throw new Error(`unknown gateway ${p.gateway}`);
          const gateway = await money.gateway(p.gateway);
          await gateway.refund({ gatewayRef: p.gatewayRef, intentRef: p.gatewayIntentRef, amount: p.amount });
          ctx.logger.warn({ paymentId: p.id }, 'late payment could not be fulfilled (out of stock): refund requested');
        } catch (err) {
          ctx.logger.error({ err: (err as Error).message, paymentId: p.id }, 'refund of an unfulfillable payment failed: refund it by hand');
        }
      }
      await money.cancelRecurring(effects.recurringToCancel);
    },
    async cancelRecurring(billings) {
      for (const b of billings) {
        try {
          if (!isGatewayName(b.gateway)) throw new Error(`unknown gateway ${b.gateway}`);
          await (await money.gateway(b.gateway)).cancelSubscription(b.ref);
        } catch (err) {
          ctx.logger.error({ err: (err as Error).message, gateway: b.gateway, ref: b.ref }, 'recurring billing could not be stopped at the provider: stop it by hand');
        }
      }
    },
  };
  return money;
}
