import { z } from 'zod';
import type { ApiApp } from '../http/types.js';
import { requireRole, requireUser } from '../http/auth.js';
import { decodeCursor, listSchema } from '../http/pagination.js';
import { apiErrorSchema } from '../http/schemas.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import { contentListQuery, contentStatusSchema, idParams, performerSummarySchema, statsSchema } from '../catalogue/catalogue.schemas.js';
import { getOwnProduct, getProduct, productDownloadLink, searchOwnProducts, searchProducts } from './products.service.js';

export const productItemSchema = z.object({
  _id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  performerId: z.string(),
  performer: performerSummarySchema.nullable(),
  type: z.enum(['physical', 'digital']),
  price: z.number().int(),
  stock: z.number().int().nullable(),
  image: z.string().nullable(),
  locked: z.boolean(),
  tags: z.array(z.string()),
  status: contentStatusSchema,
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  stats: statsSchema,
});

export const productSearchQuery = contentListQuery.extend({
  type: z.enum(['physical', 'digital']).optional(),
  /** Without `sort`: best match first when `q` is given (relevance), else newest. */
  sort: z.enum(['newest', 'popular', 'price', 'relevance']).optional(),
});
const ownProductSearchQuery = productSearchQuery.extend({ status: contentStatusSchema.optional() });

export const downloadLinkSchema = z.object({ downloadLink: z.string(), expiresAt: z.string(), fileName: z.string().nullable() });

export async function productsRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/user/assets/products/search',
    {
      config: { access: 'public' },
      schema: {
        tags: ['products'],
        summary: 'Public products, filtered by performer, type, tag, category or keyword (name, description, tags, categories; best match first unless sorted)',
        querystring: productSearchQuery,
        response: { 200: listSchema(productItemSchema) },
      },
    },
    async (request) => searchProducts(catalogueDeps(app.ctx, request.country), request.user, { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/user/assets/products/:id',
    { config: { access: 'public' }, schema: { tags: ['products'], summary: 'A product by id or slug', params: idParams, response: { 200: productItemSchema } } },
    async (request) => getProduct(catalogueDeps(app.ctx, request.country), request.user, request.params.id),
  );

  app.get(
    '/user/assets/products/:id/download-link',
    {
      config: { access: 'session' },
      schema: {
        tags: ['products'],
        summary: "A short-lived link to a digital product's file, for buyers (401 for guests, 403 for everyone else)",
        params: idParams,
        // 403 from the buyer check; the rest is derived (server/http/openapi.ts).
        response: { 200: downloadLinkSchema, 403: apiErrorSchema },
      },
    },
    async (request) => productDownloadLink(catalogueDeps(app.ctx, request.country), requireUser(request), request.params.id),
  );

  app.get(
    '/performer/assets/products/search',
    {
      config: { access: { roles: ['performer', 'admin'] } },
      schema: {
        tags: ['products', 'performer'],
        summary: "The performer's own products in every state (status filter optional)",
        querystring: ownProductSearchQuery,
        response: { 200: listSchema(productItemSchema) },
      },
    },
    async (request) =>
      searchOwnProducts(catalogueDeps(app.ctx, request.country), requireRole(request, 'performer', 'admin'), { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/performer/assets/products/:id/view',
    {
      config: { access: { roles: ['performer', 'admin'] } },
      schema: { tags: ['products', 'performer'], summary: "The performer's own product in any state", params: idParams, response: { 200: productItemSchema } },
    },
    async (request) => getOwnProduct(catalogueDeps(app.ctx, request.country), requireRole(request, 'performer', 'admin'), request.params.id),
  );
}
