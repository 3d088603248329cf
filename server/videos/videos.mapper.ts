import type { AccessDecision } from '../access/access.service.js';
import { extend, itemStats, sellableItemHead } from '../catalogue/item-mapper.js';
import { parseTags, previewUrl, type MediaFile } from '../catalogue/catalogue.repository.js';
import type { PerformerSummary, SignedMedia, VideoItem } from '../../common/schemas/catalogue.js';
import type { VideoRow } from './videos.repository.js';

/** Row → `VideoItem`. `video` (the full file) is passed in only when `decision` opened it. */
export function toVideoItem(
  r: VideoRow,
  x: { performer: PerformerSummary | undefined; files: Map<string, MediaFile>; poster: MediaFile | undefined; decision: AccessDecision; video: SignedMedia | null },
): VideoItem {
  return extend(sellableItemHead(r, x.performer, x.decision), {
    thumbnail: previewUrl(r.thumbnailFileId ? x.files.get(r.thumbnailFileId) : undefined),
    poster: previewUrl(x.poster),
    teaser: previewUrl(r.teaserFileId ? x.files.get(r.teaserFileId) : undefined),
    video: x.decision.open ? x.video : null,
    duration: r.duration,
    tags: parseTags(r.tags),
    status: r.status,
    processingStatus: r.processingStatus,
    scheduledAt: r.scheduledAt,
    publishedAt: r.publishedAt,
    createdAt: r.createdAt,
    stats: itemStats(r),
  });
}
