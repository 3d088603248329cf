import type { DbOrTrx } from '../db/database.js';
import { notFound } from '../http/errors.js';
import { loadFiles, type Audience } from '../catalogue/catalogue.repository.js';
import type { ListResult, PostCard, PostDetail } from '../../common/api-types.js';
import { findPublicPost, listPublicPosts, type PostFilters } from './posts.repository.js';
import { toPostCard, toPostDetail } from './posts.mapper.js';

/**
 * Posts and pages are public text: no access rules beyond being published (a performer's posts follow their
 * country block, `audience`).
 */
export async function searchPosts(db: DbOrTrx, filters: PostFilters, audience: Audience): Promise<ListResult<PostCard>> {
  const { rows, total, nextCursor } = await listPublicPosts(db, filters, audience);
  const files = await loadFiles(db, rows.map((r) => r.imageFileId));
  return { items: rows.map((r) => toPostCard(r, r.imageFileId ? files.get(r.imageFileId) : undefined)), total, nextCursor };
}

export async function getPost(db: DbOrTrx, key: string, audience: Audience): Promise<PostDetail> {
  const row = await findPublicPost(db, key, audience);
  if (!row) throw notFound('Post');
  const files = await loadFiles(db, [row.imageFileId]);
  return toPostDetail(row, row.imageFileId ? files.get(row.imageFileId) : undefined);
}
