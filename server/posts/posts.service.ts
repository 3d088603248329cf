import type { DbOrTrx } from '../db/database.js';
import { nowIso } from '../db/ids.js';
import { notFound } from '../http/errors.js';
import { loadFiles } from '../catalogue/catalogue.repository.js';
import type { ListResult, PostCard, PostDetail } from '../../common/api-types.js';
import { findPublicPost, listPublicPosts, type PostFilters } from './posts.repository.js';
import { toPostCard, toPostDetail } from './posts.mapper.js';

/** Posts and pages are public text: no access rules beyond being published. */
export async function searchPosts(db: DbOrTrx, filters: PostFilters): Promise<ListResult<PostCard>> {
  const { rows, total, nextCursor } = await listPublicPosts(db, filters, nowIso());
  const files = await loadFiles(db, rows.map((r) => r.imageFileId));
  return { items: rows.map((r) => toPostCard(r, r.imageFileId ? files.get(r.imageFileId) : undefined)), total, nextCursor };
}

export async function getPost(db: DbOrTrx, key: string): Promise<PostDetail> {
  const row = await findPublicPost(db, key, nowIso());
  if (!row) throw notFound('Post');
  const files = await loadFiles(db, [row.imageFileId]);
  return toPostDetail(row, row.imageFileId ? files.get(row.imageFileId) : undefined);
}
