import sanitizeHtml from 'sanitize-html';
import type { ApiApp } from '../http/types.js';
import { newId } from '../db/ids.js';
import { AppError } from '../http/errors.js';
import { upsertSetting } from '../settings/settings.repository.js';
import { settingDefs, type SettingKey } from '../settings/settings.defaults.js';
import { publicMediaUrl } from '../media/storage.js';
import { adminTx, errors, uploadErrors } from './admin.http.js';
import { readSingleImage } from '../http/single-image.js';
import { adminSettingsSchema, paymentSettingsBody, paymentView, settingsBody, siteImageParams } from '../../common/schemas/admin.js';
import { announceSettingsChange } from './settings-sync.js';
import { encryptSecret } from '../settings/secrets.js';
import { renderSiteImage, settingKeyOf } from './site-images.js';
import { sandboxDisabled, sandboxEnabled } from '../payments/gateways.js';
import { adminSettings, paymentSettingsView } from './settings.service.js';

/** Site settings (docs/product.md): every public setting, the default commission, payment gateway settings, site images. */

/** Footer HTML is written by an admin and rendered as is, so it is cleaned first: no scripts, handlers or javascript: URLs. */
export function cleanFooterHtml(html: string): string {
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img'],
    allowedAttributes: { a: ['href', 'target', 'rel'], img: ['src', 'alt', 'width', 'height'], '*': ['class'] },
    allowedSchemes: ['http', 'https', 'mailto'],
  });
}

export async function adminSettingsRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const { db } = ctx;
  const put = async (trx: Parameters<typeof upsertSetting>[0], key: SettingKey, value: unknown) => {
    const def = settingDefs[key];
    await upsertSetting(trx, key, value, def.group, def.public);
  };

  app.get(
    '/admin/settings',
    { schema: { tags: ['admin'], summary: 'Every site setting the console edits (secrets only as configured: true/false)', response: { 200: adminSettingsSchema, ...errors } } },
    async () => {
      ctx.settings.invalidate();
      return adminSettings(ctx);
    },
  );

  app.put(
    '/admin/settings',
    {
      schema: {
        tags: ['admin'],
        summary: 'Change site settings: only the fields sent change; visible on every instance within SETTINGS_CACHE_MS',
        body: settingsBody,
        response: { 200: adminSettingsSchema, ...errors },
      },
    },
    async (request) => {
      const body = { ...request.body };
      if (body.footerContent !== undefined) body.footerContent = cleanFooterHtml(body.footerContent);
      if (body.recordKeepingStatement !== undefined) body.recordKeepingStatement = cleanFooterHtml(body.recordKeepingStatement);
      if (body.menus) body.menus = body.menus.map((m, i) => ({ ...m, ordering: m.ordering ?? i }));
      await adminTx(db, request, async (trx, audit) => {
        for (const [key, value] of Object.entries(body)) await put(trx, key as SettingKey, value);
        await audit('settings.update', 'settings', null, { keys: Object.keys(body), values: body });
      });
      announceSettingsChange(ctx);
      return adminSettings(ctx);
    },
  );

  app.put(
    '/admin/settings/payment',
    {
      schema: {
        tags: ['admin'],
        summary: 'Payment gateway and payout settings; secrets are stored encrypted (AES-256-GCM) and never returned',
        description:
          'A secret (stripeSecretKey, stripeWebhookSecret, ccbillSalt, ccbillDatalinkPassword) set to "" or null is removed. STRIPE_SECRET_KEY / STRIPE_WEBHOOK_SECRET in the environment win over stored values.',
        body: paymentSettingsBody,
        response: { 200: paymentView, ...errors },
      },
    },
    async (request) => {
      const body = request.body;
      // On a live site the sandbox would let buyers approve their own payments.
      if (body.paymentGateway === 'sandbox' && !sandboxEnabled(ctx.config)) throw sandboxDisabled(400);
      // The tip limits are checked together, with the stored one when only the other is sent.
      if (body.tipMinimum !== undefined || body.tipMaximum !== undefined) {
        const min = body.tipMinimum ?? Number(await ctx.settings.get('tipMinimum'));
        const max = body.tipMaximum ?? Number(await ctx.settings.get('tipMaximum'));
        if (min > max) {
          throw new AppError(400, 'VALIDATION_FAILED', 'The smallest tip cannot be larger than the largest', [{ path: 'body.tipMinimum', message: 'Larger than the largest tip' }]);
        }
      }
      await adminTx(db, request, async (trx, audit) => {
        const changed: string[] = [];
        if (body.paymentGateway !== undefined) await put(trx, 'paymentGateway', body.paymentGateway), changed.push('paymentGateway');
        if (body.checkoutExpiryMinutes !== undefined) await put(trx, 'checkoutExpiryMinutes', body.checkoutExpiryMinutes), changed.push('checkoutExpiryMinutes');
        if (body.stockHoldMaxPerBuyer !== undefined) await put(trx, 'stockHoldMaxPerBuyer', body.stockHoldMaxPerBuyer), changed.push('stockHoldMaxPerBuyer');
        if (body.renewalGraceDays !== undefined) await put(trx, 'renewalGraceDays', body.renewalGraceDays), changed.push('renewalGraceDays');
        if (body.renewalReminderDays !== undefined) await put(trx, 'renewalReminderDays', body.renewalReminderDays), changed.push('renewalReminderDays');
        if (body.payoutHoldDays !== undefined) await put(trx, 'payoutHoldDays', body.payoutHoldDays), changed.push('payoutHoldDays');
        if (body.payoutMinimum !== undefined) await put(trx, 'payoutMinimum', body.payoutMinimum), changed.push('payoutMinimum');
        if (body.tipMinimum !== undefined) await put(trx, 'tipMinimum', body.tipMinimum), changed.push('tipMinimum');
        if (body.tipMaximum !== undefined) await put(trx, 'tipMaximum', body.tipMaximum), changed.push('tipMaximum');
        for (const key of ['ccbillAccount', 'ccbillSubaccount', 'ccbillFlexFormId', 'ccbillDatalinkUser', 'ccbillWebhookIps'] as const) {
          const value = body[key];
          if (value === undefined) continue;
          await put(trx, key, value);
          changed.push(key);
        }
        for (const key of ['stripeSecretKey', 'stripeWebhookSecret', 'ccbillSalt', 'ccbillDatalinkPassword'] as const) {
          const value = body[key];
          if (value === undefined) continue;
          await put(trx, key, value ? encryptSecret(ctx.config.appSecret, value) : '');
          changed.push(key);
        }
        // Never the secrets themselves in the log.
        await audit('settings.payment.update', 'settings', null, {
          keys: changed, paymentGateway: body.paymentGateway, checkoutExpiryMinutes: body.checkoutExpiryMinutes, stockHoldMaxPerBuyer: body.stockHoldMaxPerBuyer,
          renewalGraceDays: body.renewalGraceDays, renewalReminderDays: body.renewalReminderDays, payoutHoldDays: body.payoutHoldDays, payoutMinimum: body.payoutMinimum,
          tipMinimum: body.tipMinimum, tipMaximum: body.tipMaximum,
        });
      });
      announceSettingsChange(ctx);
      return paymentSettingsView(ctx);
    },
  );

  app.post(
    '/admin/settings/images/:kind',
    {
      schema: {
        tags: ['admin'],
        summary: 'Upload the logo, favicon or login placeholder image (multipart, one file, at most 5 MB)',
        consumes: ['multipart/form-data'],
        params: siteImageParams,
        response: { 200: adminSettingsSchema, ...uploadErrors },
      },
    },
    async (request) => {
      const { kind } = request.params;
      const file = await readSingleImage(request);
      const image = await renderSiteImage(file, kind);
      const key = `public/site/${kind}-${newId()}.${image.ext}`;
      await ctx.storage.put(key, image.buffer);
      const settingKey = settingKeyOf[kind];
      const old = String(await ctx.settings.get(settingKey));
      const url = publicMediaUrl(key)!;
      try {
        await adminTx(db, request, async (trx, audit) => {
          await put(trx, settingKey, url);
          await audit('settings.image.upload', 'settings', settingKey, { kind, url, previous: old });
        });
      } catch (err) {
        await ctx.storage.delete(key).catch(() => {});
        throw err;
      }
      announceSettingsChange(ctx);
      if (old.startsWith('/media/public/site/') && old !== url) {
        await ctx.storage.delete(old.slice('/media/'.length)).catch((err) => ctx.logger.warn({ err, key: old }, 'old site image could not be deleted'));
      }
      return adminSettings(ctx);
    },
  );
}
