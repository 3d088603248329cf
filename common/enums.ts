import { z } from 'zod';
import { REPORT_ACTIONS, REPORT_OUTCOMES, REPORT_REASONS, REPORT_STATUSES, REPORT_TARGET_TYPES } from './reports.js';

/**
 * Every enumeration of the API, once: the zod enum the schemas (common/schemas/*) and the database row types
 * (server/db/schema.ts) use, and its type. A subset is made from its set (`.extract`), a wider set spreads it
 * (`.options`), and a schema that words its own error re-uses the values (`z.enum(accessSchema.options, { error })`). Browser code imports the types only
 * (`import type`): zod stays out of the pages' JavaScript.
 */

/** Accounts (docs/product.md, Who uses it). */
export const roleSchema = z.enum(['user', 'performer', 'admin']);
export type Role = z.output<typeof roleSchema>;
/** The roles one may sign up as (an admin is made with `npm run admin:create`). */
export const signupRoleSchema = roleSchema.extract(['user', 'performer']);
export type SignupRole = z.output<typeof signupRoleSchema>;
// 'deleted': the account was deleted by its owner; the row is a tombstone (server/privacy/README.md).
export const accountStatusSchema = z.enum(['active', 'suspended', 'pending', 'deleted']);
export type AccountStatus = z.output<typeof accountStatusSchema>;
export const performerStatusSchema = z.enum(['active', 'inactive', 'suspended']);
export type PerformerStatus = z.output<typeof performerStatusSchema>;

/** Who may open an item: everyone, subscribers of its performer, or buyers (docs/product.md, Content and access). */
export const accessSchema = z.enum(['free', 'subscribers', 'sale']);
export type Access = z.output<typeof accessSchema>;

/** Videos, galleries, photos and products: `hidden` is set by an admin, the other three by the performer. */
export const contentStatusSchema = z.enum(['draft', 'active', 'inactive', 'hidden']);
export type ContentStatus = z.output<typeof contentStatusSchema>;
/** The statuses a performer may give their own video, gallery, photo or product in the studio (not `hidden`). */
export const performerContentStatusSchema = contentStatusSchema.extract(['active', 'inactive', 'draft']);
export type PerformerContentStatus = z.output<typeof performerContentStatusSchema>;
export const postStatusSchema = z.enum(['draft', 'published', 'hidden']);
export type PostStatus = z.output<typeof postStatusSchema>;
export const postTypeSchema = z.enum(['post', 'page']);
export type PostType = z.output<typeof postTypeSchema>;
export const productTypeSchema = z.enum(['physical', 'digital']);
export type ProductType = z.output<typeof productTypeSchema>;
/** A video's, photo's or post media's processing (server/media/pipeline). */
export const processingStatusSchema = z.enum(['processing', 'ready', 'failed']);
export type ProcessingStatus = z.output<typeof processingStatusSchema>;
/** A studio item's picture: none yet, or its processing. */
export const imageStatusSchema = z.enum(['none', ...processingStatusSchema.options]);
export type ImageStatus = z.output<typeof imageStatusSchema>;
export const mediaKindSchema = z.enum(['image', 'video']);
export type MediaKind = z.output<typeof mediaKindSchema>;
/** Banners, categories, coupons, packages. */
export const activeStatusSchema = z.enum(['active', 'inactive']);
export type ActiveStatus = z.output<typeof activeStatusSchema>;

/** What a performer publishes, apart from photos (which belong to galleries). */
export const contentTypeSchema = z.enum(['video', 'gallery', 'product', 'post']);
export type ContentType = z.output<typeof contentTypeSchema>;
/** What may be commented on and reacted to. */
export const engagementObjectTypeSchema = z.enum([...contentTypeSchema.options, 'performer']);
export type EngagementObjectType = z.output<typeof engagementObjectTypeSchema>;
export const ENGAGEMENT_OBJECT_TYPES: readonly EngagementObjectType[] = engagementObjectTypeSchema.options;
export const categoryGroupSchema = z.enum(['performer', ...contentTypeSchema.options]);
export type CategoryGroup = z.output<typeof categoryGroupSchema>;
/** Everything tags, categories, comments and reactions point at (their `object_type` column). */
export const objectTypeSchema = z.enum(['performer', 'video', 'gallery', 'photo', 'product', 'post', 'comment']);
export type ObjectType = z.output<typeof objectTypeSchema>;
/**
 * What a payment item pays for: an object (a performer's subscription, a video, a gallery, a post, a product), a paid
 * direct message (its recipient's copy), or a tip (its `tips` row: server/payments/README.md, "Tips").
 */
export const paymentItemObjectTypeSchema = z.enum([...objectTypeSchema.options, 'message', 'tip']);
export type PaymentItemObjectType = z.output<typeof paymentItemObjectTypeSchema>;
/** What an entitlement (a purchase) opens: everything a payment item names but a tip, which opens nothing. */
export type EntitlementObjectType = Exclude<PaymentItemObjectType, 'tip'>;
/**
 * Where a tip was given: on the performer's page, on one of their posts or videos, or in the fan's conversation with
 * the performer (its id; the tip API takes the context as a type and an id).
 */
export const tipContextTypeSchema = z.enum(['performer', 'post', 'video', 'conversation']);
export type TipContextType = z.output<typeof tipContextTypeSchema>;
/** `watch_later` is for videos and galleries only; `like` and `favourite` for every engagement object type. */
export const reactionActionSchema = z.enum(['like', 'favourite', 'watch_later']);
export type ReactionAction = z.output<typeof reactionActionSchema>;

/** Money (docs/product.md, Money). */
export const subscriptionTypeSchema = z.enum(['monthly', 'yearly']);
export type SubscriptionType = z.output<typeof subscriptionTypeSchema>;
/** `active` while it opens content (also after a cancellation, until it expires). */
export const subscriptionStatusSchema = z.enum(['pending', 'active', 'cancelled', 'expired']);
export type SubscriptionStatus = z.output<typeof subscriptionStatusSchema>;
export const paymentStatusSchema = z.enum(['pending', 'success', 'failed', 'cancelled', 'refunded', 'chargeback']);
export type PaymentStatus = z.output<typeof paymentStatusSchema>;
export const paymentTypeSchema = z.enum(['subscription_monthly', 'subscription_yearly', 'video', 'products', 'gallery', 'post', 'message', 'tip']);
export type PaymentType = z.output<typeof paymentTypeSchema>;
export const gatewaySchema = z.enum(['sandbox', 'stripe', 'ccbill']);
export type GatewayName = z.output<typeof gatewaySchema>;
export const orderStatusSchema = z.enum(['pending', 'paid', 'cancelled', 'refunded']);
export type OrderStatus = z.output<typeof orderStatusSchema>;
export const deliveryStatusSchema = z.enum(['created', 'processing', 'shipping', 'delivered', 'cancelled']);
export type DeliveryStatus = z.output<typeof deliveryStatusSchema>;
/**
 * `credit`: what a paid item earned. `reversal` rows are negative: what is left of the credit when the payment is
 * refunded whole or charged back. `partial_refund` rows are negative too: the item's share of a partial refund.
 */
export const earningEntrySchema = z.enum(['credit', 'reversal', 'partial_refund']);
export type EarningEntry = z.output<typeof earningEntrySchema>;
export const earningSourceSchema = z.enum(['subscription', 'video', 'product', 'gallery', 'post', 'message', 'tip']);
export type EarningSource = z.output<typeof earningSourceSchema>;
/**
 * A payout: `requested` by the performer (its earnings are claimed), `approved` by an admin, then `paid` (with the
 * transfer's reference) or `rejected` (with a reason; the earnings are released). A payout an admin records directly
 * ("mark all paid") starts as `paid`.
 */
export const payoutStatusSchema = z.enum(['requested', 'approved', 'paid', 'rejected']);
export type PayoutStatus = z.output<typeof payoutStatusSchema>;
/** The statuses of a payout still being handled: a performer has at most one. */
export const OPEN_PAYOUT_STATUSES = ['requested', 'approved'] as const satisfies readonly PayoutStatus[];
/** How a performer is paid: a bank transfer or PayPal. */
export const payoutMethodSchema = z.enum(['bank', 'paypal']);
export type PayoutMethod = z.output<typeof payoutMethodSchema>;

/** Who may write to a performer first (docs/product.md, Messages): live subscribers, any signed-in account, nobody. */
export const messagePolicySchema = z.enum(['subscribers', 'fans', 'nobody']);
export type MessagePolicy = z.output<typeof messagePolicySchema>;
/** The kinds of file a message may carry. */
export const messageAttachmentKindSchema = z.enum(['image', 'video']);
export type MessageAttachmentKind = z.output<typeof messageAttachmentKindSchema>;
/** Who a performer's mass message goes to: live subscribers, or followers. */
export const massAudienceSchema = z.enum(['subscribers', 'followers']);
export type MassAudience = z.output<typeof massAudienceSchema>;
/**
 * What a notification is about (server/notifications/README.md): the `type` of a notification row, and the keys of a
 * user's email choices. Rows of another type (older or newer code) are still listed, with a generic text.
 */
export const notificationTypeSchema = z.enum(['message', 'tip', 'subscriber', 'comment', 'purchase', 'order', 'payout', 'report', 'co_performer', 'verification']);
export type NotificationType = z.output<typeof notificationTypeSchema>;
/** Reports (docs/product.md, Reports): the lists themselves live in common/reports.ts, which the report dialog loads. */
export const reportTargetTypeSchema = z.enum(REPORT_TARGET_TYPES);
export type ReportTargetType = z.output<typeof reportTargetTypeSchema>;
export const reportReasonSchema = z.enum(REPORT_REASONS);
export type ReportReason = z.output<typeof reportReasonSchema>;
export const reportStatusSchema = z.enum(REPORT_STATUSES);
export type ReportStatus = z.output<typeof reportStatusSchema>;
export const reportOutcomeSchema = z.enum(REPORT_OUTCOMES);
export type ReportOutcome = z.output<typeof reportOutcomeSchema>;
export const reportActionSchema = z.enum(REPORT_ACTIONS);
export type ReportAction = z.output<typeof reportActionSchema>;
/** A performer's identity and age verification (server/verification/): a submission waits for an admin's decision. */
export const verificationStatusSchema = z.enum(['pending', 'approved', 'rejected']);
export type VerificationStatus = z.output<typeof verificationStatusSchema>;

/** Takedown requests (docs/product.md, Takedown requests): what a request may point at, who asks, where it stands. */
export const takedownTargetTypeSchema = z.enum(['video', 'gallery', 'photo', 'product', 'post', 'performer']);
export type TakedownTargetType = z.output<typeof takedownTargetTypeSchema>;
export const takedownRelationshipSchema = z.enum(['depicted', 'representative', 'copyright']);
export type TakedownRelationship = z.output<typeof takedownRelationshipSchema>;
export const takedownStatusSchema = z.enum(['open', 'upheld', 'restored']);
export type TakedownStatus = z.output<typeof takedownStatusSchema>;
export const takedownActionSchema = z.enum(['uphold', 'restore']);
export type TakedownAction = z.output<typeof takedownActionSchema>;
/** Where the watermark sits on a picture or a video (docs/product.md, Watermarks). */
export const WATERMARK_POSITIONS = ['bottom-right', 'bottom-left', 'top-right', 'top-left', 'center'] as const;
export const watermarkPositionSchema = z.enum(WATERMARK_POSITIONS);
export type WatermarkPosition = z.infer<typeof watermarkPositionSchema>;
/** A watermark run: running, finished, or left for a newer one started with other settings. */
export const WATERMARK_RUN_STATUSES = ['running', 'done', 'superseded'] as const;
export const watermarkRunStatusSchema = z.enum(WATERMARK_RUN_STATUSES);
export type WatermarkRunStatus = z.infer<typeof watermarkRunStatusSchema>;
/** A "download my data" export (server/privacy/README.md): queued → running → ready → expired, or failed. */
export const dataExportStatusSchema = z.enum(['queued', 'running', 'ready', 'failed', 'expired']);
export type DataExportStatus = z.output<typeof dataExportStatusSchema>;
/**
 * Co-performers (docs/product.md, Co-performers and consent): the items that name the people shown in them, the two
 * kinds of person (a performer of this site, or an outside person with a release form and an identity document) and
 * where each record stands. Only `confirmed` lets the item be published.
 */
export const coPerformerObjectTypeSchema = z.enum(['video', 'gallery', 'post']);
export type CoPerformerObjectType = z.output<typeof coPerformerObjectTypeSchema>;
export const coPerformerKindSchema = z.enum(['performer', 'outside']);
export type CoPerformerKind = z.output<typeof coPerformerKindSchema>;
export const coPerformerStatusSchema = z.enum(['pending', 'confirmed', 'declined']);
export type CoPerformerStatus = z.output<typeof coPerformerStatusSchema>;
