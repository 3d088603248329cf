import type { ApiApp } from '../http/types.js';
import { requireRole, requireUser } from '../http/auth.js';
import { decodeCursor } from '../http/pagination.js';
import { apiErrorSchema, idParams, listSchema } from '../../common/schemas/http.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import { downloadLinkSchema, ownProductSearchQuery, productItemSchema, productSearchQuery } from '../../common/schemas/catalogue.js';
import { getOwnProduct, getProduct, productDownloadLink, searchOwnProducts, searchProducts } from './products.service.js';
import { route } from '../http/route.js';

export async function productsRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/user/assets/products/search',
    route({
      access: 'public',
      tags: ['products'],
      summary: 'Public products, filtered by performer, type, tag, category or keyword (name, description, tags, categories; best match first unless sorted)',
      querystring: productSearchQuery,
      response: { 200: listSchema(productItemSchema) },
    }),
    async (request) => searchProducts(catalogueDeps(app.ctx, request.country), request.user, { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/user/assets/products/:id',
    route({ access: 'public', tags: ['products'], summary: 'A product by id or slug', params: idParams, response: { 200: productItemSchema } }),
    async (request) => getProduct(catalogueDeps(app.ctx, request.country), request.user, request.params.id),
  );

  app.get(
    '/user/assets/products/:id/download-link',
    route({
      access: 'session',
      tags: ['products'],
      summary: "A short-lived link to a digital product's file, for buyers (401 for guests, 403 for everyone else)",
      params: idParams,
      // 403 from the buyer check; the rest is derived (server/http/openapi.ts).
      response: { 200: downloadLinkSchema, 403: apiErrorSchema },
    }),
    async (request) => productDownloadLink(catalogueDeps(app.ctx, request.country), requireUser(request), request.params.id),
  );

  app.get(
    '/performer/assets/products/search',
    route({
      access: { roles: ['performer', 'admin'] },
      tags: ['products', 'performer'],
      summary: "The performer's own products in every state (status filter optional)",
      querystring: ownProductSearchQuery,
      response: { 200: listSchema(productItemSchema) },
    }),
    async (request) =>
      searchOwnProducts(catalogueDeps(app.ctx, request.country), requireRole(request, 'performer', 'admin'), { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/performer/assets/products/:id/view',
    route({
      access: { roles: ['performer', 'admin'] },
      tags: ['products', 'performer'],
      summary: "The performer's own product in any state",
      params: idParams,
      response: { 200: productItemSchema },
    }),
    async (request) => getOwnProduct(catalogueDeps(app.ctx, request.country), requireRole(request, 'performer', 'admin'), request.params.id),
  );
}
