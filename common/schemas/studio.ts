import { countries } from 'countries-list';
import { z } from 'zod';
import { MAX_OFFER_BPS, MAX_TRIAL_DAYS } from '../offers.js';
import {
  accessSchema, contentStatusSchema, imageStatusSchema, mediaKindSchema, performerContentStatusSchema, postStatusSchema, processingStatusSchema,
  productTypeSchema,
} from '../enums.js';
import { pageQuery } from './http.js';

/**
 * Request and response shapes of the performer studio (server/studio/studio.routes.ts). Inputs accept
 * JSON or multipart/form-data text fields alike: numbers may come as strings, lists as repeated fields,
 * a JSON array or comma-separated text, and "" clears an optional value.
 */

const MAX_PRICE = 100_000_000; // minor units: 1,000,000.00

/*
 * The input types (`z.input`, what a client sends) are written on the preprocessing functions: a typed client sends
 * numbers and lists, a form sends the same as text.
 */

/** Form text "" means "not given". */
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

function intField(min: number, max: number, what: string) {
  return z.preprocess(
    (v: number | string | undefined) => {
      const b = blankToUndefined(v);
      return typeof b === 'string' && /^-?\d+$/.test(b.trim()) ? Number(b.trim()) : b;
    },
    z
      .number({ error: `${what} must be a whole number` })
      .int(`${what} must be a whole number (minor units, e.g. cents)`)
      .min(min, `${what} must be at least ${min}`)
      .max(max, `${what} must be at most ${max}`)
      .optional(),
  );
}

function listField<T extends z.ZodTypeAny>(item: T, max: number, what: string) {
  return z.preprocess(
    (v: Array<z.input<T>> | string | null | undefined) => {
      if (v === undefined || v === null) return undefined;
      const parts = (Array.isArray(v) ? v : [v]).flatMap((x) => {
        if (typeof x !== 'string') return [x];
        const s = x.trim();
        if (!s) return [];
        if (s.startsWith('[')) {
          try {
            const parsed = JSON.parse(s);
            return Array.isArray(parsed) ? parsed : [x];
          } catch {
            return [x];
          }
        }
        return s.split(',').map((p) => p.trim()).filter(Boolean);
      });
      return parts;
    },
    z.array(item).max(max, `At most ${max} ${what}`).optional(),
  );
}

const tagsField = listField(
  z
    .string({ error: 'A tag must be text' })
    .trim()
    .toLowerCase()
    .min(1, 'A tag cannot be empty')
    .max(40, 'A tag must be at most 40 characters'),
  20,
  'tags',
).transform((tags) => (tags ? [...new Set(tags)] : tags));

const categoryIdsField = listField(z.string({ error: 'A category id must be text' }).min(1).max(64), 10, 'categories').transform((ids) =>
  ids ? [...new Set(ids)] : ids,
);

const textField = (max: number, what: string) =>
  z.preprocess(
    (v: string | null | undefined) => (v === null ? null : v),
    z
      .string({ error: `${what} must be text` })
      .trim()
      .max(max, `${what} must be at most ${max} characters`)
      .transform((s) => s || null)
      .nullable()
      .optional(),
  );

const titleField = (what = 'Title', max = 200) =>
  z.string({ error: `${what} must be text` }).trim().min(1, `${what} cannot be empty`).max(max, `${what} must be at most ${max} characters`).optional();

/** An ISO-8601 date-time (any offset), normalised to UTC; "" or null clears it. */
const dateTimeField = z.preprocess(
  (v: string | null | undefined) => (typeof v === 'string' && v.trim() === '' ? null : v),
  z
    .string({ error: 'Must be an ISO-8601 date-time, e.g. 2030-01-31T18:00:00Z' })
    .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)), 'Must be an ISO-8601 date-time with a time zone, e.g. 2030-01-31T18:00:00Z')
    .transform((s) => new Date(s).toISOString())
    .nullable()
    .optional(),
);

export const visibilityField = z.enum(accessSchema.options, { error: 'Visibility must be free, subscribers or sale' });
/** A performer sets active, inactive or draft; `hidden` is an admin's (the answers may carry it). */
export const statusField = z.enum(performerContentStatusSchema.options, { error: 'Status must be active, inactive or draft' });

const withEnum = <T extends z.ZodTypeAny>(schema: T) => z.preprocess((v: z.input<T> | undefined) => blankToUndefined(v), schema.optional());

/** What a video and a gallery both have. */
const itemInput = z.object({
  title: titleField(),
  description: textField(5000, 'Description'),
  visibility: withEnum(visibilityField),
  price: intField(0, MAX_PRICE, 'Price'),
  tags: tagsField,
  categoryIds: categoryIdsField,
});

export const videoInput = itemInput.extend({ scheduledAt: dateTimeField, status: withEnum(statusField) });
export type VideoInput = z.output<typeof videoInput>;
/** `PUT /performer/assets/videos/{id}`: what is left out keeps its value. */
export type VideoChanges = z.input<typeof videoInput>;

export const galleryInput = itemInput.extend({ status: withEnum(statusField) });
export type GalleryInput = z.output<typeof galleryInput>;
export type GalleryChanges = z.input<typeof galleryInput>;

export const photoUploadInput = z.object({
  galleryId: z.string({ error: 'galleryId is required' }).min(1, 'galleryId is required').max(64),
  title: textField(200, 'Title'),
});

export const photoInput = z.object({
  title: textField(200, 'Title'),
  position: intField(0, 1_000_000, 'Position'),
  status: withEnum(statusField),
});
export type PhotoInput = z.output<typeof photoInput>;
export type PhotoChanges = z.input<typeof photoInput>;

export const productTypeField = z.enum(productTypeSchema.options, { error: 'Type must be physical or digital' });
export const productInput = z.object({
  name: titleField('Name'),
  description: textField(5000, 'Description'),
  type: withEnum(productTypeField),
  price: intField(1, MAX_PRICE, 'Price'),
  stock: intField(0, 1_000_000, 'Stock'),
  tags: tagsField,
  categoryIds: categoryIdsField,
  status: withEnum(statusField),
});
export type ProductInput = z.output<typeof productInput>;
export type ProductChanges = z.input<typeof productInput>;

export const postStatusField = z.enum(postStatusSchema.options, { error: 'Status must be draft, published or hidden' });
export const postInput = z.object({
  title: titleField(),
  excerpt: textField(500, 'Excerpt'),
  /** Plain text; blank lines separate paragraphs. Stored as escaped HTML paragraphs. */
  content: z.preprocess((v: string | undefined) => blankToUndefined(v), z.string({ error: 'Content must be text' }).trim().min(1, 'Content is required').max(50_000, 'Content must be at most 50000 characters').optional()),
  status: withEnum(postStatusField),
  publishedAt: dateTimeField,
  /** Who may open it (default free): its text in full, its pictures and video. */
  visibility: withEnum(visibilityField),
  price: intField(0, MAX_PRICE, 'Price'),
  /** Edits: ids of the post's pictures or video to remove. */
  removeMedia: listField(z.string({ error: 'A media id must be text' }).min(1).max(64), 20, 'media ids to remove').transform((ids) => (ids ? [...new Set(ids)] : ids)),
});
export type PostInput = z.output<typeof postInput>;
export type PostChanges = z.input<typeof postInput>;

const COUNTRY_MESSAGE = 'Blocked countries must be two-letter ISO 3166 country codes, e.g. "US"';
export const profileInput = z.object({
  bio: textField(2000, 'Bio'),
  monthlyPrice: intField(0, MAX_PRICE, 'Monthly price'),
  yearlyPrice: intField(0, MAX_PRICE, 'Yearly price'),
  /** Days of a new subscriber's free trial on the monthly plan (0: none). */
  trialDays: intField(0, MAX_TRIAL_DAYS, 'Trial days'),
  /** Discounts of the 3, 6 and 12-month bundles, basis points (0: not offered). */
  bundle3Bps: intField(0, MAX_OFFER_BPS, '3-month bundle discount'),
  bundle6Bps: intField(0, MAX_OFFER_BPS, '6-month bundle discount'),
  bundle12Bps: intField(0, MAX_OFFER_BPS, '12-month bundle discount'),
  blockedCountries: z
    .array(
      z
        .string({ error: COUNTRY_MESSAGE })
        .trim()
        .toUpperCase()
        .refine((c) => Object.hasOwn(countries, c), COUNTRY_MESSAGE),
    )
    .max(250)
    .transform((codes) => [...new Set(codes)])
    .optional(),
});
export type ProfileInput = z.output<typeof profileInput>;
export type ProfileChanges = z.input<typeof profileInput>;

export const idParams = z.object({ id: z.string().min(1).max(64) });

/** `GET /performer/assets/{videos,galleries,posts}/search` */
export const ownListQuery = pageQuery.omit({ cursor: true }).extend({ performerId: z.string().max(64).optional() });

// ---------------------------------------------------------------------------------------------------------------
// Responses.

/** What the studio shows of a video and of a gallery alike. */
const studioItemSchema = z.object({
  _id: z.string(),
  title: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  visibility: accessSchema,
  price: z.number().int(),
  tags: z.array(z.string()),
  categoryIds: z.array(z.string()),
  status: contentStatusSchema,
});

export const studioVideoSchema = studioItemSchema.extend({
  processingStatus: processingStatusSchema,
  /** Why processing failed (or why the last attempt failed while it is retried). */
  processingError: z.string().nullable(),
  duration: z.number().nullable(),
  thumbnailUrl: z.string().nullable(),
  posterUrl: z.string().nullable(),
  teaserUrl: z.string().nullable(),
  scheduledAt: z.string().nullable(),
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StudioVideo = z.output<typeof studioVideoSchema>;

export const processingStateSchema = z.object({
  _id: z.string(),
  processingStatus: processingStatusSchema,
  processingError: z.string().nullable(),
  /** Attempts made by the latest processing job, and its limit. */
  attempts: z.number().int(),
  maxAttempts: z.number().int(),
  /** When the next attempt runs, while a failed attempt waits for its retry. */
  nextAttemptAt: z.string().nullable(),
  duration: z.number().nullable(),
  thumbnailUrl: z.string().nullable(),
  teaserUrl: z.string().nullable(),
});
export type ProcessingState = z.output<typeof processingStateSchema>;

export const studioGallerySchema = studioItemSchema.extend({
  photoCount: z.number().int(),
  coverPhotoId: z.string().nullable(),
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StudioGallery = z.output<typeof studioGallerySchema>;

export const studioPhotoSchema = z.object({
  _id: z.string(),
  galleryId: z.string().nullable(),
  title: z.string().nullable(),
  position: z.number().int(),
  status: contentStatusSchema,
  processingStatus: processingStatusSchema,
  processingError: z.string().nullable(),
  thumbnailUrl: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  createdAt: z.string(),
});
export type StudioPhoto = z.output<typeof studioPhotoSchema>;
/** `POST /performer/assets/photos/upload` */
export const uploadedPhotosSchema = z.object({ items: z.array(studioPhotoSchema) });

export const studioProductSchema = z.object({
  _id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  type: productTypeSchema,
  price: z.number().int(),
  stock: z.number().int().nullable(),
  tags: z.array(z.string()),
  categoryIds: z.array(z.string()),
  status: contentStatusSchema,
  /** Public picture once processed; null while processing or without one. */
  imageUrl: z.string().nullable(),
  imageStatus: imageStatusSchema,
  digitalFile: z.object({ name: z.string().nullable(), size: z.number().int(), mime: z.string() }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StudioProduct = z.output<typeof studioProductSchema>;

export const studioPostMediaSchema = z.object({
  _id: z.string(),
  kind: mediaKindSchema,
  /** Public preview once processed (blurred while the post is locked: what everyone sees). */
  previewUrl: z.string().nullable(),
  processingStatus: processingStatusSchema,
  processingError: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  duration: z.number().nullable(),
});
export type StudioPostMedia = z.output<typeof studioPostMediaSchema>;

export const studioPostSchema = z.object({
  _id: z.string(),
  title: z.string(),
  slug: z.string(),
  excerpt: z.string().nullable(),
  content: z.string(),
  status: postStatusSchema,
  visibility: accessSchema,
  price: z.number().int(),
  media: z.array(studioPostMediaSchema),
  /** The card's picture: the first media's preview (or an older post's own picture). */
  imageUrl: z.string().nullable(),
  imageStatus: imageStatusSchema,
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StudioPost = z.output<typeof studioPostSchema>;

export const studioProfileSchema = z.object({
  _id: z.string(),
  username: z.string(),
  name: z.string(),
  bio: z.string().nullable(),
  monthlyPrice: z.number().int(),
  yearlyPrice: z.number().int(),
  trialDays: z.number().int(),
  bundle3Bps: z.number().int(),
  bundle6Bps: z.number().int(),
  bundle12Bps: z.number().int(),
  blockedCountries: z.array(z.string()),
});
export type StudioProfile = z.output<typeof studioProfileSchema>;
