import { notFound } from '../http/errors.js';
import { accessViewOfRows, canManage, loadAccessView, mayFind, videoSubject, type AccessView, type HeldColumns, type Viewer } from '../access/access.service.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { foundItem, fullMedia, itemPage, type CatalogueDeps, type ItemList } from '../catalogue/catalogue.service.js';
import type { VideoItem } from '../../common/schemas/catalogue.js';
import type { VideoViewer } from '../../common/schemas/member-shell.js';
import { subscriptionOffer } from '../subscriptions/subscriptions.service.js';
import type { ListResult } from '../../common/schemas/http.js';
import { findVideoByKey, findVideoForViewer, listPublicVideos, plainFilters, type VideoFilters, type VideoRow } from './videos.repository.js';
import { toVideoItem } from './videos.mapper.js';

/** Rows → items for one viewer: performer cards, preview URLs, `locked`, and signed full-file URLs where open. */
async function toItems(deps: CatalogueDeps, viewer: Viewer, rows: VideoRow[], given?: AccessView): Promise<VideoItem[]> {
  const [performers, files, posters, access] = await Promise.all([
    deps.display.performerSummaries(deps.db, rows.map((r) => r.performerId)),
    deps.display.files(deps.db, rows.flatMap((r) => [r.thumbnailFileId, r.teaserFileId, r.fileId])),
    deps.display.variants(deps.db, rows.map((r) => r.fileId), 'poster'),
    given ?? loadAccessView(deps.db, viewer, rows.map(videoSubject)),
  ]);
  return rows.map((r) => {
    const decision = access.decide(videoSubject(r));
    const video = decision.open && r.fileId ? fullMedia(deps.signer, viewer, { objectType: 'video', objectId: r.id }, files.get(r.fileId)) : null;
    return toVideoItem(r, { performer: performers.get(r.performerId), files, poster: r.fileId ? posters.get(r.fileId) : undefined, decision, video });
  });
}

/** The public video list, in its two steps (see ItemList). */
export const videoList: ItemList<VideoFilters, VideoRow, VideoItem> = {
  rows: async (deps, viewer, filters) => {
    // A signed-in viewer's holdings come with the page's rows where its statement can read them (plain filters).
    const holder = viewer && viewer.role !== 'admin' && plainFilters(filters) ? viewer.id : undefined;
    const page = await listPublicVideos(deps.db, filters, audienceOf(viewer, deps.country), holder);
    return holder === undefined ? page : { ...page, access: accessViewOfRows(viewer, page.rows as Array<VideoRow & HeldColumns>, videoSubject) };
  },
  items: toItems,
  subject: videoSubject,
};

export async function searchVideos(deps: CatalogueDeps, viewer: Viewer, filters: VideoFilters): Promise<ListResult<VideoItem>> {
  return itemPage(deps, viewer, videoList, filters);
}

/**
 * A video public to this visitor (a visitor from a country the performer blocks gets 404); its performer and admins
 * also get it while draft, scheduled or processing.
 */
export async function getVideo(deps: CatalogueDeps, viewer: Viewer, key: string): Promise<VideoItem> {
  return foundItem(deps, viewer, await findVideoByKey(deps.db, key, audienceOf(viewer, deps.country)), 'Video', toItems);
}

/**
 * The signed-in visitor's own state on a video's page (`GET /users/me/header?video=`): whether it is open to them,
 * with the full file signed for them alone, the plans that open it as the checkout would charge them, what they
 * reacted. Found as `getVideo` finds the video: null for a page the visitor may not see.
 */
export async function getVideoViewer(deps: CatalogueDeps, viewer: NonNullable<Viewer>, key: string): Promise<VideoViewer | null> {
  const row = await findVideoForViewer(deps.db, key, audienceOf(viewer, deps.country), viewer.id);
  if (!row || !mayFind(viewer, row.visible, row.performerId)) return null;
  const [access, files] = await Promise.all([loadAccessView(deps.db, viewer, [videoSubject(row)]), row.fileId ? deps.display.files(deps.db, [row.fileId]) : undefined]);
  const open = access.decide(videoSubject(row)).open;
  const media = open && row.fileId ? fullMedia(deps.signer, viewer, { objectType: 'video', objectId: row.id }, files?.get(row.fileId)) : null;
  const offer = !open && row.access === 'subscribers' ? await subscriptionOffer(deps.db, row.performerId, viewer.id, { packages: deps.display.sitePackages }) : null;
  return {
    videoId: row.id,
    self: viewer.id === row.performerId,
    locked: !open,
    media,
    offer,
    // 0/1 on SQLite, booleans on PostgreSQL.
    reacted: { like: Number(row.reactedLike) === 1, favourite: Number(row.reactedFavourite) === 1, watch_later: Number(row.reactedWatchLater) === 1 },
  };
}

/** Performer studio: the performer's own video in any state (admins: any video). */
export async function getOwnVideo(deps: CatalogueDeps, viewer: NonNullable<Viewer>, key: string): Promise<VideoItem> {
  const row = await findVideoByKey(deps.db, key, audienceOf(viewer, deps.country));
  if (!row || !canManage(viewer, row.performerId)) throw notFound('Video');
  const [item] = await toItems(deps, viewer, [row]);
  return item!;
}
