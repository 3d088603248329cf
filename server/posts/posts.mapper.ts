import { previewUrl, type MediaFile } from '../catalogue/catalogue.repository.js';
import type { PostCard, PostDetail } from '../../common/api-types.js';
import type { PostCardRow } from './posts.repository.js';

export function toPostCard(r: PostCardRow, image: MediaFile | undefined): PostCard {
  return {
    _id: r.id,
    slug: r.slug,
    type: r.type,
    title: r.title,
    excerpt: r.excerpt,
    image: previewUrl(image),
    performerId: r.performerId,
    publishedAt: r.publishedAt,
    createdAt: r.createdAt,
    likeCount: r.likeCount,
    commentCount: r.commentCount,
  };
}

export function toPostDetail(r: PostCardRow & { content: string }, image: MediaFile | undefined): PostDetail {
  return { ...toPostCard(r, image), content: r.content };
}
