import { decryptSecret } from '../settings/secrets.js';
import type { AppConfig } from '../config.js';
import type { AppContext } from '../context.js';
import { AppError } from '../http/errors.js';
import type { DbOrTrx } from '../db/database.js';
import { isGatewayName, type GatewayName, type PaymentGateway } from './gateway.js';
import { CcbillGateway, type CcbillGatewayOptions } from './ccbill.gateway.js';
import { SandboxGateway, sandboxWebhookSecret, type Deliver } from './sandbox.gateway.js';
import { StripeGateway } from './stripe.gateway.js';

/**
 * Builds the gateways from configuration. Gateways are cheap objects, built per use so a settings change
 * (admin switches to Stripe, rotates a key) applies within the settings cache time without a restart.
 */

export interface GatewayDeps {
  db: DbOrTrx;
  config: Pick<AppContext['config'], 'appSecret' | 'env' | 'sandboxPayments' | 'stripe' | 'ccbill'>;
  settings: Pick<AppContext['settings'], 'get'>;
  logger?: { warn(obj: object, msg: string): void };
  /** How the sandbox provider reaches our webhook endpoint (the app posts over HTTP to itself). */
  deliver?: Deliver;
}

/** The gateway new checkouts use (setting `paymentGateway`). */
export async function activeGatewayName(deps: Pick<GatewayDeps, 'settings'>): Promise<GatewayName> {
  const name = await deps.settings.get('paymentGateway');
  return isGatewayName(name) ? name : 'sandbox';
}

/** Stripe keys: the environment's (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET: `config.stripe`) win over the settings. */
export async function stripeKeys(deps: Pick<GatewayDeps, 'settings' | 'config'>): Promise<{ secretKey: string; webhookSecret: string }> {
  const env = deps.config.stripe;
  // The admin console stores them encrypted (server/settings/secrets.ts).
  const stored = async (key: 'stripeSecretKey' | 'stripeWebhookSecret') => decryptSecret(deps.config.appSecret, (await deps.settings.get(key)) as string | null);
  return {
    secretKey: env.secretKey || (await stored('stripeSecretKey')),
    webhookSecret: env.webhookSecret || (await stored('stripeWebhookSecret')),
  };
}

/**
 * The sandbox lets the buyer approve their own payment, so in production it is off: no checkout, no hosted page,
 * no webhook, no back-office action. SANDBOX_PAYMENTS=1 switches it on for a staging site (its earnings are test
 * money all the same, never paid out).
 */
export function sandboxEnabled(config: Pick<AppConfig, 'env' | 'sandboxPayments'>): boolean {
  return config.env !== 'production' || config.sandboxPayments;
}

export function sandboxDisabled(status = 403): AppError {
  return new AppError(status, 'SANDBOX_DISABLED', 'The sandbox payment gateway is switched off in production (SANDBOX_PAYMENTS=1 enables it on a staging site)');
}

export function assertSandboxEnabled(config: Pick<AppConfig, 'env' | 'sandboxPayments'>): void {
  if (!sandboxEnabled(config)) throw sandboxDisabled();
}

/** The sandbox provider; throws SANDBOX_DISABLED (403) where it is switched off, before anything is read or written. */
export function sandboxGateway(deps: GatewayDeps): SandboxGateway {
  assertSandboxEnabled(deps.config);
  return new SandboxGateway({
    db: deps.db,
    secret: sandboxWebhookSecret(deps.config.appSecret),
    deliver: deps.deliver,
    logger: deps.logger,
  });
}

/** CCBill's account, keys and addresses: the settings (the salt and the DataLink password stored encrypted) and config.ccbill. */
export async function ccbillOptions(deps: Pick<GatewayDeps, 'settings' | 'config'>): Promise<CcbillGatewayOptions> {
  const text = async (key: 'ccbillAccount' | 'ccbillSubaccount' | 'ccbillFlexFormId' | 'ccbillDatalinkUser' | 'ccbillWebhookIps') =>
    String((await deps.settings.get(key)) ?? '').trim();
  const secret = async (key: 'ccbillSalt' | 'ccbillDatalinkPassword') => decryptSecret(deps.config.appSecret, (await deps.settings.get(key)) as string | null);
  return {
    account: await text('ccbillAccount'),
    subaccount: await text('ccbillSubaccount'),
    flexFormId: await text('ccbillFlexFormId'),
    salt: await secret('ccbillSalt'),
    datalinkUser: await text('ccbillDatalinkUser'),
    datalinkPassword: await secret('ccbillDatalinkPassword'),
    webhookSources: await text('ccbillWebhookIps'),
    flexFormsUrl: deps.config.ccbill.flexFormsUrl,
    datalinkUrl: deps.config.ccbill.datalinkUrl,
  };
}

export async function gatewayFor(name: GatewayName, deps: GatewayDeps): Promise<PaymentGateway> {
  if (name === 'stripe') return new StripeGateway(await stripeKeys(deps));
  if (name === 'ccbill') return new CcbillGateway(await ccbillOptions(deps));
  return sandboxGateway(deps);
}
