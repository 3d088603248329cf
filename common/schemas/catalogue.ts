import { z } from 'zod';
import {
  accessSchema, categoryGroupSchema, contentStatusSchema, mediaKindSchema, postStatusSchema, postTypeSchema, processingStatusSchema,
  productTypeSchema,
} from '../enums.js';
import { keyField, pageQuery } from './http.js';

/**
 * The catalogue's read API: performers, videos, galleries, photos, products, posts, categories; the
 * routes are in server/<kind>/<kind>.routes.ts. What a viewer may open is decided by server/access; a locked item
 * carries its public parts (previews, price) and no signed file.
 */

/** Filters every content list takes. */
export const contentListQuery = pageQuery.extend({
  q: z.string().trim().max(100).optional(),
  performerId: keyField.optional(),
  tag: z.string().trim().toLowerCase().min(1).max(50).optional(),
  categoryId: keyField.optional(),
});

/** The performer shown on a content card. */
export const performerSummarySchema = z.object({ _id: z.string(), username: z.string(), name: z.string(), avatar: z.string() });
export type PerformerSummary = z.output<typeof performerSummarySchema>;

/**
 * A protected file (full video, full photo, digital download): a short-lived URL signed for the viewer.
 * Present only when the item is unlocked for that viewer; it stops opening at `expiresAt` (fetch the item
 * again for a fresh one).
 */
export const signedMediaSchema = z.object({
  url: z.string(),
  expiresAt: z.string(),
  mime: z.string(),
  size: z.number(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  duration: z.number().nullable(),
});
export type SignedMedia = z.output<typeof signedMediaSchema>;

export const statsSchema = z.object({ views: z.number().int(), likes: z.number().int(), favourites: z.number().int(), comments: z.number().int() });
export type ContentStats = z.output<typeof statsSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Videos

/** What a video and a gallery both show first. */
const itemSchema = z.object({
  _id: z.string(),
  slug: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  performerId: z.string(),
  performer: performerSummarySchema.nullable(),
  access: accessSchema,
  isSale: z.boolean(),
  /** Minor units; 0 unless the item is for sale. */
  price: z.number().int(),
  /** True when this viewer may not open the item in full (a video: `video` is then null; a gallery: its full photos). */
  locked: z.boolean(),
});

export const videoItemSchema = itemSchema.extend({
  /** Public preview images and clip, always present when they exist. */
  thumbnail: z.string().nullable(),
  poster: z.string().nullable(),
  teaser: z.string().nullable(),
  video: signedMediaSchema.nullable(),
  duration: z.number().nullable(),
  tags: z.array(z.string()),
  status: contentStatusSchema,
  processingStatus: processingStatusSchema,
  scheduledAt: z.string().nullable(),
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  stats: statsSchema,
});
export type VideoItem = z.output<typeof videoItemSchema>;

/** Without `sort`: best match first when `q` is given (relevance), else newest. */
export const videoSearchQuery = contentListQuery.extend({ sort: z.enum(['newest', 'popular', 'price', 'relevance']).optional() });

/** `POST /user/assets/videos/{id}/views`: whether this play was counted, and the video's count after it. */
export const videoViewSchema = z.object({ counted: z.boolean(), views: z.number().int() });
export type VideoView = z.output<typeof videoViewSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Galleries and photos

export const galleryItemSchema = itemSchema.extend({
  /** Thumbnail of the cover photo (public). */
  cover: z.string().nullable(),
  photoCount: z.number().int(),
  tags: z.array(z.string()),
  status: contentStatusSchema,
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  stats: statsSchema,
});
export type GalleryItem = z.output<typeof galleryItemSchema>;

/** Without `sort`: best match first when `q` is given (relevance), else newest. */
export const gallerySearchQuery = contentListQuery.extend({ sort: z.enum(['newest', 'popular', 'price', 'relevance']).optional() });

export const photoItemSchema = z.object({
  _id: z.string(),
  galleryId: z.string().nullable(),
  performerId: z.string(),
  title: z.string().nullable(),
  position: z.number().int(),
  /** The gallery's access and price (a photo outside a gallery is for subscribers). */
  access: accessSchema,
  price: z.number().int(),
  locked: z.boolean(),
  /**
   * The thumbnail. A public preview, blurred by the pipeline while the photo's gallery is locked (its cover excepted);
   * for a viewer who may open such a photo, a short-lived URL of its sharp thumbnail signed for them
   * (`/media/protected/photo/...`, like `photo`).
   */
  thumbnail: z.string().nullable(),
  photo: signedMediaSchema.nullable(),
  processingStatus: processingStatusSchema,
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type PhotoItem = z.output<typeof photoItemSchema>;

/** `GET /user/assets/gallery/{id}/photos` */
export const galleryPhotosQuery = pageQuery.extend({
  q: z.string().trim().max(100).optional(),
  tag: z.string().trim().toLowerCase().min(1).max(50).optional(),
  categoryId: keyField.optional(),
  sort: z.enum(['position', 'newest']).optional(),
});
/** `GET /user/assets/photos`: of a gallery or of a performer. */
export const photoSearchQuery = galleryPhotosQuery.extend({ galleryId: keyField.optional(), performerId: keyField.optional() });

// ---------------------------------------------------------------------------------------------------------------
// Products

export const productItemSchema = z.object({
  _id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  performerId: z.string(),
  performer: performerSummarySchema.nullable(),
  type: productTypeSchema,
  price: z.number().int(),
  stock: z.number().int().nullable(),
  image: z.string().nullable(),
  /** Digital products: true until bought (the file comes from `GET /user/assets/products/{id}/download-link`). Physical: false. */
  locked: z.boolean(),
  tags: z.array(z.string()),
  status: contentStatusSchema,
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  stats: statsSchema,
});
export type ProductItem = z.output<typeof productItemSchema>;

export const productSearchQuery = contentListQuery.extend({
  type: productTypeSchema.optional(),
  /** Without `sort`: best match first when `q` is given (relevance), else newest. */
  sort: z.enum(['newest', 'popular', 'price', 'relevance']).optional(),
});
/** The performer's own products, in every state. */
export const ownProductSearchQuery = productSearchQuery.extend({ status: contentStatusSchema.optional() });

export const downloadLinkSchema = z.object({ downloadLink: z.string(), expiresAt: z.string(), fileName: z.string().nullable() });
export type DownloadLink = z.output<typeof downloadLinkSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Posts

export const postCardSchema = z.object({
  _id: z.string(),
  slug: z.string(),
  type: postTypeSchema,
  title: z.string(),
  /** The teaser: shown to everyone, also while the post is locked. */
  excerpt: z.string().nullable(),
  /** The card's picture: the first media's (sharp when open to this viewer, else its blurred preview), or a site post's own. */
  image: z.string().nullable(),
  /** Null for the site's own posts and pages. */
  performerId: z.string().nullable(),
  performer: performerSummarySchema.nullable(),
  /** Site posts and pages are free; a performer's post may be for subscribers or for sale. */
  access: accessSchema,
  /** Minor units; 0 unless the post is for sale. */
  price: z.number().int(),
  /** True when this viewer may not read the text nor see the media in full. */
  locked: z.boolean(),
  imageCount: z.number().int(),
  hasVideo: z.boolean(),
  status: postStatusSchema,
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  likeCount: z.number().int(),
  favouriteCount: z.number().int(),
  commentCount: z.number().int(),
});
export type PostCard = z.output<typeof postCardSchema>;

/** A picture or the video of a performer's post. */
export const postMediaSchema = z.object({
  _id: z.string(),
  kind: mediaKindSchema,
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  /** Seconds (videos). */
  duration: z.number().nullable(),
  processingStatus: processingStatusSchema,
  /** Public preview: a thumbnail or the video's poster, blurred while the post is locked (for everyone). */
  preview: z.string().nullable(),
  /** Sharp thumbnail or poster, when the post is open to this viewer (the preview itself for a free post). */
  thumbnail: z.string().nullable(),
  /** Pictures: the picture in full, when open (a public URL for a free post, else signed for this viewer). */
  image: z.string().nullable(),
  /** The video, when open (signed for this viewer). */
  video: signedMediaSchema.nullable(),
});
export type PostMediaItem = z.output<typeof postMediaSchema>;

export const postDetailSchema = postCardSchema.extend({
  /** HTML as stored (written by admins and performers): pages must sanitise it before rendering. Null while locked. */
  content: z.string().nullable(),
  /** A performer's post: its pictures or video, in order (previews only while locked). */
  media: z.array(postMediaSchema),
});
export type PostDetail = z.output<typeof postDetailSchema>;

export const postSearchQuery = contentListQuery.extend({
  type: postTypeSchema.default('post'),
  /** Without `sort`: best match first when `q` is given (relevance), else newest. */
  sort: z.enum(['newest', 'popular', 'relevance']).optional(),
  scope: z.enum(['site', 'all']).default('all'),
});

// ---------------------------------------------------------------------------------------------------------------
// Performers and categories

export const performerCardSchema = z.object({
  _id: z.string(),
  username: z.string(),
  name: z.string(),
  avatar: z.string(),
  cover: z.string().nullable(),
  bio: z.string().nullable(),
  monthlyPrice: z.number().int(),
  yearlyPrice: z.number().int(),
  subscriberCount: z.number().int(),
  videoCount: z.number().int(),
  isFeatured: z.boolean(),
});
export type PerformerCard = z.output<typeof performerCardSchema>;

/** `GET /performers/{id}`: the profile page's data. */
export const performerProfileSchema = performerCardSchema.extend({
  gender: z.string().nullable(),
  country: z.string().nullable(),
  photoCount: z.number().int(),
  galleryCount: z.number().int(),
  productCount: z.number().int(),
  likeCount: z.number().int(),
  viewCount: z.number().int(),
  categories: z.array(z.object({ _id: z.string(), name: z.string(), slug: z.string() })),
  tags: z.array(z.string()),
  createdAt: z.string(),
  /** Whether the viewer has a live subscription to this performer (false for guests). */
  isSubscribed: z.boolean(),
  /** Whether the viewer follows this performer (false for guests); docs/product.md, Follows and the feed. */
  isFollowing: z.boolean(),
  /** How many accounts follow this performer. */
  followerCount: z.number().int(),
});
export type PerformerProfile = z.output<typeof performerProfileSchema>;

export const performerSearchQuery = pageQuery.extend({
  q: z.string().trim().max(100).optional(),
  categoryId: z.string().max(64).optional(),
  featured: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
  /** Without `sort`: best match first when `q` is given (relevance; ties: most subscribers), else newest. */
  sort: z.enum(['newest', 'popular', 'price', 'relevance']).optional(),
});

export const categoryItemSchema = z.object({
  _id: z.string(),
  name: z.string(),
  slug: z.string(),
  group: categoryGroupSchema,
  description: z.string().nullable(),
  ordering: z.number().int(),
});
export type CategoryItem = z.output<typeof categoryItemSchema>;

export const categorySearchQuery = pageQuery.extend({
  group: categoryGroupSchema.optional(),
  q: z.string().trim().max(100).optional(),
  sort: z.enum(['ordering', 'name']).default('ordering'),
});

// ---------------------------------------------------------------------------------------------------------------
// Cards

/**
 * What a listing card shows (src/islands/catalogue/cards.tsx). A list island's server-rendered first page holds
 * only these fields: every field of its props is serialised into the page's HTML (a full video item is ~1.7 KB
 * there), while the items "Load more" fetches are full items, which fit the same types.
 */
type CardPerformer = Pick<PerformerSummary, 'username' | 'name'> | null;
export type VideoCardData = Pick<VideoItem, '_id' | 'title' | 'thumbnail' | 'poster' | 'duration' | 'locked' | 'access' | 'price'> & {
  performer: CardPerformer;
  stats: Pick<ContentStats, 'views'>;
};
export type GalleryCardData = Pick<GalleryItem, '_id' | 'title' | 'cover' | 'photoCount' | 'locked' | 'access' | 'price'> & { performer: CardPerformer };
export type ProductCardData = Pick<ProductItem, '_id' | 'name' | 'image' | 'type' | 'price' | 'stock'>;
export type PhotoCardData = Pick<PhotoItem, '_id' | 'title' | 'thumbnail' | 'locked' | 'access' | 'price' | 'photo' | 'galleryId'>;
export type PostCardData = Pick<PostCard, '_id' | 'title' | 'image' | 'excerpt' | 'publishedAt' | 'createdAt' | 'locked' | 'access' | 'price' | 'imageCount' | 'hasVideo'>;
export type PerformerCardData = Pick<PerformerCard, '_id' | 'username' | 'name' | 'avatar' | 'cover' | 'videoCount' | 'monthlyPrice'>;
