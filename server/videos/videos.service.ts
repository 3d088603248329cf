import { notFound } from '../http/errors.js';
import { canManage, loadAccessView, videoSubject, type Viewer } from '../access/access.service.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { foundItem, fullMedia, itemPage, type CatalogueDeps } from '../catalogue/catalogue.service.js';
import type { VideoItem } from '../../common/schemas/catalogue.js';
import type { ListResult } from '../../common/schemas/http.js';
import { findVideoByKey, listPublicVideos, type VideoFilters, type VideoRow } from './videos.repository.js';
import { toVideoItem } from './videos.mapper.js';

/** Rows → items for one viewer: performer cards, preview URLs, `locked`, and signed full-file URLs where open. */
async function toItems(deps: CatalogueDeps, viewer: Viewer, rows: VideoRow[]): Promise<VideoItem[]> {
  const [performers, files, posters, access] = await Promise.all([
    deps.display.performerSummaries(deps.db, rows.map((r) => r.performerId)),
    deps.display.files(deps.db, rows.flatMap((r) => [r.thumbnailFileId, r.teaserFileId, r.fileId])),
    deps.display.variants(deps.db, rows.map((r) => r.fileId), 'poster'),
    loadAccessView(deps.db, viewer, rows.map(videoSubject)),
  ]);
  return rows.map((r) => {
    const decision = access.decide(videoSubject(r));
    const video = decision.open && r.fileId ? fullMedia(deps.signer, viewer, { objectType: 'video', objectId: r.id }, files.get(r.fileId)) : null;
    return toVideoItem(r, { performer: performers.get(r.performerId), files, poster: r.fileId ? posters.get(r.fileId) : undefined, decision, video });
  });
}

export async function searchVideos(deps: CatalogueDeps, viewer: Viewer, filters: VideoFilters): Promise<ListResult<VideoItem>> {
  return itemPage(deps, viewer, await listPublicVideos(deps.db, filters, audienceOf(viewer, deps.country)), toItems);
}

/**
 * A video public to this visitor (a visitor from a country the performer blocks gets 404); its performer and admins
 * also get it while draft, scheduled or processing.
 */
export async function getVideo(deps: CatalogueDeps, viewer: Viewer, key: string): Promise<VideoItem> {
  return foundItem(deps, viewer, await findVideoByKey(deps.db, key, audienceOf(viewer, deps.country)), 'Video', toItems);
}

/** Performer studio: the performer's own video in any state (admins: any video). */
export async function getOwnVideo(deps: CatalogueDeps, viewer: NonNullable<Viewer>, key: string): Promise<VideoItem> {
  const row = await findVideoByKey(deps.db, key, audienceOf(viewer, deps.country));
  if (!row || !canManage(viewer, row.performerId)) throw notFound('Video');
  const [item] = await toItems(deps, viewer, [row]);
  return item!;
}
