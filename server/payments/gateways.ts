import { decryptSecret } from '../settings/secrets.js';
import type { AppContext } from '../context.js';
import type { DbOrTrx } from '../db/database.js';
import type { GatewayName, PaymentGateway } from './gateway.js';
import { SandboxGateway, sandboxWebhookSecret, type Deliver } from './sandbox.gateway.js';
import { StripeGateway } from './stripe.gateway.js';

/**
 * Builds the gateways from configuration. Gateways are cheap objects, built per use so a settings change
 * (admin switches to Stripe, rotates a key) applies within the settings cache time without a restart.
 */

export interface GatewayDeps {
  db: DbOrTrx;
  config: Pick<AppContext['config'], 'appSecret' | 'publicUrl'>;
  settings: Pick<AppContext['settings'], 'get'>;
  logger?: { warn(obj: object, msg: string): void };
  /** How the sandbox provider reaches our webhook endpoint (the app posts over HTTP to itself). */
  deliver?: Deliver;
  env?: NodeJS.ProcessEnv;
}

/** The gateway new checkouts use (setting `paymentGateway`). */
export async function activeGatewayName(deps: Pick<GatewayDeps, 'settings'>): Promise<GatewayName> {
  const name = await deps.settings.get('paymentGateway');
  return name === 'stripe' ? 'stripe' : 'sandbox';
}

/** Stripe keys: the environment (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET) wins over the settings. */
export async function stripeKeys(deps: Pick<GatewayDeps, 'settings' | 'env' | 'config'>): Promise<{ secretKey: string; webhookSecret: string }> {
  const env = deps.env ?? process.env;
  // The admin console stores them encrypted (server/settings/secrets.ts).
  const stored = async (key: 'stripeSecretKey' | 'stripeWebhookSecret') => decryptSecret(deps.config.appSecret, (await deps.settings.get(key)) as string | null);
  return {
    secretKey: env.STRIPE_SECRET_KEY || (await stored('stripeSecretKey')),
    webhookSecret: env.STRIPE_WEBHOOK_SECRET || (await stored('stripeWebhookSecret')),
  };
}

export function sandboxGateway(deps: GatewayDeps): SandboxGateway {
  return new SandboxGateway({
    db: deps.db,
    secret: sandboxWebhookSecret(deps.config.appSecret),
    publicUrl: deps.config.publicUrl,
    deliver: deps.deliver,
    logger: deps.logger,
  });
}

export async function gatewayFor(name: GatewayName, deps: GatewayDeps): Promise<PaymentGateway> {
  if (name === 'stripe') return new StripeGateway(await stripeKeys(deps));
  return sandboxGateway(deps);
}
