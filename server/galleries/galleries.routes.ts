import type { ApiApp } from '../http/types.js';
import { idParams, listSchema } from '../../common/schemas/http.js';
import { decodeCursor } from '../http/pagination.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import { galleryItemSchema, gallerySearchQuery } from '../../common/schemas/catalogue.js';
import { getGallery, searchGalleries } from './galleries.service.js';
import { route } from '../http/route.js';

export async function galleriesRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/user/assets/galleries/search',
    route({
      access: 'public',
      tags: ['galleries'],
      summary: 'Public galleries, filtered by performer, tag, category or keyword (title, description, tags, categories; best match first unless sorted)',
      querystring: gallerySearchQuery,
      response: { 200: listSchema(galleryItemSchema) },
    }),
    async (request) => searchGalleries(catalogueDeps(app.ctx, request.country), request.user, { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/user/assets/galleries/:id/view',
    route({
      access: 'public',
      tags: ['galleries'],
      summary: 'A gallery by id or slug (its photos: GET /user/assets/gallery/{id}/photos)',
      params: idParams,
      response: { 200: galleryItemSchema },
    }),
    async (request) => getGallery(catalogueDeps(app.ctx, request.country), request.user, request.params.id),
  );
}
