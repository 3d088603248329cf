import { z } from 'zod';
import { currentUserSchema } from './auth.js';
import { keyField } from './http.js';
import { feedPageSchema, feedPageSize } from './feed.js';
import { subscriptionOfferSchema } from './money.js';
import { signedMediaSchema } from './catalogue.js';

/**
 * The member shell (docs/architecture.md): pages shown alike to every signed-in visitor carry nothing of theirs, and
 * ask `GET /users/me/header` once for it: who is signed in and their unread counts, and on a performer's or a video's
 * page their own state there, on the home feed its first page, in the same request.
 */

/** A signed-in visitor's own state on a performer's page: their follow, subscription, offers, whether they may write. */
export const performerViewerSchema = z.object({
  performerId: z.string(),
  /** The visitor is this performer: no follow, subscribe, message, tip or report controls. */
  self: z.boolean(),
  following: z.boolean(),
  followerCount: z.number().int(),
  subscribed: z.boolean(),
  /** The plans as the checkout would charge this visitor (a trial only for a new subscriber). */
  offer: subscriptionOfferSchema,
  /** A fan's Message button, or why they may not write; null for performers and admins, who have none. */
  messaging: z.object({ allowed: z.boolean(), reason: z.string().nullable(), conversationId: z.string().nullable() }).nullable(),
});
export type PerformerViewer = z.output<typeof performerViewerSchema>;

/** A signed-in visitor's own state on a video's page: whether it is open to them, how to open it, what they reacted. */
export const videoViewerSchema = z.object({
  videoId: z.string(),
  /** The visitor is the video's performer: no tip or report controls. */
  self: z.boolean(),
  locked: z.boolean(),
  /** The full file, signed for this visitor alone; null while locked (or not ready). */
  media: signedMediaSchema.nullable(),
  /** While locked by a subscription: the plans as the checkout would charge this visitor; else null. */
  offer: subscriptionOfferSchema.nullable(),
  /** Which of like, favourite and watch later the visitor has on this video. */
  reacted: z.object({ like: z.boolean(), favourite: z.boolean(), watch_later: z.boolean() }),
});
export type VideoViewer = z.output<typeof videoViewerSchema>;

/**
 * `GET /users/me/header?performer=`, `?video=` or `?feed=`: the performer (id or username) or video (id or slug) whose
 * page asks, or the size of the feed's first page the home feed shows.
 */
export const memberHeaderQuery = z.object({ performer: keyField.optional(), video: keyField.optional(), feed: feedPageSize.optional() });
/** What a client sends (the page size a number; the schema also takes its text, as a query string carries it). */
export type MemberHeaderQuery = Omit<z.input<typeof memberHeaderQuery>, 'feed'> & { feed?: number };

/**
 * `GET /users/me/header`: what the site's header shows a signed-in visitor (who they are, their unread counts), and
 * what a member-shell page's lists and controls need to know of them.
 */
export const memberHeaderSchema = z.object({
  user: currentUserSchema.pick({ _id: true, name: true, username: true, avatar: true, role: true }),
  unread: z.object({ messages: z.number().int(), notifications: z.number().int() }),
  /**
   * Some item may be open to this visitor that is locked to a guest (a subscription, a purchase, a performer's own
   * items, an admin): the shared page's lists ask for their first page again as them. False: they show it right.
   */
  unlocksMore: z.boolean(),
  /** With `?performer=`: the visitor's state on that performer's page; null where that page is not open to them. */
  performer: performerViewerSchema.nullable().optional(),
  /** With `?video=`: the visitor's state on that video's page; null where that page is not open to them. */
  video: videoViewerSchema.nullable().optional(),
  /** With `?feed=`: the first page of the visitor's feed, as `GET /feed` answers it. */
  feed: feedPageSchema.optional(),
});
export type MemberHeader = z.output<typeof memberHeaderSchema>;
