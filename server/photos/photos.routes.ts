import type { ApiApp } from '../http/types.js';
import { badRequest } from '../http/errors.js';
import { idParams, listSchema } from '../../common/schemas/http.js';
import { decodeCursor } from '../http/pagination.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import { galleryPhotosQuery, photoItemSchema, photoSearchQuery } from '../../common/schemas/catalogue.js';
import { galleryPhotos, searchPhotos } from './photos.service.js';
import { route } from '../http/route.js';

export async function photosRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/user/assets/photos',
    route({
      access: 'public',
      tags: ['photos'],
      summary: 'Public photos of a gallery (galleryId) or of a performer (performerId); full photos only when unlocked',
      querystring: photoSearchQuery,
      response: { 200: listSchema(photoItemSchema) },
    }),
    async (request) => {
      const { galleryId, performerId, sort } = request.query;
      if (!galleryId && !performerId) throw badRequest('Give galleryId or performerId');
      return searchPhotos(catalogueDeps(app.ctx, request.country), request.user, {
        ...request.query,
        sort: sort ?? (galleryId ? 'position' : 'newest'),
        cursor: decodeCursor(request.query.cursor),
      });
    },
  );

  app.get(
    '/user/assets/gallery/:id/photos',
    route({
      access: 'public',
      tags: ['photos', 'galleries'],
      summary: 'The photos of a gallery (id or slug), in gallery order by default',
      params: idParams,
      querystring: galleryPhotosQuery,
      response: { 200: listSchema(photoItemSchema) },
    }),
    async (request) =>
      galleryPhotos(catalogueDeps(app.ctx, request.country), request.user, request.params.id, {
        ...request.query,
        sort: request.query.sort ?? 'position',
        cursor: decodeCursor(request.query.cursor),
      }),
  );
}
