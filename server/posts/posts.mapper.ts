import type { AccessDecision, Viewer } from '../access/access.service.js';
import { previewUrl, type MediaFile } from '../catalogue/catalogue.repository.js';
import { fullMedia } from '../catalogue/catalogue.service.js';
import { extend } from '../catalogue/item-mapper.js';
import type { MediaUrlSigner } from '../media/signed-urls.js';
import type { PerformerSummary, PostCard, PostDetail, PostMediaItem } from '../../common/schemas/catalogue.js';
import type { PostCardRow, PostMediaRow } from './posts.repository.js';

/** What turns a post's rows into API items for one viewer. */
export interface PostContext {
  signer: MediaUrlSigner;
  viewer: Viewer;
  files: Map<string, MediaFile>;
  /** Watermarked copies by the id of the file they stand for (a post picture's display file). */
  marked?: Map<string, MediaFile>;
  decision: AccessDecision;
}

/**
 * A file only those the post is open to may see (a picture in full, a locked post's sharp thumbnail): its public URL
 * when the pipeline stored it public (a free post's), else a URL signed for this viewer. Call only when open.
 */
function openFileUrl(x: PostContext, postId: string, fileId: string | null): string | null {
  const file = fileId ? x.files.get(fileId) : undefined;
  // A signed URL keeps naming the file itself: the media route serves its watermarked copy.
  return previewUrl((fileId && x.marked?.get(fileId)) || file) ?? fullMedia(x.signer, x.viewer, { objectType: 'post', objectId: postId }, file)?.url ?? null;
}

export function toPostMediaItem(m: PostMediaRow, x: PostContext): PostMediaItem {
  const open = x.decision.open;
  const preview = previewUrl(m.previewFileId ? x.files.get(m.previewFileId) : undefined);
  return {
    _id: m.id,
    kind: m.kind,
    width: m.width,
    height: m.height,
    duration: m.duration,
    processingStatus: m.processingStatus,
    preview,
    // A free post's preview is sharp; a locked one's is blurred and its sharp thumbnail private.
    thumbnail: open ? (m.thumbFileId ? openFileUrl(x, m.postId, m.thumbFileId) : preview) : null,
    image: open && m.kind === 'image' ? openFileUrl(x, m.postId, m.displayFileId) : null,
    video: open && m.kind === 'video' ? fullMedia(x.signer, x.viewer, { objectType: 'post', objectId: m.postId }, x.files.get(m.fileId)) : null,
  };
}

export function toPostCard(r: PostCardRow, media: readonly PostMediaRow[], performer: PerformerSummary | undefined, x: PostContext): PostCard {
  const first = media[0] ? toPostMediaItem(media[0], x) : null;
  const own = previewUrl(r.imageFileId ? x.files.get(r.imageFileId) : undefined);
  return {
    _id: r.id,
    slug: r.slug,
    type: r.type,
    title: r.title,
    excerpt: r.excerpt,
    image: (first ? (first.thumbnail ?? first.preview) : null) ?? own,
    performerId: r.performerId,
    performer: performer ?? null,
    access: r.access,
    price: r.access === 'sale' ? r.price : 0,
    locked: !x.decision.open,
    imageCount: media.filter((m) => m.kind === 'image').length,
    hasVideo: media.some((m) => m.kind === 'video'),
    status: r.status,
    publishedAt: r.publishedAt,
    createdAt: r.createdAt,
    likeCount: r.likeCount,
    favouriteCount: r.favouriteCount,
    commentCount: r.commentCount,
  };
}

export function toPostDetail(r: PostCardRow & { content: string }, media: readonly PostMediaRow[], performer: PerformerSummary | undefined, x: PostContext): PostDetail {
  return extend(toPostCard(r, media, performer, x), {
    // The text is what is sold, like the media: a locked post shows only its teaser (excerpt).
    content: x.decision.open ? r.content : null,
    media: media.map((m) => toPostMediaItem(m, x)),
  });
}
