import { z } from 'zod';
import { notificationTypeSchema } from '../enums.js';
import { keyField } from './http.js';

/** Notifications (docs/product.md, Notifications): the in-app list, marking read, and email choices per type. */

/** One notification as the list and the `notification/created` event show it: its text and link are rendered by the server. */
export const notificationItemSchema = z.object({
  _id: z.string(),
  /** The row's type; may be one this version does not know (its text is then generic). */
  type: z.string(),
  text: z.string(),
  /** A site path (never another site). */
  url: z.string(),
  actorName: z.string().nullable(),
  read: z.boolean(),
  readAt: z.string().nullable(),
  createdAt: z.string(),
});
export type NotificationItem = z.output<typeof notificationItemSchema>;

/** Keyset paged only (newest first): `cursor` is the last item's. */
export const notificationsQuery = z.object({
  limit: z.coerce.number().int().min(1).max(50).default(20),
  cursor: z.string().max(300).optional(),
});
export type NotificationsQuery = z.input<typeof notificationsQuery>;

export const notificationParams = z.object({ id: keyField });

/**
 * `POST /notifications/read-all`: up to when (the newest the reader has seen), so one that arrived since is not marked
 * read unseen.
 */
export const markAllReadBody = z.object({ before: z.iso.datetime() });
export type MarkAllReadBody = z.input<typeof markAllReadBody>;

/** `POST /notifications/read-all`: how many were marked, and the unread count after. */
export const markAllReadSchema = z.object({ marked: z.number().int(), count: z.number().int() });

/** One type's email choice; `locked`: mailed whatever the choice (money mails), shown but not changeable. */
export const emailPreferenceSchema = z.object({ type: notificationTypeSchema, email: z.boolean(), locked: z.boolean() });
export const emailPreferencesSchema = z.object({ preferences: z.array(emailPreferenceSchema) });
export type EmailPreferences = z.output<typeof emailPreferencesSchema>;
export type EmailPreference = z.output<typeof emailPreferenceSchema>;

/** `PUT /notifications/preferences`: the types to change, each on or off; the others stay. */
export const updateEmailPreferencesBody = z.object({
  email: z.partialRecord(notificationTypeSchema, z.boolean()).refine((r) => Object.keys(r).length > 0, 'Name at least one type'),
});
export type UpdateEmailPreferencesBody = z.input<typeof updateEmailPreferencesBody>;

/** The signed unsubscribe link's token (`<user id>.<type>.<signature>`). */
export const unsubscribeQuery = z.object({ token: z.string().min(1).max(300) });

export const unsubscribeResultSchema = z.object({ type: notificationTypeSchema, email: z.literal(false) });
