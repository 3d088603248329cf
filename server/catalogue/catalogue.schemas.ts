import { z } from 'zod';
import { pageQuery } from '../../common/schemas/http.js';

/** zod pieces shared by the catalogue routes (videos, galleries, photos, products, posts, categories). */

/** An id, a slug or a username: what a path segment may hold. */
export const keyField = z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'Must be an id or a slug');
export const idParams = z.object({ id: keyField });

/** Filters every content list takes. */
export const contentListQuery = pageQuery.extend({
  q: z.string().trim().max(100).optional(),
  performerId: keyField.optional(),
  tag: z.string().trim().toLowerCase().min(1).max(50).optional(),
  categoryId: keyField.optional(),
});

export const accessSchema = z.enum(['free', 'subscribers', 'sale']);
export const contentStatusSchema = z.enum(['draft', 'active', 'inactive', 'hidden']);
export const processingStatusSchema = z.enum(['processing', 'ready', 'failed']);

export const performerSummarySchema = z.object({ _id: z.string(), username: z.string(), name: z.string(), avatar: z.string() });

export const signedMediaSchema = z.object({
  url: z.string(),
  expiresAt: z.string(),
  mime: z.string(),
  size: z.number(),
  width: z.number().nullable(),
  height: z.number().nullable(),
  duration: z.number().nullable(),
});

export const statsSchema = z.object({ views: z.number().int(), likes: z.number().int(), favourites: z.number().int(), comments: z.number().int() });
