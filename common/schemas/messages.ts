import { z } from 'zod';
import { massAudienceSchema, messageAttachmentKindSchema, messagePolicySchema, roleSchema } from '../enums.js';
import { keyField } from './http.js';
import { MESSAGE_MAX_CHARS } from '../messages.js';
import { MAX_PRICE_MINOR } from '../money.js';

/**
 * Direct messages between a fan and a performer (docs/product.md, Messages; server/messages/README.md): the
 * conversations, their messages with attachments, read state and unread counts, who may write first, and blocks.
 */

/** The other participant of a conversation, as the list and the thread show them. */
export const participantSchema = z.object({ _id: z.string(), name: z.string(), username: z.string(), avatar: z.string(), role: roleSchema });
export type Participant = z.output<typeof participantSchema>;

/** A file of a message: `url` is a short-lived signed URL for the caller only (never a public address). */
export const messageAttachmentSchema = z.object({
  _id: z.string(),
  kind: messageAttachmentKindSchema,
  mime: z.string(),
  url: z.string(),
  width: z.number().int().nullable(),
  height: z.number().int().nullable(),
});
export type MessageAttachment = z.output<typeof messageAttachmentSchema>;

/**
 * A file of a paid message its recipient has not bought: what kind it is and its size, never where it is (no URL, no
 * file id), so the locked bubble can keep its shape.
 */
export const lockedAttachmentSchema = z.object({ kind: messageAttachmentKindSchema, width: z.number().int().nullable(), height: z.number().int().nullable() });
export type LockedAttachment = z.output<typeof lockedAttachmentSchema>;

export const messageItemSchema = z.object({
  _id: z.string(),
  conversationId: z.string(),
  senderId: z.string(),
  text: z.string(),
  /** The files the caller may open, as signed URLs; empty while the message is locked for the caller. */
  attachments: z.array(messageAttachmentSchema),
  createdAt: z.string(),
  /** When the recipient saw it; null while unread. */
  readAt: z.string().nullable(),
  /** Minor units the recipient pays to open the files; 0 for a free message (server/messages/README.md, "Paid messages"). */
  price: z.number().int(),
  /** The files are shut for the caller (the recipient before buying): `lockedAttachments` says what they are. */
  locked: z.boolean(),
  lockedAttachments: z.array(lockedAttachmentSchema),
  /** A priced message its recipient bought (the sender sees it too). */
  purchased: z.boolean(),
});
export type MessageItem = z.output<typeof messageItemSchema>;

export const conversationSchema = z.object({
  _id: z.string(),
  fanId: z.string(),
  performerId: z.string(),
  other: participantSchema,
  lastMessage: z.object({ text: z.string(), senderId: z.string(), createdAt: z.string(), attachments: z.number().int() }).nullable(),
  lastMessageAt: z.string(),
  /** Messages to the caller not yet seen. */
  unreadCount: z.number().int(),
  /** The performer blocked the fan of this conversation. */
  blocked: z.boolean(),
  /** Whether the caller may send here now, and if not why (`MESSAGES_NOT_ALLOWED`, `BLOCKED_BY_PERFORMER`). */
  canSend: z.boolean(),
  whyNot: z.string().nullable(),
});
export type Conversation = z.output<typeof conversationSchema>;

/** `POST /messages/conversations`: the other participant (a performer for a fan, a fan for a performer), by id or username. */
export const startConversationBody = z.object({ userId: keyField });
export type StartConversationRequest = z.input<typeof startConversationBody>;

/** Keyset paged by cursor (the last item's time and id), newest first. */
export const messagesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(50).default(30),
  cursor: z.string().max(300).optional(),
});
export type MessagesQuery = z.input<typeof messagesQuery>;
export const conversationsQuery = messagesQuery;

export const conversationParams = z.object({ id: keyField });
export const messageParams = z.object({ id: keyField });

/** `POST /messages/conversations/{id}/read`: what is now read, and the caller's unread count after it. */
/** After marking a conversation read: the reader's unread messages (`count`) and unread notifications (its message notifications were read too). */
export const readStateSchema = z.object({ conversationId: z.string(), readAt: z.string(), count: z.number().int(), notifications: z.number().int() });
export type ReadState = z.output<typeof readStateSchema>;

/** A performer's messaging settings (studio). */
export const messageSettingsSchema = z.object({ messagePolicy: messagePolicySchema });
export type MessageSettings = z.output<typeof messageSettingsSchema>;

/** A fan a performer blocked. */
export const blockedFanSchema = z.object({ _id: z.string(), name: z.string(), username: z.string(), avatar: z.string(), blockedAt: z.string() });
export type BlockedFan = z.output<typeof blockedFanSchema>;
export const blockBody = z.object({ userId: keyField });
export const blockParams = z.object({ userId: keyField });
export const blockStateSchema = z.object({ userId: z.string(), blocked: z.boolean() });
export type BlockState = z.output<typeof blockStateSchema>;

/** A performer's mass message and how far its delivery is. */
export const massMessageSchema = z.object({
  _id: z.string(),
  audience: massAudienceSchema,
  text: z.string(),
  attachments: z.number().int(),
  /** Recipients when it was sent (blocked fans left out). */
  total: z.number().int(),
  /** Copies delivered so far. */
  delivered: z.number().int(),
  status: z.enum(['sending', 'done']),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  /** What each copy costs its recipient (minor units; 0 for free). */
  price: z.number().int(),
});
export type MassMessage = z.output<typeof massMessageSchema>;

/**
 * A message's price (minor units; JSON number or form text): 0 or left out for a free message, else within the prices
 * the site takes for anything sold (at most MAX_PRICE_MINOR). Only a performer prices a message, and only one with files.
 */
export const messagePriceField = z.preprocess(
  (v: number | string | undefined) => (typeof v === 'string' ? (v.trim() === '' ? undefined : /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : v) : v),
  z
    .number({ error: 'Price must be a whole number of cents' })
    .int('Price must be whole minor units (cents)')
    .min(0, 'Price cannot be negative')
    .max(MAX_PRICE_MINOR, 'Price must be at most 1,000,000.00')
    .optional()
    .default(0),
);
/** `POST /messages/conversations/{id}/messages` (JSON, or the text fields of the multipart form). */
export const messageFields = z.object({ text: z.string().max(MESSAGE_MAX_CHARS * 4).optional().default(''), price: messagePriceField });
export const massMessageFields = z.object({ text: z.string().max(MESSAGE_MAX_CHARS * 4).optional().default(''), audience: massAudienceSchema, price: messagePriceField });
export type MassMessageRequest = z.input<typeof massMessageFields>;

/** Whether the viewer may start (or continue) a conversation with a performer, as the performer's page shows it. */
export interface MessagingState {
  allowed: boolean;
  /** Why not, in words for the page. */
  reason: string | null;
  conversationId: string | null;
}
