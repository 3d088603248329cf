import type { ApiApp } from '../http/types.js';
import { requireRole } from '../http/auth.js';
import { decodeCursor } from '../http/pagination.js';
import { catalogueDeps } from '../catalogue/catalogue.service.js';
import { videoItemSchema, videoSearchQuery, videoViewSchema } from '../../common/schemas/catalogue.js';
import { getOwnVideo, getVideo, searchVideos } from './videos.service.js';
import { recordVideoView } from './views.service.js';
import { byIp, limiter } from '../http/rate-limit.js';
import { apiErrorSchema, idParams, listSchema } from '../../common/schemas/http.js';
import type { Limit } from '../config.js';
import { route } from '../http/route.js';

/** Plays reported per IP: a person opens a few videos a minute at most; this only stops scripted inflation. */
export const VIEW_LIMIT: Limit = { max: 30, windowSec: 60 };

export async function videosRoutes(app: ApiApp): Promise<void> {
  app.get(
    '/user/assets/videos/search',
    route({
      access: 'public',
      tags: ['videos'],
      summary: 'Public videos, filtered by performer, tag, category or keyword (title, description, tags, categories; best match first unless sorted); locked ones carry previews and price only',
      querystring: videoSearchQuery,
      response: { 200: listSchema(videoItemSchema) },
    }),
    async (request) => searchVideos(catalogueDeps(app.ctx, request.country), request.user, { ...request.query, cursor: decodeCursor(request.query.cursor) }),
  );

  app.get(
    '/user/assets/videos/:id',
    route({
      access: 'public',
      tags: ['videos'],
      summary: 'A video by id or slug; `video` (a signed URL) only when the viewer may play it',
      params: idParams,
      response: { 200: videoItemSchema },
    }),
    async (request) => getVideo(catalogueDeps(app.ctx, request.country), request.user, request.params.id),
  );

  app.post(
    '/user/assets/videos/:id/views',
    {
      ...route({
        access: 'public',
        tags: ['videos'],
        summary: 'Count a play of the full video (the player sends it on the first play of a page)',
        description:
          'Counts when the caller may watch the full video (else `403 LOCKED`) and is not its performer or an admin, once per viewer (the user, or a guest by a keyed hash of the IP) and video per hour: `counted` says whether this call added one. `views` is the video\'s count after the call. No body.',
        params: idParams,
        response: { 200: videoViewSchema, 403: apiErrorSchema, 404: apiErrorSchema, 429: apiErrorSchema },
      }),
      onRequest: [limiter(app, 'video-view', VIEW_LIMIT, byIp, 'Too many plays, please slow down')],
    },
    async (request) => recordVideoView({ db: app.ctx.db, appSecret: app.ctx.config.appSecret }, request.user, request.params.id, { country: request.country, ip: request.ip }),
  );

  app.get(
    '/performer/assets/videos/:id/view',
    route({
      access: { roles: ['performer', 'admin'] },
      tags: ['videos', 'performer'],
      summary: "The performer's own video in any state (draft, scheduled, processing)",
      params: idParams,
      response: { 200: videoItemSchema },
    }),
    async (request) => getOwnVideo(catalogueDeps(app.ctx, request.country), requireRole(request, 'performer', 'admin'), request.params.id),
  );
}
