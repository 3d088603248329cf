import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type {
  Access, AccountStatus, ActiveStatus, CategoryGroup, ContentStatus, DeliveryStatus, EarningEntry, EntitlementObjectType, MediaKind, ObjectType, OrderStatus, PaymentItemObjectType, PaymentStatus,
  MassAudience, MessageAttachmentKind, MessagePolicy, PaymentType, PayoutMethod, PayoutStatus, PerformerStatus, PostStatus, PostType, ProcessingStatus, ProductType, ReactionAction, Role, SubscriptionStatus,
  SubscriptionType, TipContextType, ReportOutcome, ReportReason, ReportStatus, ReportTargetType, VerificationStatus, DataExportStatus,
  CoPerformerKind, CoPerformerObjectType, CoPerformerStatus, TakedownRelationship, TakedownStatus, TakedownTargetType,
} from '../../common/enums.js';

/** The enumerations are the API's (common/enums.ts); these are re-exported for the repositories. */
export type { Access, CategoryGroup, ContentStatus, EntitlementObjectType, ObjectType, PaymentStatus, ReactionAction };

/** Row types as Kysely sees them through CamelCasePlugin (columns are snake_case in SQL). */
type Flag = number; // 0 | 1 on both engines
type Defaulted<T> = ColumnType<T, T | undefined, T>;
type Timestamps = { createdAt: string; updatedAt: string };

export interface UsersTable extends Timestamps {
  id: string;
  email: string;
  username: string;
  name: string;
  passwordHash: string;
  role: Defaulted<Role>;
  status: Defaulted<AccountStatus>;
  emailVerified: Defaulted<Flag>;
  avatarPath: string | null;
  coverPath: string | null;
  country: string | null;
  bio: string | null;
  /** When the person accepted the terms at sign-up (migration 0011); null for accounts not made by the sign-up form. */
  termsAcceptedAt: string | null;
  /** When the person confirmed being 18 or older at sign-up; null as above. */
  adultConfirmedAt: string | null;
  /** 0030: when the account was deleted (status 'deleted', the row a tombstone; server/privacy/README.md). */
  deletedAt: Defaulted<string | null>;
}

export interface SessionsTable {
  id: string;
  userId: string;
  tokenHash: string;
  remember: Defaulted<Flag>;
  expiresAt: string;
  revokedAt: string | null;
  ip: string | null;
  userAgent: string | null;
  createdAt: string;
  lastSeenAt: string | null;
}

export interface AuthTokensTable {
  id: string;
  userId: string;
  purpose: 'verify-email' | 'reset-password';
  tokenHash: string;
  expiresAt: string;
  usedAt: string | null;
  createdAt: string;
}

export interface PerformersTable extends Timestamps {
  id: string;
  username: string;
  displayName: string;
  bio: string | null;
  monthlyPrice: Defaulted<number>;
  yearlyPrice: Defaulted<number>;
  /** Days of a new subscriber's free trial (0: none); migration 0018. */
  trialDays: Defaulted<number>;
  /** Discounts of the 3, 6 and 12-month bundles in basis points (0: not offered). */
  bundle3Bps: Defaulted<number>;
  bundle6Bps: Defaulted<number>;
  bundle12Bps: Defaulted<number>;
  commissionBps: number | null;
  status: Defaulted<PerformerStatus>;
  approved: Defaulted<Flag>;
  featured: Defaulted<Flag>;
  subscriberCount: Defaulted<number>;
  /** 0019: the performer's `follows` rows counted, moved in the transaction that inserts or deletes one. */
  followerCount: Defaulted<number>;
  videoCount: Defaulted<number>;
  photoCount: Defaulted<number>;
  galleryCount: Defaulted<number>;
  productCount: Defaulted<number>;
  likeCount: Defaulted<number>;
  /** 0004_engagement */
  favouriteCount: Defaulted<number>;
  /** 0004_engagement */
  commentCount: Defaulted<number>;
  viewCount: Defaulted<number>;
  gender: string | null;
  country: string | null;
  /** 0021: who may write to the performer first (common/messages.ts). */
  messagePolicy: Defaulted<MessagePolicy>;
}

export interface PerformerBlockedCountriesTable {
  performerId: string;
  countryCode: string;
}

export interface CategoriesTable extends Timestamps {
  id: string;
  name: string;
  slug: string;
  group: CategoryGroup;
  description: string | null;
  ordering: Defaulted<number>;
  status: Defaulted<ActiveStatus>;
}

export interface ContentCategoriesTable {
  categoryId: string;
  objectType: ObjectType;
  objectId: string;
}
export interface ContentTagsTable {
  tag: string;
  objectType: ObjectType;
  objectId: string;
  /** The tagged item's published_at, copied by triggers (migration 0007): the sort key of "by tag, newest". */
  publishedAt: Defaulted<string | null>;
}

export interface FilesTable extends Timestamps {
  id: string;
  ownerId: string | null;
  parentId: string | null;
  variant: Defaulted<string>;
  kind: 'image' | 'video' | 'file';
  storageKey: string;
  mime: string;
  size: Defaulted<number>;
  width: number | null;
  height: number | null;
  duration: number | null;
  originalName: string | null;
  status: Defaulted<'uploaded' | 'processing' | 'ready' | 'failed'>;
  error: string | null;
  /** The mark a stamped file carries (server/media/watermark/mark.ts `markSignature`); null when clean. */
  watermark: Defaulted<string | null>;
}

export interface JobsTable extends Timestamps {
  id: string;
  type: string;
  payload: string;
  status: Defaulted<'queued' | 'running' | 'done' | 'failed'>;
  attempts: Defaulted<number>;
  maxAttempts: Defaulted<number>;
  runAt: string;
  lockedAt: string | null;
  lockedBy: string | null;
  lastError: string | null;
  /** A running job belongs to `lockedBy` until then; afterwards any worker may claim it again (0003). */
  leaseExpiresAt: string | null;
  /** What the job is about, e.g. `video:<id>` (0003). */
  subject: string | null;
  finishedAt: string | null;
}

interface ContentColumns extends Timestamps {
  id: string;
  performerId: string;
  status: Defaulted<ContentStatus>;
  likeCount: Defaulted<number>;
  favouriteCount: Defaulted<number>;
  commentCount: Defaulted<number>;
  viewCount: Defaulted<number>;
}

/** A video or gallery: titled, with its access (free, subscribers, or sold at `price`). */
interface AccessContentColumns extends ContentColumns {
  title: string;
  slug: string;
  description: string | null;
  access: Defaulted<Access>;
  isSale: Defaulted<Flag>;
  price: Defaulted<number>;
}

export interface VideosTable extends AccessContentColumns {
  fileId: string | null;
  teaserFileId: string | null;
  thumbnailFileId: string | null;
  duration: number | null;
  processingStatus: Defaulted<ProcessingStatus>;
  scheduledAt: string | null;
  publishedAt: string | null;
  tags: Defaulted<string>;
}

export interface GalleriesTable extends AccessContentColumns {
  coverPhotoId: string | null;
  photoCount: Defaulted<number>;
  publishedAt: string | null;
  tags: Defaulted<string>;
}

export interface PhotosTable extends ContentColumns {
  galleryId: string | null;
  title: string | null;
  fileId: string | null;
  thumbnailFileId: string | null;
  processingStatus: Defaulted<ProcessingStatus>;
  position: Defaulted<number>;
  publishedAt: string | null;
}

export interface ProductsTable extends ContentColumns {
  name: string;
  slug: string;
  description: string | null;
  type: Defaulted<ProductType>;
  price: number;
  stock: number | null;
  imageFileId: string | null;
  digitalFileId: string | null;
  publishedAt: string | null;
  tags: Defaulted<string>;
}

export interface PostsTable extends Timestamps {
  id: string;
  authorId: string | null;
  performerId: string | null;
  type: Defaulted<PostType>;
  title: string;
  slug: string;
  excerpt: string | null;
  content: string;
  imageFileId: string | null;
  status: Defaulted<PostStatus>;
  likeCount: Defaulted<number>;
  commentCount: Defaulted<number>;
  /** 0004_engagement */
  favouriteCount: Defaulted<number>;
  publishedAt: string | null;
  /** 0011: who may open a performer's post (site posts and pages are free). */
  access: Defaulted<Access>;
  /** 0011: minor units, above 0 for a pay-per-view post. */
  price: Defaulted<number>;
}

/** 0011: a post's pictures or its one video, in order. */
export interface PostMediaTable extends Timestamps {
  id: string;
  postId: string;
  position: Defaulted<number>;
  kind: MediaKind;
  /** The upload, private. */
  fileId: string;
  /** Pictures: the picture shown in full (public while the post is free, private otherwise). */
  displayFileId: string | null;
  /** Public: a picture's thumbnail or the video's poster, blurred while the post is locked. */
  previewFileId: string | null;
  /** A locked post's sharp thumbnail or poster, private (null for a free post: its preview is sharp). */
  thumbFileId: string | null;
  processingStatus: Defaulted<ProcessingStatus>;
  width: number | null;
  height: number | null;
  duration: number | null;
}

export interface BannersTable extends Timestamps {
  id: string;
  title: string;
  description: string | null;
  imageFileId: string | null;
  link: string | null;
  position: Defaulted<string>;
  ordering: Defaulted<number>;
  status: Defaulted<ActiveStatus>;
}

export interface CommentsTable extends Timestamps {
  id: string;
  objectType: ObjectType;
  objectId: string;
  userId: string;
  content: string;
  imageFileId: string | null;
  status: Defaulted<'active' | 'hidden'>;
}

/** 0013: one row per counted play of a video; videos.view_count and performers.view_count are these rows counted. */
export interface VideoViewsTable {
  id: string;
  videoId: string;
  performerId: string;
  /** `u:<user id>`, or `g:<keyed hash of the IP>` for a guest. */
  viewer: string;
  createdAt: string;
}

/** 0019: a fan follows a performer (free): their new posts, videos and galleries come to the fan's feed. */
export interface FollowsTable {
  userId: string;
  performerId: string;
  createdAt: string;
}

/** 0021: one fan and one performer's conversation (server/messages/README.md). */
export interface ConversationsTable {
  id: string;
  fanId: string;
  performerId: string;
  createdAt: string;
  lastMessageAt: string;
  lastMessageId: string | null;
}

/** 0021: a direct message; `readAt` is when its recipient saw it. */
export interface MessagesTable {
  id: string;
  conversationId: string;
  senderId: string;
  recipientId: string;
  body: Defaulted<string>;
  massMessageId: string | null;
  createdAt: string;
  readAt: string | null;
  /** 0025: minor units the recipient pays to open the attachments; 0 for a free message. */
  price: Defaulted<number>;
}

/** 0021: a file (image or video) of a message, private to its two participants and admins. */
export interface MessageAttachmentsTable {
  messageId: string;
  fileId: string;
  kind: MessageAttachmentKind;
  position: Defaulted<number>;
}

/** 0021: a fan a performer blocked (no messages, comments or new subscriptions to that performer). */
export interface PerformerBlocksTable {
  performerId: string;
  userId: string;
  createdAt: string;
}

/** 0021: a performer's message to all live subscribers or all followers, delivered by the `messages.mass` job. */
export interface MassMessagesTable {
  id: string;
  performerId: string;
  audience: MassAudience;
  body: Defaulted<string>;
  /** JSON array of the `files` ids every delivered copy carries. */
  fileIds: Defaulted<string>;
  total: Defaulted<number>;
  status: Defaulted<'sending' | 'done'>;
  cursorUserId: Defaulted<string>;
  createdAt: string;
  finishedAt: string | null;
  /** 0025: the price every copy carries (minor units; 0 for free). */
  price: Defaulted<number>;
}

/** 0022: a fan's tip to a performer: where it was given and the fan's note (its money is the payment's). */
export interface TipsTable {
  id: string;
  paymentId: string;
  userId: string;
  performerId: string;
  amount: number;
  contextType: TipContextType | null;
  contextId: string | null;
  note: string | null;
  createdAt: string;
}

/** 0019: an item whose `content/new` went out to its performer's followers and subscribers (once per item). */
export interface ContentAnnouncementsTable {
  objectType: 'video' | 'gallery' | 'post';
  objectId: string;
  performerId: string;
  announcedAt: string;
}

export interface ReactionsTable {
  id: string;
  objectType: ObjectType;
  objectId: string;
  userId: string;
  action: ReactionAction;
  createdAt: string;
}

export interface SubscriptionPackagesTable extends Timestamps {
  id: string;
  name: string;
  description: string | null;
  type: string;
  price: number;
  durationDays: number;
  ordering: Defaulted<number>;
  status: Defaulted<ActiveStatus>;
}

export interface SubscriptionsTable extends Timestamps {
  id: string;
  userId: string;
  performerId: string;
  type: SubscriptionType;
  status: SubscriptionStatus;
  startedAt: string | null;
  expiresAt: string | null;
  cancelledAt: string | null;
  cancelAtPeriodEnd: Defaulted<Flag>;
  gateway: string | null;
  gatewaySubscriptionId: string | null;
  lastPaymentId: string | null;
  autoRenew: Defaulted<Flag>;
  renewalAmount: number | null;
  renewalCurrency: string | null;
  periodDays: number | null;
  renewalFailedAt: string | null;
  graceUntil: string | null;
  /** 0017: the upcoming yearly renewal of this period was mailed (cleared when a period is added). */
  renewalRemindedAt: string | null;
}

export interface PaymentsTable extends Timestamps {
  id: string;
  userId: string;
  performerId: string | null;
  type: PaymentType;
  status: Defaulted<PaymentStatus>;
  gateway: string;
  gatewayRef: string | null;
  targetId: string | null;
  originalPrice: number;
  discount: Defaulted<number>;
  amount: number;
  currency: string;
  couponId: string | null;
  shippingAddress: string | null;
  details: Defaulted<string>;
  paidAt: string | null;
  /** 0005: when an unpaid checkout (and the stock it holds) expires. */
  expiresAt: string | null;
  /** 0005: the provider's hosted payment page. */
  checkoutUrl: string | null;
  /** 0005: the provider's charge id (Stripe PaymentIntent), known once paid. */
  gatewayIntentRef: string | null;
  /** 0005: 1 while this payment holds the stock of its physical items. */
  stockHeld: Defaulted<Flag>;
  /** 0010: 1 while this unpaid payment holds one use of its coupon (counted in coupons.used_count). */
  couponHeld: Defaulted<Flag>;
  /** 0005: a refund or chargeback received before the payment was paid, applied when it is. */
  deferredReversal: 'refunded' | 'chargeback' | null;
  reversedAt: string | null;
  /** 0020: minor units given back of a payment that stays paid (a partial refund); the site kept amount − this. */
  refundedAmount: Defaulted<number>;
}

export interface PaymentItemsTable {
  id: string;
  paymentId: string;
  /** 0022: 'tip' for a tip, whose `object_id` is its `tips` row. */
  objectType: PaymentItemObjectType;
  objectId: string;
  performerId: string | null;
  quantity: Defaulted<number>;
  unitPrice: number;
  /** 0005: this line's share of the coupon discount (minor units). */
  discount: Defaulted<number>;
}

export interface WebhookEventsTable {
  gateway: string;
  eventId: string;
  type: string;
  paymentId: string | null;
  payload: string;
  outcome: string | null;
  receivedAt: string;
}

export interface EntitlementsTable {
  userId: string;
  /** 0025: also 'message', a paid message bought by its recipient. */
  objectType: EntitlementObjectType;
  objectId: string;
  paymentId: string;
  revokedAt: string | null;
  createdAt: string;
}

export interface OrdersTable extends Timestamps {
  id: string;
  orderNumber: string;
  paymentId: string;
  buyerId: string;
  performerId: string;
  status: Defaulted<OrderStatus>;
  deliveryStatus: Defaulted<DeliveryStatus>;
  shippingAddress: string | null;
  trackingCode: string | null;
  totalPrice: number;
}

export interface OrderItemsTable {
  id: string;
  orderId: string;
  productId: string;
  name: string;
  productType: ProductType;
  quantity: number;
  unitPrice: number;
  totalPrice: number;
}

export interface CouponsTable extends Timestamps {
  id: string;
  name: string;
  code: string;
  valueBps: number;
  expiresAt: string | null;
  maxUses: Defaulted<number>;
  usedCount: Defaulted<number>;
  status: Defaulted<ActiveStatus>;
  /** A performer's promotion (migration 0018): scoped to their subscriptions, applied without a code. */
  performerId: Defaulted<string | null>;
  autoApply: Defaulted<Flag>;
  newSubscribersOnly: Defaulted<Flag>;
  startsAt: Defaulted<string | null>;
}

export interface EarningsTable {
  id: string;
  paymentId: string;
  performerId: string;
  userId: string;
  sourceType: string;
  gross: number;
  commission: number;
  net: number;
  commissionBps: number;
  isPaid: Defaulted<Flag>;
  paidAt: string | null;
  payoutId: string | null;
  createdAt: string;
  /** 0005: earnings are per payment item: one 'credit' when paid, one negative 'reversal' on refund or chargeback. */
  paymentItemId: string | null;
  entry: Defaulted<EarningEntry>;
  /** 0020: on a 'partial_refund' row, the payment's refunded amount this row brought it to; 0 on the others. */
  refundedTo: Defaulted<number>;
  /** 0009: 1 = credited by the sandbox gateway: shown as test money, never payable, never paid out. */
  testMoney: Defaulted<Flag>;
}

/**
 * 0006: a batch of earnings paid to a performer; 0016: asked for by the performer first (requested, approved, then paid
 * or rejected), or recorded by an admin as paid at once. The earnings it claimed carry its id.
 */
export interface PayoutsTable {
  id: string;
  performerId: string;
  amount: number;
  earningsCount: number;
  currency: string;
  note: string | null;
  /** The admin who recorded it or acted on it last; null while only the performer asked. */
  actorId: string | null;
  /** When it was recorded or asked for. */
  createdAt: string;
  status: Defaulted<PayoutStatus>;
  method: PayoutMethod | null;
  /** The payout details when it was asked for, encrypted (server/settings/secrets.ts); erased once paid or rejected. */
  detailsEnc: string | null;
  /** JSON: the masked view of those details, kept for the record. */
  detailsMasked: string | null;
  reference: string | null;
  reason: string | null;
  approvedAt: string | null;
  paidAt: string | null;
  rejectedAt: string | null;
  updatedAt: string | null;
}

/** 0016: how a performer is paid: the method and the details as encrypted JSON. */
export interface PayoutDetailsTable extends Timestamps {
  performerId: string;
  method: PayoutMethod;
  detailsEnc: string;
}

/** 0005: the built-in sandbox gateway's own record of a checkout (what a real provider keeps on its side). */
export interface SandboxChargesTable {
  id: string;
  paymentId: string;
  amount: number;
  currency: string;
  description: string;
  status: Defaulted<'pending' | 'paid' | 'declined' | 'cancelled' | 'refunded' | 'chargeback'>;
  returnUrl: string;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  recurringDays: number | null;
  renewalAmount: number | null;
  /** A free trial's first period in days (migration 0018); null: the first period is recurring_days. */
  firstPeriodDays: number | null;
  renewalOf: string | null;
  notified: Defaulted<Flag>;
  /** 0020: what the provider gave back of a charge it keeps as paid (a partial refund). */
  refundedAmount: Defaulted<number>;
}

export interface SandboxSubscriptionsTable {
  id: string;
  chargeId: string;
  amount: number;
  currency: string;
  periodDays: number;
  status: Defaulted<'active' | 'cancelled'>;
  periodEnd: string;
  nextChargeAt: string;
  failRenewals: Defaulted<number>;
  renewals: Defaulted<number>;
  createdAt: string;
  updatedAt: string;
}

export interface SettingsTable {
  key: string;
  value: string;
  group: Defaulted<string>;
  public: Defaulted<Flag>;
  updatedAt: string;
}

export interface CountryBlocksTable {
  countryCode: string;
  createdAt: string;
}

export interface ContactsTable {
  id: string;
  name: string;
  email: string;
  subject: string | null;
  message: string;
  ip: string | null;
  createdAt: string;
}

export interface NotificationsTable {
  id: string;
  userId: string;
  type: string;
  payload: Defaulted<string>;
  readAt: string | null;
  createdAt: string;
  /** What the row is about, for batching its mails (a conversation: `conversation:<id>`); null for most. */
  thread: string | null;
  /** When its mail went out (null: none, or none yet). */
  emailedAt: string | null;
  /** When it was pushed as `notification/created` (null: not yet). */
  pushedAt: string | null;
}

/** A user's email choice for one notification type; no row = the default (on). Migration 0023. */
export interface NotificationPreferencesTable {
  userId: string;
  type: string;
  email: Flag;
  updatedAt: string;
}

export interface AuditLogTable {
  id: string;
  actorId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  details: Defaulted<string>;
  ip: string | null;
  createdAt: string;
}

/** Reports of performers, items and comments (migration 0024; docs/product.md, Reports). */
export interface ReportsTable {
  id: string;
  reporterId: string;
  targetType: ReportTargetType;
  targetId: string;
  reason: ReportReason;
  details: string | null;
  status: Defaulted<ReportStatus>;
  outcome: ReportOutcome | null;
  createdAt: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
}

/** Takedown requests (migration 0028; docs/product.md, Takedown requests; server/takedowns/README.md). */
export interface TakedownRequestsTable {
  id: string;
  reference: string;
  targetType: TakedownTargetType;
  targetId: string;
  url: string;
  requesterName: string;
  requesterEmail: string;
  relationship: TakedownRelationship;
  statement: string;
  declaredAt: string;
  isLead: Defaulted<Flag>;
  previousStatus: string | null;
  status: Defaulted<TakedownStatus>;
  createdAt: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
}

export interface WatermarkRunsTable {
  id: string;
  status: 'running' | 'done' | 'superseded';
  enabled: number;
  position: string;
  opacity: number;
  total: number;
  cursorType: Defaulted<string>;
  cursorId: Defaulted<string>;
  paged: Defaulted<number>;
  startedBy: string | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface WatermarkItemsTable {
  runId: string;
  objectType: 'video' | 'photo' | 'post_media';
  objectId: string;
  status: 'queued' | 'done' | 'failed';
  error: string | null;
  updatedAt: string;
}

/** Performers' identity and age verifications (migration 0026; server/verification/README.md). */
export interface PerformerVerificationsTable extends Timestamps {
  id: string;
  performerId: string;
  status: Defaulted<VerificationStatus>;
  legalName: string;
  /** YYYY-MM-DD. */
  dateOfBirth: string;
  /** ISO 3166-1 alpha-2, the country that issued the document. */
  country: string;
  documentFrontFileId: string | null;
  documentBackFileId: string | null;
  selfieFileId: string | null;
  seeded: Defaulted<Flag>;
  submittedAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  reason: string | null;
  filesDeletedAt: string | null;
}

/** 0030: a user's "download my data" request and the JSON file it made (server/privacy/README.md). */
export interface DataExportsTable {
  id: string;
  userId: string;
  status: Defaulted<DataExportStatus>;
  fileId: string | null;
  size: Defaulted<number>;
  error: string | null;
  createdAt: string;
  updatedAt: string;
  readyAt: string | null;
  expiresAt: string | null;
}

/** People shown in a performer's video, gallery or post, and their consent (migration 0027; server/consent/README.md). */
export interface CoPerformersTable {
  id: string;
  objectType: CoPerformerObjectType;
  objectId: string;
  ownerId: string;
  kind: CoPerformerKind;
  performerId: string | null;
  legalName: string | null;
  releaseFileId: string | null;
  idFileId: string | null;
  status: CoPerformerStatus;
  createdAt: string;
  updatedAt: string;
  respondedAt: string | null;
}

export interface Database {
  users: UsersTable;
  sessions: SessionsTable;
  authTokens: AuthTokensTable;
  performers: PerformersTable;
  performerBlockedCountries: PerformerBlockedCountriesTable;
  categories: CategoriesTable;
  contentCategories: ContentCategoriesTable;
  contentTags: ContentTagsTable;
  files: FilesTable;
  jobs: JobsTable;
  videos: VideosTable;
  galleries: GalleriesTable;
  photos: PhotosTable;
  products: ProductsTable;
  posts: PostsTable;
  postMedia: PostMediaTable;
  banners: BannersTable;
  comments: CommentsTable;
  reactions: ReactionsTable;
  follows: FollowsTable;
  conversations: ConversationsTable;
  messages: MessagesTable;
  messageAttachments: MessageAttachmentsTable;
  performerBlocks: PerformerBlocksTable;
  massMessages: MassMessagesTable;
  watermarkRuns: WatermarkRunsTable;
  watermarkItems: WatermarkItemsTable;
  tips: TipsTable;
  contentAnnouncements: ContentAnnouncementsTable;
  videoViews: VideoViewsTable;
  subscriptionPackages: SubscriptionPackagesTable;
  subscriptions: SubscriptionsTable;
  payments: PaymentsTable;
  paymentItems: PaymentItemsTable;
  webhookEvents: WebhookEventsTable;
  entitlements: EntitlementsTable;
  orders: OrdersTable;
  orderItems: OrderItemsTable;
  coupons: CouponsTable;
  earnings: EarningsTable;
  payouts: PayoutsTable;
  payoutDetails: PayoutDetailsTable;
  sandboxCharges: SandboxChargesTable;
  sandboxSubscriptions: SandboxSubscriptionsTable;
  settings: SettingsTable;
  countryBlocks: CountryBlocksTable;
  contacts: ContactsTable;
  notifications: NotificationsTable;
  notificationPreferences: NotificationPreferencesTable;
  auditLog: AuditLogTable;
  reports: ReportsTable;
  takedownRequests: TakedownRequestsTable;
  performerVerifications: PerformerVerificationsTable;
  dataExports: DataExportsTable;
  coPerformers: CoPerformersTable;
}

export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type Performer = Selectable<PerformersTable>;
export type Video = Selectable<VideosTable>;
export type Banner = Selectable<BannersTable>;
export type Setting = Selectable<SettingsTable>;
export type FileRow = Selectable<FilesTable>;
export type { Generated };
