import type {
  DownloadLink, GalleryItem, PerformerCard, PhotoItem, PostCard, PostDetail, ProductItem, VideoItem, VideoView,
} from '../../../common/schemas/catalogue.js';
import type { ListResult } from '../../../common/schemas/http.js';
import type { SearchTotals } from '../../../common/schemas/site.js';
import { apiFetch, type ListQuery } from './transport.js';

/** The catalogue: the lists a load-more island pages through, by kind, and single items. */
export const catalogue = {
  videos: (q: ListQuery = {}) => apiFetch<ListResult<VideoItem>>('/user/assets/videos/search', { query: q }),
  video: (id: string) => apiFetch<VideoItem>(`/user/assets/videos/${encodeURIComponent(id)}`),
  /** A play of the full video, counted once per viewer and hour (server/videos/views.service.ts). */
  videoPlayed: (id: string) => apiFetch<VideoView>(`/user/assets/videos/${encodeURIComponent(id)}/views`, { method: 'POST' }),
  galleries: (q: ListQuery = {}) => apiFetch<ListResult<GalleryItem>>('/user/assets/galleries/search', { query: q }),
  photos: (q: ListQuery = {}) => apiFetch<ListResult<PhotoItem>>('/user/assets/photos', { query: q }),
  galleryPhotos: (id: string, q: ListQuery = {}) => apiFetch<ListResult<PhotoItem>>(`/user/assets/gallery/${encodeURIComponent(id)}/photos`, { query: q }),
  products: (q: ListQuery = {}) => apiFetch<ListResult<ProductItem>>('/user/assets/products/search', { query: q }),
  product: (id: string) => apiFetch<ProductItem>(`/user/assets/products/${encodeURIComponent(id)}`),
  productDownload: (id: string) => apiFetch<DownloadLink>(`/user/assets/products/${encodeURIComponent(id)}/download-link`),
  posts: (q: ListQuery = {}) => apiFetch<ListResult<PostCard>>('/posts/search', { query: q }),
  post: (id: string) => apiFetch<PostDetail>(`/posts/${encodeURIComponent(id)}`),
  performers: (q: ListQuery = {}) => apiFetch<ListResult<PerformerCard>>('/performers/search', { query: q }),
  searchTotal: (q: string) => apiFetch<SearchTotals>('/search/total', { query: { q } }),
};
