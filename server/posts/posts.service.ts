import { notFound } from '../http/errors.js';
import { canManage, loadAccessView, postSubject, type AccessView, type Viewer } from '../access/access.service.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { MARKED_VARIANT } from '../media/watermark/variant.js';
import { itemPage, type CatalogueDeps, type ItemList } from '../catalogue/catalogue.service.js';
import type { PostCard, PostDetail } from '../../common/schemas/catalogue.js';
import type { ListResult } from '../../common/schemas/http.js';
import { findPostByKey, listPublicPosts, type PostCardRow, type PostFilters } from './posts.repository.js';
import { toPostCard, toPostDetail } from './posts.mapper.js';

/**
 * Posts and pages. The site's posts and pages are free text. A performer's post carries up to ten pictures or one
 * video and opens like their videos (server/access: free, subscribers, or a purchase): while locked, only its title,
 * teaser (excerpt) and blurred previews show, never its text nor a sharp picture. A performer's posts are listed on
 * their page; the blog lists the site's own (`scope: 'site'`).
 */

/** Rows → what one viewer may see of them; `detail` loads every media file, a list only what its cards show. */
async function load(deps: CatalogueDeps, viewer: Viewer, rows: PostCardRow[], detail: boolean, given?: AccessView) {
  const [byPost, performers, access] = await Promise.all([
    deps.display.postMedia(deps.db, rows.filter((r) => r.performerId).map((r) => r.id)),
    deps.display.performerSummaries(deps.db, rows.flatMap((r) => (r.performerId ? [r.performerId] : []))),
    given ?? loadAccessView(deps.db, viewer, rows.map(postSubject)),
  ]);
  const shown = detail ? [...byPost.values()].flat() : [...byPost.values()].map((list) => list[0]!);
  const files = await deps.display.files(deps.db, [
    ...rows.map((r) => r.imageFileId),
    ...shown.flatMap((m) => [m.previewFileId, m.thumbFileId, m.displayFileId, m.kind === 'video' ? m.fileId : null]),
  ]);
  // A free post's picture in full is public: its watermarked copy (server/media/watermark/) has a public URL of its own.
  const marked = await deps.display.variants(deps.db, shown.map((m) => m.displayFileId), MARKED_VARIANT);
  return rows.map((r) => ({
    row: r,
    media: byPost.get(r.id) ?? [],
    performer: r.performerId ? performers.get(r.performerId) : undefined,
    x: { signer: deps.signer, viewer, files, marked, decision: access.decide(postSubject(r)) },
  }));
}

/** The public post list, in its two steps (see ItemList). */
export const postList: ItemList<PostFilters, PostCardRow, PostCard> = {
  rows: (deps, viewer, filters) => listPublicPosts(deps.db, filters, audienceOf(viewer, deps.country)),
  items: async (deps, viewer, rows, access) => (await load(deps, viewer, rows, false, access)).map((p) => toPostCard(p.row, p.media, p.performer, p.x)),
  subject: postSubject,
};

export async function searchPosts(deps: CatalogueDeps, viewer: Viewer, filters: PostFilters): Promise<ListResult<PostCard>> {
  return itemPage(deps, viewer, postList, filters);
}

/** A post or page public to this visitor; a performer's own posts (and every post, to admins) also while not public. */
export async function getPost(deps: CatalogueDeps, viewer: Viewer, key: string): Promise<PostDetail> {
  const row = await findPostByKey(deps.db, key, audienceOf(viewer, deps.country));
  if (!row || (Number(row.visible) !== 1 && !(viewer?.role === 'admin' || (row.performerId && canManage(viewer, row.performerId))))) throw notFound('Post');
  const [p] = await load(deps, viewer, [row], true);
  return toPostDetail(row, p!.media, p!.performer, p!.x);
}
