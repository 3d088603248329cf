import type { AppContext } from '../context.js';
import { isGatewayName, type PaymentGateway, type GatewayName } from './gateway.js';
import { activeGatewayName, gatewayFor, sandboxGateway, type GatewayDeps } from './gateways.js';
import type { Deliver, SandboxGateway } from './sandbox.gateway.js';
import type { Effects, SettlementDeps } from './settlement.service.js';

/**
 * What the money use cases need, built from the app context: the database, settings, the gateways and what to do
 * once a settlement has committed (push `payment/success` / `subscription/success` to the buyer, ask a provider to
 * refund a payment that could not be fulfilled).
 */
export interface Money {
  ctx: Pick<AppContext, 'db' | 'config' | 'settings' | 'logger'> & Partial<Pick<AppContext, 'realtime'>>;
  settlement: SettlementDeps;
  gatewayDeps: GatewayDeps;
  gateway(name: GatewayName): Promise<PaymentGateway>;
  activeGatewayName(): Promise<GatewayName>;
  sandbox(): SandboxGateway;
  afterCommit(effects: Effects): Promise<void>;
}

export function createMoney(ctx: Money['ctx'], opts: { deliver?: Deliver } = {}): Money {
  const gatewayDeps: GatewayDeps = { db: ctx.db, config: ctx.config, settings: ctx.settings, logger: ctx.logger, deliver: opts.deliver };
  const settlement: SettlementDeps = { db: ctx.db, siteCommissionBps: async () => Number(await ctx.settings.get('commissionBps')) };
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
          else ctx.realtime?.emitToUser(n.userId, 'subscription/success', n.payload);
        } catch (err) {
          ctx.logger.warn({ err: (err as Error).message, event: n.event }, 'realtime emit failed');
        }
      }
      for (const p of effects.refundsDue) {
        try {
          const gateway = await money.gateway(isGatewayName(p.gateway) ? p.gateway : 'sandbox');
          await gateway.refund({ gatewayRef: p.gatewayRef, intentRef: p.gatewayIntentRef, amount: p.amount });
          ctx.logger.warn({ paymentId: p.id }, 'late payment could not be fulfilled (out of stock): refund requested');
        } catch (err) {
          ctx.logger.error({ err: (err as Error).message, paymentId: p.id }, 'refund of an unfulfillable payment failed: refund it by hand');
        }
      }
    },
  };
  return money;
}
