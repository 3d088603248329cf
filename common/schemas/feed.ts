import { z } from 'zod';
import { galleryItemSchema, performerCardSchema, postCardSchema, videoItemSchema } from './catalogue.js';
import { keyField } from './http.js';

/**
 * Follows and the feed (docs/product.md, Follows and the feed): following a performer, the list of performers one
 * follows, and the signed-in user's feed of new posts, videos and galleries.
 */

/** `POST` / `DELETE /performers/{id}/follow`: the state after the call. */
export const followStateSchema = z.object({
  performerId: z.string(),
  following: z.boolean(),
  followerCount: z.number().int(),
  /** False when the call changed nothing (already followed, or not followed). */
  changed: z.boolean(),
});
export type FollowState = z.output<typeof followStateSchema>;

/** How many items a page of the feed holds. */
export const feedPageSize = z.coerce.number().int().min(1).max(50);

/** Keyset paged only: `cursor` is the last item's; there is no offset. */
export const feedQuery = z.object({
  limit: feedPageSize.default(12),
  cursor: z.string().max(300).optional(),
});
export type FeedQuery = z.input<typeof feedQuery>;

export const followingQuery = feedQuery;

/** A performer the user follows, and since when. */
export const followedPerformerSchema = performerCardSchema.extend({ followedAt: z.string() });
export type FollowedPerformer = z.output<typeof followedPerformerSchema>;

/**
 * One item of the feed: the catalogue's own item for its kind, with the same `locked` and the same URLs as the
 * catalogue's lists give this viewer (a locked item names no full file).
 */
export const feedItemSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('video'), _id: z.string(), publishedAt: z.string(), video: videoItemSchema }),
  z.object({ kind: z.literal('gallery'), _id: z.string(), publishedAt: z.string(), gallery: galleryItemSchema }),
  z.object({ kind: z.literal('post'), _id: z.string(), publishedAt: z.string(), post: postCardSchema }),
]);
export type FeedItem = z.output<typeof feedItemSchema>;

/**
 * A page of the feed. No total: it would count every item of everyone the fan follows on every page, and nothing
 * shows it; `nextCursor` is null on the last page.
 */
export const feedPageSchema = z.object({ items: z.array(feedItemSchema), nextCursor: z.string().nullable() });
export type FeedPage = z.output<typeof feedPageSchema>;
export type FeedKind = FeedItem['kind'];

export const performerKeyParams = z.object({ id: keyField });
