import type { AppContext } from '../context.js';
import { sandboxEnabled } from '../payments/gateways.js';
import { isGatewayName } from '../payments/gateway.js';
import { decryptSecret } from '../settings/secrets.js';

/** What the console shows of the site settings (GET /admin/settings and src/pages/admin/settings.astro). */

/** The keys set in the environment (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET), which win over the stored ones. */
const FROM_ENV = { stripeSecretKey: 'secretKey', stripeWebhookSecret: 'webhookSecret' } as const;

export async function paymentSettingsView(ctx: Pick<AppContext, 'settings' | 'config'>) {
  const state = async (key: 'stripeSecretKey' | 'stripeWebhookSecret' | 'ccbillSalt' | 'ccbillDatalinkPassword') => {
    if ((key === 'stripeSecretKey' || key === 'stripeWebhookSecret') && ctx.config.stripe[FROM_ENV[key]]) return { configured: true, source: 'env' as const };
    const stored = decryptSecret(ctx.config.appSecret, (await ctx.settings.get(key)) as string);
    return stored ? { configured: true, source: 'settings' as const } : { configured: false, source: null };
  };
  const text = async (key: 'ccbillAccount' | 'ccbillSubaccount' | 'ccbillFlexFormId' | 'ccbillDatalinkUser' | 'ccbillWebhookIps') => String((await ctx.settings.get(key)) ?? '');
  const gateway = await ctx.settings.get('paymentGateway');
  return {
    paymentGateway: isGatewayName(gateway) ? gateway : 'sandbox',
    sandboxAvailable: sandboxEnabled(ctx.config),
    checkoutExpiryMinutes: Number(await ctx.settings.get('checkoutExpiryMinutes')),
    stockHoldMaxPerBuyer: Number(await ctx.settings.get('stockHoldMaxPerBuyer')),
    renewalGraceDays: Number(await ctx.settings.get('renewalGraceDays')),
    renewalReminderDays: Number(await ctx.settings.get('renewalReminderDays')),
    payoutHoldDays: Number(await ctx.settings.get('payoutHoldDays')),
    payoutMinimum: Number(await ctx.settings.get('payoutMinimum')),
    tipMinimum: Number(await ctx.settings.get('tipMinimum')),
    tipMaximum: Number(await ctx.settings.get('tipMaximum')),
    stripeSecretKey: await state('stripeSecretKey'),
    stripeWebhookSecret: await state('stripeWebhookSecret'),
    ccbillAccount: await text('ccbillAccount'),
    ccbillSubaccount: await text('ccbillSubaccount'),
    ccbillFlexFormId: await text('ccbillFlexFormId'),
    ccbillSalt: await state('ccbillSalt'),
    ccbillDatalinkUser: await text('ccbillDatalinkUser'),
    ccbillDatalinkPassword: await state('ccbillDatalinkPassword'),
    ccbillWebhookIps: await text('ccbillWebhookIps'),
  };
}

export async function adminSettings(ctx: Pick<AppContext, 'settings' | 'config'>) {
  const pub = await ctx.settings.getPublicAll();
  return {
    siteName: pub.siteName,
    logoUrl: pub.logoUrl,
    favicon: pub.favicon,
    loginPlaceholderImage: pub.loginPlaceholderImage,
    menus: pub.menus,
    footerContent: pub.footerContent,
    currency: pub.currency,
    currencySymbol: pub.currencySymbol,
    maintenanceMode: pub.maintenanceMode,
    commissionBps: Number(await ctx.settings.get('commissionBps')),
    unapprovedItemQuota: Number(await ctx.settings.get('unapprovedItemQuota')),
    ageGateEnabled: (await ctx.settings.get('ageGateEnabled')) === true,
    ageGateCountries: ((await ctx.settings.get('ageGateCountries')) as unknown[]).filter((c): c is string => typeof c === 'string'),
    verificationDocumentRetentionDays: Number(await ctx.settings.get('verificationDocumentRetentionDays')),
    recordKeepingStatement: String(await ctx.settings.get('recordKeepingStatement')),
    payment: await paymentSettingsView(ctx),
  };
}
