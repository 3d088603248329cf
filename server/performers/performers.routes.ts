import type { ApiApp } from '../http/types.js';
import { idParams, listSchema } from '../../common/schemas/http.js';
import { performerCardSchema, performerProfileSchema, performerSearchQuery } from '../../common/schemas/catalogue.js';
import { decodeCursor } from '../http/pagination.js';
import { searchPerformers } from './performers.repository.js';
import { getPerformerProfile } from './performers.service.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { route } from '../http/route.js';

export async function performersRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/performers/search',
    route({
      access: 'public',
      tags: ['performers'],
      summary: 'Search performers by keyword (name, username, bio, tags, categories) or category; best match first for a keyword, or sorted by newest, popular or price',
      querystring: performerSearchQuery,
      response: { 200: listSchema(performerCardSchema) },
    }),
    async (request) =>
      searchPerformers(app.ctx.db, { ...request.query, audience: audienceOf(request.user, request.country), cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/performers/:id',
    route({
      access: 'public',
      tags: ['performers'],
      summary: "A performer's profile by id or username, with whether the viewer subscribes",
      params: idParams,
      response: { 200: performerProfileSchema },
    }),
    async (request) => getPerformerProfile(app.ctx.db, request.user, request.params.id, request.country),
  );

}
