import { z } from 'zod';

/**
 * The shapes every part of the API shares (docs/architecture.md, API conventions): the error body, list pages and
 * their query, path ids. The schemas of each domain sit beside this file (common/schemas/<domain>.ts); routes
 * validate with them and the OpenAPI document is generated from them, browser code imports their types only.
 */

/** The body of every error answer (server/http/error-handler.ts), for route response schemas and the OpenAPI document. */
export const apiErrorSchema = z.object({
  message: z.string(),
  code: z.string(),
  details: z.unknown().optional(),
});
export type ApiErrorBody = z.output<typeof apiErrorSchema>;

/** One entry of `details` in a `400 VALIDATION_FAILED` answer; `path` is like `body.email`. */
export const validationIssueSchema = z.object({ path: z.string(), message: z.string() });
export type ValidationIssue = z.output<typeof validationIssueSchema>;

/** An unread count (the header's badges: unread messages, unread notifications), at most UNREAD_COUNT_CAP (common/limits.ts). */
export const unreadCountSchema = z.object({ count: z.number().int() });
export type UnreadCount = z.output<typeof unreadCountSchema>;

/** Conventions for every list: `limit` (1..100), `offset`, or an opaque `cursor` for deep keyset paging. */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(12),
  offset: z.coerce.number().int().min(0).max(10_000).default(0),
  cursor: z.string().max(300).optional(),
});
export type PageQuery = z.output<typeof pageQuery>;

/** A page of a list: `{ items, total, nextCursor? }` (`nextCursor`: opaque, when the list supports keyset paging). */
export function listSchema<T extends z.ZodTypeAny>(item: T) {
  return z.object({ items: z.array(item), total: z.number().int(), nextCursor: z.string().nullable().optional() });
}
export type ListResult<T> = z.output<ReturnType<typeof listSchema<z.ZodType<T>>>>;

/** An id, a slug or a username: what a path segment may hold. */
export const keyField = z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'Must be an id or a slug');
export const idParams = z.object({ id: keyField });
/** The query of a state-changing route that takes no input at all: a parameter is a mistake (400), not ignored. */
export const noQuery = z.object({}).strict();
