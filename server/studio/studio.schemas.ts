import { countries } from 'countries-list';
import { z } from 'zod';
import { AppError } from '../http/errors.js';

/**
 * Request and response shapes of the performer studio (server/studio/studio.routes.ts). Inputs accept
 * JSON or multipart/form-data text fields alike: numbers may come as strings, lists as repeated fields,
 * a JSON array or comma-separated text, and "" clears an optional value.
 */

const MAX_PRICE = 100_000_000; // minor units: 1,000,000.00

/** Form text "" means "not given". */
const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

function intField(min: number, max: number, what: string) {
  return z.preprocess(
    (v) => {
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
    (v) => {
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
    (v) => (v === null ? null : v),
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
  (v) => (typeof v === 'string' && v.trim() === '' ? null : v),
  z
    .string({ error: 'Must be an ISO-8601 date-time, e.g. 2030-01-31T18:00:00Z' })
    .refine((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)), 'Must be an ISO-8601 date-time with a time zone, e.g. 2030-01-31T18:00:00Z')
    .transform((s) => new Date(s).toISOString())
    .nullable()
    .optional(),
);

export const visibilitySchema = z.enum(['free', 'subscribers', 'sale'], { error: 'Visibility must be free, subscribers or sale' });
export const contentStatusSchema = z.enum(['active', 'inactive', 'draft'], { error: 'Status must be active, inactive or draft' });

const withEnum = <T extends z.ZodTypeAny>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

export const videoInput = z.object({
  title: titleField(),
  description: textField(5000, 'Description'),
  visibility: withEnum(visibilitySchema),
  price: intField(0, MAX_PRICE, 'Price'),
  tags: tagsField,
  categoryIds: categoryIdsField,
  scheduledAt: dateTimeField,
  status: withEnum(contentStatusSchema),
});
export type VideoInput = z.infer<typeof videoInput>;

export const galleryInput = z.object({
  title: titleField(),
  description: textField(5000, 'Description'),
  visibility: withEnum(visibilitySchema),
  price: intField(0, MAX_PRICE, 'Price'),
  tags: tagsField,
  categoryIds: categoryIdsField,
  status: withEnum(contentStatusSchema),
});
export type GalleryInput = z.infer<typeof galleryInput>;

export const photoUploadInput = z.object({
  galleryId: z.string({ error: 'galleryId is required' }).min(1, 'galleryId is required').max(64),
  title: textField(200, 'Title'),
});

export const photoInput = z.object({
  title: textField(200, 'Title'),
  position: intField(0, 1_000_000, 'Position'),
  status: withEnum(contentStatusSchema),
});
export type PhotoInput = z.infer<typeof photoInput>;

export const productTypeSchema = z.enum(['physical', 'digital'], { error: 'Type must be physical or digital' });
export const productInput = z.object({
  name: titleField('Name'),
  description: textField(5000, 'Description'),
  type: withEnum(productTypeSchema),
  price: intField(1, MAX_PRICE, 'Price'),
  stock: intField(0, 1_000_000, 'Stock'),
  tags: tagsField,
  categoryIds: categoryIdsField,
  status: withEnum(contentStatusSchema),
});
export type ProductInput = z.infer<typeof productInput>;

export const postStatusSchema = z.enum(['draft', 'published', 'hidden'], { error: 'Status must be draft, published or hidden' });
export const postInput = z.object({
  title: titleField(),
  excerpt: textField(500, 'Excerpt'),
  /** Plain text; blank lines separate paragraphs. Stored as escaped HTML paragraphs. */
  content: z.preprocess(blankToUndefined, z.string({ error: 'Content must be text' }).trim().min(1, 'Content is required').max(50_000, 'Content must be at most 50000 characters').optional()),
  status: withEnum(postStatusSchema),
  publishedAt: dateTimeField,
  /** Who may open it (default free): its text in full, its pictures and video. */
  visibility: withEnum(visibilitySchema),
  price: intField(0, MAX_PRICE, 'Price'),
  /** Edits: ids of the post's pictures or video to remove. */
  removeMedia: listField(z.string({ error: 'A media id must be text' }).min(1).max(64), 20, 'media ids to remove').transform((ids) => (ids ? [...new Set(ids)] : ids)),
});
export type PostInput = z.infer<typeof postInput>;

const COUNTRY_MESSAGE = 'Blocked countries must be two-letter ISO 3166 country codes, e.g. "US"';
export const profileInput = z.object({
  bio: textField(2000, 'Bio'),
  monthlyPrice: intField(0, MAX_PRICE, 'Monthly price'),
  yearlyPrice: intField(0, MAX_PRICE, 'Yearly price'),
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
export type ProfileInput = z.infer<typeof profileInput>;

export const idParams = z.object({ id: z.string().min(1).max(64) });

/** Validates form fields (multipart) the way route schemas validate JSON: 400 VALIDATION_FAILED with details. */
export function parseInput<T extends z.ZodTypeAny>(schema: T, data: unknown): z.infer<T> {
  const result = schema.safeParse(data ?? {});
  if (result.success) return result.data;
  const details = result.error.issues.map((i) => ({ path: ['body', ...i.path.map(String)].join('.'), message: i.message }));
  const first = details[0]!;
  throw new AppError(400, 'VALIDATION_FAILED', `Invalid ${first.path}: ${first.message}`, details);
}

// ---------------------------------------------------------------------------------------------------------------
// Responses.

const processing = z.enum(['processing', 'ready', 'failed']);

export const studioVideoSchema = z.object({
  _id: z.string(),
  title: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  visibility: visibilitySchema,
  price: z.number().int(),
  tags: z.array(z.string()),
  categoryIds: z.array(z.string()),
  status: z.string(),
  processingStatus: processing,
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
export type StudioVideo = z.infer<typeof studioVideoSchema>;

export const processingStateSchema = z.object({
  _id: z.string(),
  processingStatus: processing,
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

export const studioGallerySchema = z.object({
  _id: z.string(),
  title: z.string(),
  slug: z.string(),
  description: z.string().nullable(),
  visibility: visibilitySchema,
  price: z.number().int(),
  tags: z.array(z.string()),
  categoryIds: z.array(z.string()),
  status: z.string(),
  photoCount: z.number().int(),
  coverPhotoId: z.string().nullable(),
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StudioGallery = z.infer<typeof studioGallerySchema>;

export const studioPhotoSchema = z.object({
  _id: z.string(),
  galleryId: z.string().nullable(),
  title: z.string().nullable(),
  position: z.number().int(),
  status: z.string(),
  processingStatus: processing,
  processingError: z.string().nullable(),
  thumbnailUrl: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  createdAt: z.string(),
});
export type StudioPhoto = z.infer<typeof studioPhotoSchema>;

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
  status: z.string(),
  /** Public picture once processed; null while processing or without one. */
  imageUrl: z.string().nullable(),
  imageStatus: z.enum(['none', 'processing', 'ready', 'failed']),
  digitalFile: z.object({ name: z.string().nullable(), size: z.number().int(), mime: z.string() }).nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StudioProduct = z.infer<typeof studioProductSchema>;

export const studioPostMediaSchema = z.object({
  _id: z.string(),
  kind: z.enum(['image', 'video']),
  /** Public preview once processed (blurred while the post is locked: what everyone sees). */
  previewUrl: z.string().nullable(),
  processingStatus: processing,
  processingError: z.string().nullable(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
  duration: z.number().nullable(),
});
export type StudioPostMedia = z.infer<typeof studioPostMediaSchema>;

export const studioPostSchema = z.object({
  _id: z.string(),
  title: z.string(),
  slug: z.string(),
  excerpt: z.string().nullable(),
  content: z.string(),
  status: postStatusSchema,
  visibility: visibilitySchema,
  price: z.number().int(),
  media: z.array(studioPostMediaSchema),
  /** The card's picture: the first media's preview (or an older post's own picture). */
  imageUrl: z.string().nullable(),
  imageStatus: z.enum(['none', 'processing', 'ready', 'failed']),
  publishedAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type StudioPost = z.infer<typeof studioPostSchema>;

export const studioProfileSchema = z.object({
  _id: z.string(),
  username: z.string(),
  name: z.string(),
  bio: z.string().nullable(),
  monthlyPrice: z.number().int(),
  yearlyPrice: z.number().int(),
  blockedCountries: z.array(z.string()),
});
export type StudioProfile = z.infer<typeof studioProfileSchema>;
