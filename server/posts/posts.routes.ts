import type { ApiApp } from '../http/types.js';
import { idParams, listSchema } from '../../common/schemas/http.js';
import { decodeCursor } from '../http/pagination.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import { postCardSchema, postDetailSchema, postSearchQuery } from '../../common/schemas/catalogue.js';
import { getPost, searchPosts } from './posts.service.js';
import { route } from '../http/route.js';

export async function postsRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/posts/search',
    route({
      access: 'public',
      tags: ['posts'],
      summary: "Published posts (or pages, type=page), newest or most liked first, or best match first for a keyword (title, excerpt, tags, categories): one performer's (performerId), the site's own (scope=site, the blog) or all",
      querystring: postSearchQuery,
      response: { 200: listSchema(postCardSchema) },
    }),
    async (request) => searchPosts(catalogueDeps(app.ctx, request.country), request.user, { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/posts/:id',
    route({
      access: 'public',
      tags: ['posts'],
      summary: "A published post or page by id or slug; a performer's locked post without its text and with blurred previews only",
      params: idParams,
      response: { 200: postDetailSchema },
    }),
    async (request) => getPost(catalogueDeps(app.ctx, request.country), request.user, request.params.id),
  );
}
