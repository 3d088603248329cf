import type { ProductItem } from '../../../common/schemas/catalogue.js';
import type { ListResult } from '../../../common/schemas/http.js';
import type { PayoutBalance, PayoutDetailsAnswer, PayoutDetailsChanges, PayoutDetailsView, PayoutRequest, Promotion, PromotionInput } from '../../../common/schemas/money.js';
import type {
  GalleryChanges, PhotoChanges, PostChanges, ProcessingState, ProductChanges, ProfileChanges, StudioGallery, StudioPhoto, StudioPost, StudioProduct,
  StudioProfile, StudioVideo, VideoChanges,
} from '../../../common/schemas/studio.js';
import { apiFetch, type ListQuery } from './transport.js';

/*
 * The performer studio's endpoints, apart from the clients every page's stores load (index.ts) so that pages without
 * the studio (every guest page) do not ship them. Uploads with progress go through upload.ts.
 */

export const studioApi = {
  profile: () => apiFetch<StudioProfile>('/performer/profile'),
  updateProfile: (body: ProfileChanges) =>
    apiFetch<StudioProfile>('/performer/profile', { method: 'PUT', body: { ...body } }),
  promotions: () => apiFetch<{ items: Promotion[] }>('/performer/promotions'),
  createPromotion: (body: PromotionInput) => apiFetch<Promotion>('/performer/promotions', { method: 'POST', body: { ...body } }),
  endPromotion: (id: string) => apiFetch<Promotion>(`/performer/promotions/${encodeURIComponent(id)}/end`, { method: 'POST' }),
  videos: (q: ListQuery = {}) => apiFetch<ListResult<StudioVideo>>('/performer/assets/videos/search', { query: q }),
  /** `PUT /performer/assets/videos/{id}`: only the fields sent change (price in minor units, `scheduledAt` null clears). */
  updateVideo: (id: string, body: VideoChanges) => apiFetch<StudioVideo>(`/performer/assets/videos/${encodeURIComponent(id)}`, { method: 'PUT', body: { ...body } }),
  deleteVideo: (id: string) => apiFetch<void>(`/performer/assets/videos/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  retryVideo: (id: string) => apiFetch<StudioVideo>(`/performer/assets/videos/${encodeURIComponent(id)}/retry`, { method: 'POST' }),
  videoProcessing: (id: string) => apiFetch<ProcessingState>(`/performer/assets/videos/${encodeURIComponent(id)}/processing`),
  galleries: (q: ListQuery = {}) => apiFetch<ListResult<StudioGallery>>('/performer/assets/galleries/search', { query: q }),
  createGallery: (body: GalleryChanges) => apiFetch<StudioGallery>('/performer/assets/galleries', { method: 'POST', body: { ...body } }),
  updateGallery: (id: string, body: GalleryChanges) => apiFetch<StudioGallery>(`/performer/assets/galleries/${encodeURIComponent(id)}`, { method: 'PUT', body: { ...body } }),
  updatePhoto: (id: string, body: PhotoChanges) =>
    apiFetch<StudioPhoto>(`/performer/assets/photos/${encodeURIComponent(id)}`, { method: 'PUT', body: { ...body } }),
  deleteGallery: (id: string) => apiFetch<void>(`/performer/assets/galleries/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  products: (q: ListQuery = {}) => apiFetch<ListResult<ProductItem>>('/performer/assets/products/search', { query: q }),
  /** Fields only, as JSON (a new picture or file goes through `upload` with method PUT). */
  updateProduct: (id: string, body: ProductChanges) => apiFetch<StudioProduct>(`/performer/assets/products/${encodeURIComponent(id)}`, { method: 'PUT', body: { ...body } }),
  deleteProduct: (id: string) => apiFetch<void>(`/performer/assets/products/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  posts: (q: ListQuery = {}) => apiFetch<ListResult<StudioPost>>('/performer/assets/posts/search', { query: q }),
  createPost: (body: PostChanges) => apiFetch<StudioPost>('/performer/assets/posts', { method: 'POST', body: { ...body } }),
  updatePost: (id: string, body: PostChanges) => apiFetch<StudioPost>(`/performer/assets/posts/${encodeURIComponent(id)}`, { method: 'PUT', body: { ...body } }),
  deletePost: (id: string) => apiFetch<void>(`/performer/assets/posts/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  payoutDetails: () => apiFetch<PayoutDetailsAnswer>('/performer/payout-details'),
  /** Answered masked; a 400 names the field that is wrong (IBAN check digits, SWIFT/BIC, routing number, country). */
  savePayoutDetails: (body: PayoutDetailsChanges) => apiFetch<PayoutDetailsView>('/performer/payout-details', { method: 'PUT', body: { ...body } }),
  payoutBalance: () => apiFetch<PayoutBalance>('/performer/payouts/balance'),
  payouts: (q: ListQuery = {}) => apiFetch<ListResult<PayoutRequest>>('/performer/payouts', { query: q }),
  /** The whole available balance; 409 PAYOUT_OPEN / PAYOUT_DETAILS_MISSING, 400 BELOW_MINIMUM. */
  requestPayout: () => apiFetch<PayoutRequest>('/performer/payouts', { method: 'POST', body: {} }),
};

