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
  categoryView, couponAdminView, findBanner, listBanners, listCategories, listCountryBlocks, listCoupons, listPackages, packageView,
} from './admin.repository.js';
import { renderSiteImage } from './site-images.js';

/** Site content the console manages: banners (site promo), categories, country blocks, coupons, packages, commission. */

const slugify = (s: string) =>
  s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100) || `category-${Date.now()}`;

export async function adminSiteRoutes(app: ApiApp): Promise<void> {
  const { ctx } = app;
  const { db } = ctx;
  const tags = ['admin'];

  // Banners -------------------------------------------------------------------------------------------------------
  app.get('/admin/banners', { schema: { tags, summary: 'All banners (site promo), any status', querystring: adminPage, response: { 200: listSchema(bannerSchema), ...errors } } }, async (request) =>
    listBanners(db, request.query),
  );
  app.post('/admin/banners', { schema: { tags, summary: 'Create a banner (upload its picture with POST /admin/banners/{id}/image)', body: bannerBody, response: { 201: bannerSchema, ...errors } } }, async (request, reply) => {
    const id = newId();
    const now = nowIso();
    const b = request.body;
    await adminTx(db, request, async (trx, audit) => {
      await trx
        .insertInto('banners')
        .values({ id, title: b.title, description: b.description ?? null, link: b.link ?? null, position: b.position ?? 'top', ordering: b.ordering ?? 0, status: b.status ?? 'active', imageFileId: null, createdAt: now, updatedAt: now })
        .execute();
      await audit('banner.create', 'banner', id, { ...b });
    });
    reply.code(201);
    return (await findBanner(db, id))!;
  });
  app.put('/admin/banners/:id', { schema: { tags, summary: 'Change a banner', params: idParams, body: bannerPatch, response: { 200: bannerSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    await adminTx(db, request, async (trx, audit) => {
      const res = await trx.updateTable('banners').set({ ...request.body, updatedAt: nowIso() }).where('id', '=', id).executeTakeFirst();
      if (!Number(res.numUpdatedRows)) throw notFound('Banner');
      await audit('banner.update', 'banner', id, { ...request.body });
    });
    return (await findBanner(db, id))!;
  });
  app.delete('/admin/banners/:id', { schema: { tags, summary: 'Delete a banner and its picture', params: idParams, response: { 200: okSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    const key = await adminTx(db, request, async (trx, audit) => {
      const row = await trx.selectFrom('banners').select(['id', 'title', 'imageFileId']).where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound('Banner');
      await trx.deleteFrom('banners').where('id', '=', id).execute();
      let storageKey: string | undefined;
      if (row.imageFileId) {
        storageKey = (await trx.selectFrom('files').select('storageKey').where('id', '=', row.imageFileId).executeTakeFirst())?.storageKey;
        await trx.deleteFrom('files').where('id', '=', row.imageFileId).execute();
      }
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
          const now = nowIso();
          await trx
            .insertInto('files')
            .values({ id: fileId, ownerId: request.user!.id, parentId: null, variant: 'banner', kind: 'image', storageKey: key, mime: image.mime, size: image.buffer.length, width: image.width, height: image.height, status: 'ready', createdAt: now, updatedAt: now })
            .execute();
          await trx.updateTable('banners').set({ imageFileId: fileId, updatedAt: now }).where('id', '=', id).execute();
          let previous: string | undefined;
          if (before.imageFileId) {
            previous = (await trx.selectFrom('files').select('storageKey').where('id', '=', before.imageFileId).executeTakeFirst())?.storageKey;
            await trx.deleteFrom('files').where('id', '=', before.imageFileId).execute();
          }
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
    await adminTx(db, request, async (trx, audit) => {
      await trx.insertInto('categories').values(row).execute();
      await audit('category.create', 'category', row.id, { ...b, slug: row.slug });
    });
    reply.code(201);
    return categoryView(row);
  });
  app.put('/admin/categories/:id', { schema: { tags, summary: 'Change a category', params: idParams, body: categoryPatch, response: { 200: categorySchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    const row = await adminTx(db, request, async (trx, audit) => {
      const res = await trx.updateTable('categories').set({ ...request.body, updatedAt: nowIso() }).where('id', '=', id).executeTakeFirst();
      if (!Number(res.numUpdatedRows)) throw notFound('Category');
      await audit('category.update', 'category', id, { ...request.body });
      return trx.selectFrom('categories').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    });
    return categoryView(row);
  });
  app.delete('/admin/categories/:id', { schema: { tags, summary: 'Delete a category (its links to content go with it)', params: idParams, response: { 200: okSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    await adminTx(db, request, async (trx, audit) => {
      const row = await trx.selectFrom('categories').select(['name', 'group']).where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound('Category');
      await trx.deleteFrom('contentCategories').where('categoryId', '=', id).execute();
      await trx.deleteFrom('categories').where('id', '=', id).execute();
      await audit('category.delete', 'category', id, { ...row });
    });
    return { ok: true as const };
  });

  // Country blocks ------------------------------------------------------------------------------------------------
  app.get('/admin/country-blocks', { schema: { tags, summary: 'Countries blocked site-wide', response: { 200: listSchema(countryBlockSchema), ...errors } } }, async () => listCountryBlocks(db));
  app.post('/admin/country-blocks', { schema: { tags, summary: 'Block a country site-wide (ISO 3166-1 alpha-2); blocking it again changes nothing', body: countryBlockBody, response: { 201: countryBlockSchema, ...errors } } }, async (request, reply) => {
    const code = request.body.countryCode;
    await adminTx(db, request, async (trx, audit) => {
      await trx.insertInto('countryBlocks').values({ countryCode: code, createdAt: nowIso() }).onConflict((oc) => oc.column('countryCode').doNothing()).execute();
      await audit('country_block.create', 'country', code);
    });
    reply.code(201);
    return (await db.selectFrom('countryBlocks').selectAll().where('countryCode', '=', code).executeTakeFirstOrThrow());
  });
  app.delete('/admin/country-blocks/:code', { schema: { tags, summary: 'Unblock a country', params: countryParams, response: { 200: okSchema, ...errors } } }, async (request) => {
    const { code } = request.params;
    await adminTx(db, request, async (trx, audit) => {
      const res = await trx.deleteFrom('countryBlocks').where('countryCode', '=', code).executeTakeFirst();
      if (!Number(res.numDeletedRows)) throw notFound('Country block');
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
    await adminTx(db, request, async (trx, audit) => {
      await trx.insertInto('coupons').values(row).execute();
      await audit('coupon.create', 'coupon', row.id, { ...b });
    });
    reply.code(201);
    return couponAdminView(row);
  });
  app.put('/admin/coupons/:id', { schema: { tags, summary: 'Change a coupon', params: idParams, body: couponPatch, response: { 200: couponSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    const row = await adminTx(db, request, async (trx, audit) => {
      const res = await trx.updateTable('coupons').set({ ...request.body, updatedAt: nowIso() }).where('id', '=', id).executeTakeFirst();
      if (!Number(res.numUpdatedRows)) throw notFound('Coupon');
      await audit('coupon.update', 'coupon', id, { ...request.body });
      return trx.selectFrom('coupons').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    });
    return couponAdminView(row);
  });
  app.delete('/admin/coupons/:id', { schema: { tags, summary: 'Delete an unused coupon (a used one is deactivated instead: payments refer to it)', params: idParams, response: { 200: okSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    await adminTx(db, request, async (trx, audit) => {
      const row = await trx.selectFrom('coupons').select(['code', 'usedCount']).where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound('Coupon');
      const referenced = await trx.selectFrom('payments').select('id').where('couponId', '=', id).limit(1).executeTakeFirst();
      if (referenced) await trx.updateTable('coupons').set({ status: 'inactive', updatedAt: nowIso() }).where('id', '=', id).execute();
      else await trx.deleteFrom('coupons').where('id', '=', id).execute();
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
    await adminTx(db, request, async (trx, audit) => {
      await trx.insertInto('subscriptionPackages').values(row).execute();
      await audit('package.create', 'package', row.id, { ...b });
    });
    reply.code(201);
    return packageView(row);
  });
  app.put('/admin/packages/:id', { schema: { tags, summary: 'Change a subscription package', params: idParams, body: packagePatch, response: { 200: packageSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    const row = await adminTx(db, request, async (trx, audit) => {
      const res = await trx.updateTable('subscriptionPackages').set({ ...request.body, updatedAt: nowIso() }).where('id', '=', id).executeTakeFirst();
      if (!Number(res.numUpdatedRows)) throw notFound('Package');
      await audit('package.update', 'package', id, { ...request.body });
      return trx.selectFrom('subscriptionPackages').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    });
    return packageView(row);
  });
  app.delete('/admin/packages/:id', { schema: { tags, summary: 'Delete a subscription package', params: idParams, response: { 200: okSchema, ...errors } } }, async (request) => {
    const { id } = request.params;
    await adminTx(db, request, async (trx, audit) => {
      const row = await trx.selectFrom('subscriptionPackages').select(['name', 'type']).where('id', '=', id).executeTakeFirst();
      if (!row) throw notFound('Package');
      await trx.deleteFrom('subscriptionPackages').where('id', '=', id).execute();
      await audit('package.delete', 'package', id, { ...row });
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
        const before = await trx.selectFrom('performers').select('commissionBps').where('id', '=', id).executeTakeFirst();
        if (!before) throw notFound('Performer');
        await trx.updateTable('performers').set({ commissionBps, updatedAt: nowIso() }).where('id', '=', id).execute();
        await audit('performer.commission', 'performer', id, { from: before.commissionBps, to: commissionBps });
      });
      return { _id: id, commissionBps };
    },
  );
}
