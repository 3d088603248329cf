import type { FastifyRequest } from 'fastify';
import type { Insertable, Updateable } from 'kysely';
import type { Database } from '../db/schema.js';
import type { ApiApp } from '../http/types.js';
import { newId, nowIso } from '../db/ids.js';
import { notFound } from '../http/errors.js';
import { listSchema } from '../../common/schemas/http.js';
import { adminTx, errors, uploadErrors } from './admin.http.js';
import { readSingleImage } from '../http/single-image.js';
import {
  adminPage, bannerBody, bannerPatch, bannerSchema, categoryBody, categoryListQuery, categoryPatch, categorySchema, commissionBody, commissionSchema,
  countryBlockBody, countryBlockSchema, countryParams, couponBody, couponListQuery, couponPatch, couponSchema, idParams, okSchema, packageBody,
  packagePatch, packageSchema,
} from '../../common/schemas/admin.js';
import {
  categoryView, couponAdminView, deleteSiteRow, findBanner, insertSiteRow, listBanners, listCategories, listCountryBlocks, listCoupons, listPackages, packageView,
  updateSiteRow, type SiteTable,
} from './admin.repository.js';
import { deleteFileRow, fileRow, insertFiles } from '../media/pipeline/pipeline.repository.js';
import { unlinkCategory } from '../categories/categories.repository.js';
import { couponInUse } from '../coupons/coupons.repository.js';
import { blockCountry, findCountryBlock, unblockCountry } from '../geo/geo.repository.js';
import { findCommissionRate, setCommissionRate } from '../performers/performers.repository.js';
import { renderSiteImage } from './site-images.js';

/** Site content the console manages: banners (site promo), categories, country blocks, coupons, packages, commission. */

const slugify = (s: string) =>
  s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100) || `category-${Date.now()}`;

export async function adminSiteRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const { db } = ctx;
  const tags = ['admin'];

  /** A console creation of a site row and its audit entry (`<target>.create`, with `details`) in one transaction. */
  const createSiteRow = <T extends SiteTable>(request: FastifyRequest, table: T, row: Insertable<Database[T]> & { id: string }, target: string, details: Record<string, unknown>) =>
    adminTx(db, request, async (trx, audit) => {
      await insertSiteRow(trx, table, row);
      await audit(`${target}.create`, target, row.id, details);
    });
  /** A console edit of a site row: the change and its audit entry (`<target>.update`, with the fields sent) in one transaction; 404 `what` when there is no such row. */
  const editSiteRow = <T extends SiteTable>(request: FastifyRequest, table: T, id: string, changes: Updateable<Database[T]>, what: string, target: string) =>
    adminTx(db, request, async (trx, audit) => {
      const changed = await updateSiteRow(trx, table, id, changes);
      if (!changed) throw notFound(what);
      await audit(`${target}.update`, target, id, { ...changes });
      return changed;
    });

  // Banners -------------------------------------------------------------------------------------------------------
  app.get('/admin/banners', { schema: { tags, summary: 'All banners (site promo), any status', querystring: adminPage, response: { 200: listSchema(bannerSchema), ...errors } } }, async (request) =>
    listBanners(db, request.query),
  );
  app.post('/admin/banners', { schema: { tags, summary: 'Create a banner (upload its picture with POST /admin/banners/{id}/image)', body: bannerBody, response: { 201: bannerSchema, ...errors } } }, async (request, reply) => {
    const id = newId();
    const now = nowIso();
    const b = request.body;
    const row = { id, title: b.title, description: b.description ?? null, link: b.link ?? null, position: b.position ?? 'top', ordering: b.ordering ?? 0, status: b.status ?? 'active', imageFileId: null, createdAt: now, updatedAt: now } as const;
    await createSiteRow(request, 'banners', row, 'banner', { ...b });
    reply.code(201);
    return (await findBanner(db, id))!;
  });
  app.put('/admin/banners/:id', { schema: { tags, summary: 'Change a banner', params: idParams, body: bannerPatch, response: { 200: bannerSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    await editSiteRow(request, 'banners', id, request.body, 'Banner', 'banner');
    return (await findBanner(db, id))!;
  });
  app.delete('/admin/banners/:id', { schema: { tags, summary: 'Delete a banner and its picture', params: idParams, response: { 200: okSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    const key = await adminTx(db, request, async (trx, audit) => {
      const row = await deleteSiteRow(trx, 'banners', id);
      if (!row) throw notFound('Banner');
      const storageKey = row.imageFileId ? await deleteFileRow(trx, row.imageFileId) : undefined;
      await audit('banner.delete', 'banner', id, { title: row.title });
      return storageKey;
    });
    if (key) await ctx.storage.delete(key).catch(() => {});
    return { ok: true as const };
  });
  app.post(
    '/admin/banners/:id/image',
    { schema: { tags, summary: "Upload a banner's picture (multipart, one file, at most 5 MB)", consumes: ['multipart/form-data'], params: idParams, response: { 200: bannerSchema, ...uploadErrors } } },
    async (request) => {
      const { id } = request.params;
      const before = await findBanner(db, id);
      if (!before) throw notFound('Banner');
      const image = await renderSiteImage(await readSingleImage(request), 'banner');
      const fileId = newId();
      const key = `public/banners/${fileId}.${image.ext}`;
      await ctx.storage.put(key, image.buffer);
      let oldKey: string | undefined;
      try {
        oldKey = await adminTx(db, request, async (trx, audit) => {
          await insertFiles(trx, [
            fileRow({ id: fileId, ownerId: request.user!.id, variant: 'banner', kind: 'image', storageKey: key, mime: image.mime, size: image.buffer.length, width: image.width, height: image.height, status: 'ready' }),
          ]);
          await updateSiteRow(trx, 'banners', id, { imageFileId: fileId });
          const previous = before.imageFileId ? await deleteFileRow(trx, before.imageFileId) : undefined;
          await audit('banner.image', 'banner', id, { fileId });
          return previous;
        });
      } catch (err) {
        await ctx.storage.delete(key).catch(() => {});
        throw err;
      }
      if (oldKey) await ctx.storage.delete(oldKey).catch(() => {});
      return (await findBanner(db, id))!;
    },
  );

  // Categories ----------------------------------------------------------------------------------------------------
  app.get('/admin/categories', { schema: { tags, summary: 'All categories, any status', querystring: categoryListQuery, response: { 200: listSchema(categorySchema), ...errors } } }, async (request) =>
    listCategories(db, request.query),
  );
  app.post('/admin/categories', { schema: { tags, summary: 'Create a category; the slug is made from the name when not given (409 when taken in its group)', body: categoryBody, response: { 201: categorySchema, ...errors } } }, async (request, reply) => {
    const b = request.body;
    const now = nowIso();
    const row = { id: newId(), name: b.name, slug: b.slug ?? slugify(b.name), group: b.group, description: b.description ?? null, ordering: b.ordering ?? 0, status: b.status ?? 'active', createdAt: now, updatedAt: now } as const;
    await createSiteRow(request, 'categories', row, 'category', { ...b, slug: row.slug });
    reply.code(201);
    return categoryView(row);
  });
  app.put('/admin/categories/:id', { schema: { tags, summary: 'Change a category', params: idParams, body: categoryPatch, response: { 200: categorySchema, ...errors } } }, async (request) => {
    return categoryView(await editSiteRow(request, 'categories', request.params.id, request.body, 'Category', 'category'));
  });
  app.delete('/admin/categories/:id', { schema: { tags, summary: 'Delete a category (its links to content go with it)', params: idParams, response: { 200: okSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    await adminTx(db, request, async (trx, audit) => {
      await unlinkCategory(trx, id);
      const row = await deleteSiteRow(trx, 'categories', id);
      if (!row) throw notFound('Category');
      await audit('category.delete', 'category', id, { name: row.name, group: row.group });
    });
    return { ok: true as const };
  });

  // Country blocks ------------------------------------------------------------------------------------------------
  app.get('/admin/country-blocks', { schema: { tags, summary: 'Countries blocked site-wide', response: { 200: listSchema(countryBlockSchema), ...errors } } }, async () => listCountryBlocks(db));
  app.post('/admin/country-blocks', { schema: { tags, summary: 'Block a country site-wide (ISO 3166-1 alpha-2); blocking it again changes nothing', body: countryBlockBody, response: { 201: countryBlockSchema, ...errors } } }, async (request, reply) => {
    const code = request.body.countryCode;
    await adminTx(db, request, async (trx, audit) => {
      await blockCountry(trx, code);
      await audit('country_block.create', 'country', code);
    });
    reply.code(201);
    return (await findCountryBlock(db, code))!;
  });
  app.delete('/admin/country-blocks/:code', { schema: { tags, summary: 'Unblock a country', params: countryParams, response: { 200: okSchema, ...errors } } }, async (request) => {
    const { code } = request.params;
    await adminTx(db, request, async (trx, audit) => {
      if (!(await unblockCountry(trx, code))) throw notFound('Country block');
      await audit('country_block.delete', 'country', code);
    });
    return { ok: true as const };
  });

  // Coupons -------------------------------------------------------------------------------------------------------
  app.get('/admin/coupons', { schema: { tags, summary: 'Coupons (search by code or name)', querystring: couponListQuery, response: { 200: listSchema(couponSchema), ...errors } } }, async (request) =>
    listCoupons(db, request.query),
  );
  app.post('/admin/coupons', { schema: { tags, summary: 'Create a coupon: code (unique, stored upper case), value in basis points, expiry, number of uses, active', body: couponBody, response: { 201: couponSchema, ...errors } } }, async (request, reply) => {
    const b = request.body;
    const now = nowIso();
    const row = { id: newId(), name: b.name, code: b.code, valueBps: b.valueBps, expiresAt: b.expiresAt ?? null, maxUses: b.maxUses, usedCount: 0, status: b.status ?? 'active', createdAt: now, updatedAt: now } as const;
    await createSiteRow(request, 'coupons', row, 'coupon', { ...b });
    reply.code(201);
    return couponAdminView(row);
  });
  app.put('/admin/coupons/:id', { schema: { tags, summary: 'Change a coupon', params: idParams, body: couponPatch, response: { 200: couponSchema, ...errors } } }, async (request) => {
    return couponAdminView(await editSiteRow(request, 'coupons', request.params.id, request.body, 'Coupon', 'coupon'));
  });
  app.delete('/admin/coupons/:id', { schema: { tags, summary: 'Delete an unused coupon (a used one is deactivated instead: payments refer to it)', params: idParams, response: { 200: okSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    await adminTx(db, request, async (trx, audit) => {
      const referenced = await couponInUse(trx, id);
      const row = referenced ? await updateSiteRow(trx, 'coupons', id, { status: 'inactive' }) : await deleteSiteRow(trx, 'coupons', id);
      if (!row) throw notFound('Coupon');
      await audit(referenced ? 'coupon.deactivate' : 'coupon.delete', 'coupon', id, { code: row.code });
    });
    return { ok: true as const };
  });

  // Subscription packages -----------------------------------------------------------------------------------------
  app.get('/admin/packages', { schema: { tags, summary: 'Subscription packages, any status', querystring: adminPage, response: { 200: listSchema(packageSchema), ...errors } } }, async (request) => listPackages(db, request.query));
  app.post('/admin/packages', { schema: { tags, summary: 'Create a subscription package (price in minor units)', body: packageBody, response: { 201: packageSchema, ...errors } } }, async (request, reply) => {
    const b = request.body;
    const now = nowIso();
    const row = { id: newId(), name: b.name, description: b.description ?? null, type: b.type, price: b.price, durationDays: b.durationDays, ordering: b.ordering ?? 0, status: b.status ?? 'active', createdAt: now, updatedAt: now } as const;
    await createSiteRow(request, 'subscriptionPackages', row, 'package', { ...b });
    reply.code(201);
    return packageView(row);
  });
  app.put('/admin/packages/:id', { schema: { tags, summary: 'Change a subscription package', params: idParams, body: packagePatch, response: { 200: packageSchema, ...errors } } }, async (request) => {
    return packageView(await editSiteRow(request, 'subscriptionPackages', request.params.id, request.body, 'Package', 'package'));
  });
  app.delete('/admin/packages/:id', { schema: { tags, summary: 'Delete a subscription package', params: idParams, response: { 200: okSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    await adminTx(db, request, async (trx, audit) => {
      const row = await deleteSiteRow(trx, 'subscriptionPackages', id);
      if (!row) throw notFound('Package');
      await audit('package.delete', 'package', id, { name: row.name, type: row.type });
    });
    return { ok: true as const };
  });

  // Per-performer commission --------------------------------------------------------------------------------------
  app.put(
    '/admin/performers/:id/commission',
    {
      schema: {
        tags,
        summary: "A performer's commission rate in basis points; null falls back to the site default (setting commissionBps)",
        params: idParams,
        body: commissionBody,
        response: { 200: commissionSchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { commissionBps } = request.body;
      await adminTx(db, request, async (trx, audit) => {
        const before = await findCommissionRate(trx, id);
        if (!before) throw notFound('Performer');
        await setCommissionRate(trx, id, commissionBps);
        await audit('performer.commission', 'performer', id, { from: before.commissionBps, to: commissionBps });
      });
      return { _id: id, commissionBps };
    },
  );
}
