import { countries } from 'countries-list';
import { z } from 'zod';
import {
  accountStatusSchema, activeStatusSchema, categoryGroupSchema, contentStatusSchema, contentTypeSchema, deliveryStatusSchema, gatewaySchema,
  orderStatusSchema, paymentStatusSchema, paymentTypeSchema, payoutMethodSchema, payoutStatusSchema, performerStatusSchema, postStatusSchema, roleSchema,
  type ContentType,
} from '../enums.js';
import { isSiteLink, LINK_MAX, LINK_MESSAGE } from '../links.js';
import { IP_RANGES_MAX, parseIpv4Ranges } from '../ip-ranges.js';
import { MAX_PRICE_MINOR } from '../money.js';
import { listSchema, pageQuery } from './http.js';
import { publicSettingsSchema } from './site.js';
import { payoutRequestSchema } from './money.js';

/**
 * The admin console's API (server/admin/*.routes.ts): request shapes (unknown body fields are refused, 400), then
 * the answers. Its lists name what they refer to beside the ids (`personRef`, `itemRef`).
 */

export const adminPage = pageQuery.omit({ cursor: true }).extend({ limit: z.coerce.number().int().min(1).max(100).default(20) });
export const idParams = z.object({ id: z.string().trim().min(1, 'Id is required').max(64, 'Invalid id') });
const q = z.string().trim().max(100, 'Search text must be at most 100 characters').optional();

/** A site path ("/videos") or an absolute http(s) address; never `javascript:` and friends (common/links.ts). */
export const linkField = z
  .string()
  .trim()
  .min(1, 'Required')
  .max(LINK_MAX, `At most ${LINK_MAX} characters`)
  .refine(isSiteLink, LINK_MESSAGE);

export const menuItemSchema = z.object({
  title: z.string().trim().min(1, 'Title is required').max(60, 'Title must be at most 60 characters'),
  path: linkField,
  section: z.enum(['header', 'footer']),
  isNewTab: z.boolean().optional(),
  ordering: z.number().int().min(0).max(1000).optional(),
});

export const settingsBody = z
  .object({
    siteName: z.string().trim().min(1, 'Site name is required').max(100),
    /** Empty: no logo, the header shows the site name alone. */
    logoUrl: linkField.or(z.literal('')),
    favicon: linkField,
    loginPlaceholderImage: linkField,
    menus: z.array(menuItemSchema).max(50, 'At most 50 menu items'),
    footerContent: z.string().max(5000, 'Footer content must be at most 5000 characters'),
    recordKeepingStatement: z.string().trim().min(1, 'Write the record-keeping statement').max(20_000, 'The record-keeping statement must be at most 20,000 characters'),
    currency: z.string().trim().toUpperCase().regex(/^[A-Z]{3}$/, 'Currency must be a three-letter ISO 4217 code'),
    currencySymbol: z.string().trim().min(1, 'Currency symbol is required').max(5),
    maintenanceMode: z.boolean(),
    commissionBps: z.number().int().min(0, 'Commission cannot be negative').max(10_000, 'Commission must be at most 100 %'),
    unapprovedItemQuota: z.number().int().min(0).max(10_000),
    ageGateEnabled: z.boolean(),
    /** ISO country codes, as a list or as the console's text ("DE, FR"); empty: everywhere. */
    ageGateCountries: z
      .union([z.array(z.string().max(10)).max(250), z.string().max(1000)])
      .transform((v, ctx) => {
        const list = (Array.isArray(v) ? v : v.split(/[\s,;]+/)).map((c) => c.trim().toUpperCase()).filter(Boolean);
        const bad = list.find((c) => !/^[A-Z]{2}$/.test(c));
        if (bad) {
          ctx.addIssue({ code: 'custom', message: `"${bad.slice(0, 10)}" is not a two-letter country code (ISO 3166-1, e.g. DE)` });
          return z.NEVER;
        }
        return [...new Set(list)];
      }),
    verificationDocumentRetentionDays: z.number().int().min(0).max(3650),
  })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'Send at least one setting');
export type SettingsBody = z.output<typeof settingsBody>;
export type SettingsChanges = z.input<typeof settingsBody>;

const secretField = z.string().trim().max(500).nullable();
/** An account number, or '' to clear it. */
const digitsField = (n: number, what: string) => z.string().trim().regex(new RegExp(`^(\\d{${n}})?$`), `The ${what} is a ${n}-digit number`);
export const paymentSettingsBody = z
  .object({
    paymentGateway: gatewaySchema,
    stripeSecretKey: secretField,
    stripeWebhookSecret: secretField,
    ccbillAccount: digitsField(6, 'CCBill account'),
    ccbillSubaccount: digitsField(4, 'CCBill subaccount'),
    ccbillFlexFormId: z.string().trim().regex(/^([0-9A-Za-z-]{8,64})?$/, 'The Flex ID looks like 687fa3e0-e60d-4466-88e2-181fa56dd6a9'),
    ccbillSalt: secretField,
    ccbillDatalinkUser: z.string().trim().max(100),
    ccbillDatalinkPassword: secretField,
    // Empty: CCBill's published webhook addresses.
    ccbillWebhookIps: z
      .string()
      .trim()
      .max(IP_RANGES_MAX)
      .superRefine((v, ctx) => {
        const parsed = parseIpv4Ranges(v);
        if (!parsed.ok) ctx.addIssue({ code: 'custom', message: parsed.message });
      }),
    checkoutExpiryMinutes: z.number().int().min(5).max(1440),
    stockHoldMaxPerBuyer: z.number().int().min(1).max(100),
    renewalGraceDays: z.number().int().min(0).max(30),
    renewalReminderDays: z.number().int().min(0).max(60),
    payoutHoldDays: z.number().int('Whole days only').min(0, 'The hold cannot be negative').max(90, 'At most 90 days'),
    payoutMinimum: z.number().int('Minor units (cents)').min(100, 'The minimum payout is at least 1.00').max(MAX_PRICE_MINOR, 'The minimum payout is too large'),
    tipMinimum: z.number().int('Minor units (cents)').min(1, 'The smallest tip is at least 0.01').max(MAX_PRICE_MINOR, 'The smallest tip is too large'),
    tipMaximum: z.number().int('Minor units (cents)').min(1, 'The largest tip is at least 0.01').max(MAX_PRICE_MINOR, 'The largest tip is too large'),
  })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'Send at least one setting');

export const siteImageParams = z.object({ kind: z.enum(['logo', 'favicon', 'login-placeholder']) });

const status = activeStatusSchema;
const ordering = z.number().int().min(-100_000).max(100_000);

export const bannerBody = z
  .object({
    title: z.string().trim().min(1, 'Title is required').max(200),
    description: z.string().trim().max(2000).nullable().optional(),
    link: linkField.nullable().optional(),
    position: z.string().trim().regex(/^[a-z0-9_-]{1,30}$/, 'Position is a short lowercase word, e.g. "top"').optional(),
    ordering: ordering.optional(),
    status: status.optional(),
  })
  .strict();
export const bannerPatch = bannerBody.partial().strict().refine((b) => Object.keys(b).length > 0, 'Send at least one field');

export const categoryBody = z
  .object({
    name: z.string().trim().min(1, 'Name is required').max(100),
    slug: z.string().trim().toLowerCase().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Slug: lowercase letters, digits and dashes').max(100).optional(),
    group: categoryGroupSchema,
    description: z.string().trim().max(2000).nullable().optional(),
    ordering: ordering.optional(),
    status: status.optional(),
  })
  .strict();
export const categoryListQuery = adminPage.extend({ group: categoryGroupSchema.optional() });
export const categoryPatch = categoryBody.partial().strict().refine((b) => Object.keys(b).length > 0, 'Send at least one field');

export const countryCodeField = z
  .string()
  .trim()
  .toUpperCase()
  .refine((c) => Object.hasOwn(countries, c), 'Country must be a two-letter ISO 3166 country code, e.g. "US"');
export const countryBlockBody = z.object({ countryCode: countryCodeField }).strict();
export const countryParams = z.object({ code: countryCodeField });

export const couponBody = z
  .object({
    name: z.string().trim().min(1, 'Name is required').max(100),
    code: z.string().trim().toUpperCase().regex(/^[A-Z0-9_-]{3,40}$/, 'Code: 3 to 40 letters, digits, "_" or "-"'),
    /** Discount rate in basis points: 1000 = 10 %. */
    valueBps: z.number().int().min(1, 'Value must be at least 0.01 %').max(10_000, 'Value must be at most 100 %'),
    expiresAt: z.iso.datetime({ offset: true, error: 'Expiry must be an ISO date-time' }).transform((v) => new Date(v).toISOString()).nullable().optional(),
    maxUses: z.number().int().min(1).max(1_000_000),
    status: status.optional(),
  })
  .strict();
export const couponListQuery = adminPage.extend({ q: z.string().trim().max(100).optional() });
export type CouponRequest = z.input<typeof couponBody>;
export const couponPatch = couponBody.partial().strict().refine((b) => Object.keys(b).length > 0, 'Send at least one field');

export const packageBody = z
  .object({
    name: z.string().trim().min(1, 'Name is required').max(100),
    description: z.string().trim().max(2000).nullable().optional(),
    type: z.string().trim().regex(/^[a-z0-9_-]{1,40}$/, 'Type is a short lowercase word, e.g. "monthly"'),
    /** Minor units (499 = 4.99); the console types it as money (common/money.ts parseMoney). */
    price: z.number().int('Price must be whole minor units (cents)').min(0, 'Price cannot be negative').max(MAX_PRICE_MINOR, 'Price must be at most 1,000,000.00'),
    durationDays: z.number().int().min(1).max(3650),
    ordering: ordering.optional(),
    status: status.optional(),
  })
  .strict();
export const packagePatch = packageBody.partial().strict().refine((b) => Object.keys(b).length > 0, 'Send at least one field');

export const commissionBody = z.object({ commissionBps: z.number().int().min(0, 'Commission cannot be negative').max(10_000, 'Commission must be at most 100 %').nullable() }).strict();

export const userListQuery = adminPage.extend({
  q,
  role: roleSchema.optional(),
  status: accountStatusSchema.optional(),
});
export const performerListQuery = adminPage.extend({
  q,
  status: performerStatusSchema.optional(),
  approved: z.enum(['0', '1']).optional(),
});
export const reasonBody = z.object({ reason: z.string().trim().max(500).optional() }).strict().optional();
export const approveBody = z.object({ approved: z.boolean().default(true) }).strict().optional();

export const contentListQuery = adminPage.extend({ type: contentTypeSchema.default('video'), q, status: z.string().trim().max(20).optional() });
export const contentParams = z.object({ type: contentTypeSchema, id: idParams.shape.id });
/** What an admin may set: videos, galleries and products active, inactive or hidden; posts published, draft or hidden. */
const itemStatus = contentStatusSchema.extract(['active', 'inactive', 'hidden']);
const postStatus = postStatusSchema.extract(['published', 'draft', 'hidden']);
export const adminContentStatuses: Record<ContentType, readonly string[]> = { video: itemStatus.options, gallery: itemStatus.options, product: itemStatus.options, post: postStatus.options };
export const contentStatusBody = z.object({ status: z.enum([...itemStatus.options, ...postStatus.exclude(['hidden']).options]) }).strict();

export const commentListQuery = adminPage.extend({ q, objectType: z.string().trim().max(20).optional() });

const isoDate = z.iso.datetime({ offset: true }).or(z.iso.date()).optional();
export const paymentListQuery = adminPage.extend({
  q,
  status: paymentStatusSchema.optional(),
  type: paymentTypeSchema.optional(),
  gateway: z.string().trim().max(20).optional(),
  userId: z.string().trim().max(64).optional(),
  performerId: z.string().trim().max(64).optional(),
  from: isoDate,
  to: isoDate,
});
export const orderListQuery = adminPage.extend({
  q,
  status: orderStatusSchema.optional(),
  deliveryStatus: deliveryStatusSchema.optional(),
  performerId: z.string().trim().max(64).optional(),
  buyerId: z.string().trim().max(64).optional(),
});
export const earningsQuery = adminPage.extend({ q, unpaidOnly: z.enum(['0', '1']).optional() });
export const earningRowsQuery = adminPage.extend({ performerId: z.string().trim().min(1).max(64), paid: z.enum(['0', '1']).optional() });
export const payoutBody = z.object({ performerId: z.string().trim().min(1).max(64), note: z.string().trim().max(500).optional() }).strict();
export const payoutListQuery = adminPage.extend({ performerId: z.string().trim().max(64).optional() });
/** `GET /admin/payout-requests`: `open` is requested or approved (the queue); no status: every payout. */
export const payoutRequestsQuery = adminPage.extend({
  status: z.enum(['open', ...payoutStatusSchema.options]).optional(),
  performerId: z.string().trim().max(64).optional(),
});
export type PayoutRequestsQuery = z.output<typeof payoutRequestsQuery>;
export const rejectPayoutBody = z
  .object({ reason: z.string({ error: 'Say why the payout is rejected' }).trim().min(3, 'Say why the payout is rejected (the performer reads it)').max(500, 'At most 500 characters') })
  .strict();
export const payPayoutBody = z
  .object({ reference: z.string({ error: 'Enter the transfer\'s reference' }).trim().min(1, 'Enter the transfer\'s reference').max(200, 'At most 200 characters') })
  .strict();
export const auditQuery = adminPage.extend({
  action: z.string().trim().max(60).optional(),
  actorId: z.string().trim().max(64).optional(),
  targetType: z.string().trim().max(30).optional(),
  targetId: z.string().trim().max(64).optional(),
});
export const dashboardQuery = z.object({ days: z.coerce.number().int().min(7).max(365).default(30) });

// Response pieces: the names console lists show beside ids (server/admin/admin.repository.ts describeRefs).
/** A user or performer by name; null when the account is gone. */
export const personRef = z.object({ _id: z.string(), username: z.string(), name: z.string() }).nullable();
/** An item (video, gallery, photo, product, post, performer) by title; `title` null when it was deleted; `parentId`: a photo's gallery. */
export const itemRef = z.object({ type: z.string(), _id: z.string(), title: z.string().nullable(), username: z.string().nullable(), parentId: z.string().nullable() });

// ---------------------------------------------------------------------------------------------------------------
// Answers.

export const okSchema = z.object({ ok: z.literal(true) });

// Moderation (server/admin/moderation.routes.ts)
export const performerSchema = z.object({
  _id: z.string(), username: z.string(), name: z.string(), email: z.string(), status: z.string(), accountStatus: z.string(), approved: z.boolean(),
  commissionBps: z.number().nullable(), subscriberCount: z.number(), videoCount: z.number(), createdAt: z.string(),
});
export const contentSchema = z.object({ _id: z.string(), type: z.string(), title: z.string(), status: z.string(), performerId: z.string().nullable(), performer: personRef, createdAt: z.string() });
export const commentSchema = z.object({
  _id: z.string(), objectType: z.string(), objectId: z.string(), object: itemRef, content: z.string(), status: z.string(),
  user: z.object({ _id: z.string(), username: z.string(), name: z.string() }), createdAt: z.string(),
});
export const accountState = z.object({ _id: z.string(), status: accountStatusSchema, sessionsRevoked: z.number() });
export type AccountState = z.output<typeof accountState>;

export const approvalSchema = z.object({ _id: z.string(), approved: z.boolean() });
export const contentStateSchema = z.object({ _id: z.string(), type: z.string(), status: z.string() });

// Money (server/admin/money.routes.ts)
export const paymentSchema = z.object({
  _id: z.string(), type: z.string(), status: z.string(), gateway: z.string(), gatewayRef: z.string().nullable(), amount: z.number(), originalPrice: z.number(),
  discount: z.number(), refundedAmount: z.number(), currency: z.string(), performerId: z.string().nullable(), couponId: z.string().nullable(), paidAt: z.string().nullable(), createdAt: z.string(),
  user: z.object({ _id: z.string(), username: z.string(), email: z.string(), name: z.string() }),
  /** The performer paid (null for a site payment) and what was bought, by name. */
  performer: personRef,
  items: z.array(itemRef),
});
export const orderSchema = z.object({
  _id: z.string(), orderNumber: z.string(), paymentId: z.string(), buyerId: z.string(), performerId: z.string(), status: z.string(), deliveryStatus: z.string(),
  totalPrice: z.number(), trackingCode: z.string().nullable(), createdAt: z.string(),
});
/** A row of the orders list: the order with its buyer's and performer's names and its products' names. */
export const orderRowSchema = orderSchema.extend({
  buyer: personRef,
  performer: personRef,
  lines: z.array(z.object({ productId: z.string(), name: z.string(), quantity: z.number() })),
});
export const performerEarningsSchema = z.object({
  performerId: z.string(), username: z.string(), name: z.string(), gross: z.number(), commission: z.number(), net: z.number(), unpaidNet: z.number(), paidNet: z.number(),
  /** The part of unpaidNet in the performer's open payout request (paid through the request queue). */
  requestedNet: z.number(),
  /** Net of sandbox earnings: shown, never owed. */
  testNet: z.number(), count: z.number(),
});
export const earningSchema = z.object({
  _id: z.string(), paymentId: z.string(), performerId: z.string(), userId: z.string(), sourceType: z.string(), entry: z.string(), gross: z.number(), commission: z.number(),
  net: z.number(), commissionBps: z.number(), isPaid: z.boolean(), test: z.boolean(), paidAt: z.string().nullable(), payoutId: z.string().nullable(), createdAt: z.string(),
});
export const payoutSchema = z.object({
  _id: z.string(), performerId: z.string(), username: z.string().nullable(), name: z.string().nullable(), amount: z.number(), earningsCount: z.number(), currency: z.string(), note: z.string().nullable(),
  actorId: z.string().nullable(), createdAt: z.string(),
});
/** A row of the payout queue: the performer's view of the payout, the performer by name and who acted last. */
export const adminPayoutRequestSchema = payoutRequestSchema.extend({ performer: personRef, actorId: z.string().nullable() });
export type AdminPayoutRequest = z.output<typeof adminPayoutRequestSchema>;
/** `POST /admin/payout-requests/{id}/reveal`: the full details the payout is to be sent to (audited). */
export const payoutDetailsFullSchema = z.object({
  payoutId: z.string(),
  method: payoutMethodSchema,
  accountHolder: z.string().nullable(),
  /** The IBAN or account number. */
  accountNumber: z.string().nullable(),
  bankCode: z.string().nullable(),
  bankCountry: z.string().nullable(),
  paypalEmail: z.string().nullable(),
});
export type PayoutDetailsFull = z.output<typeof payoutDetailsFullSchema>;
/** `GET /admin/payments`: a page, and the sum of its filter's successful payments. */
export const paymentListSchema = listSchema(paymentSchema).extend({ successAmount: z.number() });
export const refundRequestSchema = z.object({ _id: z.string(), status: z.string(), refundRequested: z.literal(true) });
/** A refund asked of the provider: `amount` (minor units) for part of what is left, none for all of it. */
export const refundBody = z.object({ amount: z.number().int().positive().optional() }).strict().nullish();

// Overview (server/admin/overview.routes.ts)
const point = z.object({ date: z.string(), value: z.number() });
export const dashboardSchema = z.object({
  counts: z.object({
    users: z.number(), performers: z.number(), pendingPerformers: z.number(), suspendedUsers: z.number(), activeSubscriptions: z.number(), videos: z.number(),
    successfulPayments: z.number(), revenue: z.number(), unpaidEarnings: z.number(),
    /** Reports not yet resolved, and those of them older than REPORT_OVERDUE_DAYS (common/reports.ts). */
    openReports: z.number(), overdueReports: z.number(),
  }),
  series: z.object({ signups: z.array(point), revenue: z.array(point), activeSubscriptions: z.array(point) }),
});
export const auditSchema = z.object({
  _id: z.string(), actorId: z.string().nullable(), actorUsername: z.string().nullable(), action: z.string(), targetType: z.string().nullable(), targetId: z.string().nullable(),
  details: z.record(z.string(), z.unknown()), ip: z.string().nullable(), createdAt: z.string(),
  /** Who, by name (null: the system or a deleted account). */
  actor: personRef,
  /** What it was done to, by name; `exists` false when it has been deleted since (the name is the one recorded). */
  target: z.object({ type: z.string(), _id: z.string().nullable(), name: z.string().nullable(), username: z.string().nullable(), parentId: z.string().nullable(), exists: z.boolean() }).nullable(),
});

// Site content (server/admin/site.routes.ts)
export const bannerSchema = z.object({
  _id: z.string(), title: z.string(), description: z.string().nullable(), link: z.string().nullable(), position: z.string(), ordering: z.number(),
  status: activeStatusSchema, imageUrl: z.string().nullable(), imageFileId: z.string().nullable(), createdAt: z.string(), updatedAt: z.string(),
});
export const categorySchema = z.object({
  _id: z.string(), name: z.string(), slug: z.string(), group: z.string(), description: z.string().nullable(), ordering: z.number(), status: activeStatusSchema,
  createdAt: z.string(), updatedAt: z.string(),
});
export const couponSchema = z.object({
  _id: z.string(), name: z.string(), code: z.string(), valueBps: z.number(), expiresAt: z.string().nullable(), maxUses: z.number(), usedCount: z.number(),
  status: activeStatusSchema, createdAt: z.string(), updatedAt: z.string(),
});
export type AdminCoupon = z.output<typeof couponSchema>;
export const packageSchema = z.object({
  _id: z.string(), name: z.string(), description: z.string().nullable(), type: z.string(), price: z.number(), durationDays: z.number(), ordering: z.number(),
  status: activeStatusSchema, createdAt: z.string(), updatedAt: z.string(),
});
export const countryBlockSchema = z.object({ countryCode: z.string(), createdAt: z.string() });
export const commissionSchema = z.object({ _id: z.string(), commissionBps: z.number().nullable() });

// Settings (server/admin/settings.routes.ts)
/** A stored secret as the API shows it: never the value, only whether one is set and where it comes from. */
const secretState = z.object({ configured: z.boolean(), source: z.enum(['env', 'settings']).nullable() });
export type SecretState = z.output<typeof secretState>;
export const paymentView = z.object({
  paymentGateway: gatewaySchema,
  /** False in production unless SANDBOX_PAYMENTS=1: the sandbox cannot be chosen then. */
  sandboxAvailable: z.boolean(),
  checkoutExpiryMinutes: z.number(),
  stockHoldMaxPerBuyer: z.number(),
  renewalGraceDays: z.number(),
  renewalReminderDays: z.number(),
  /** Days an earning waits before a payout request may include it. */
  payoutHoldDays: z.number(),
  /** The smallest payout a performer may request, in minor units. */
  payoutMinimum: z.number(),
  /** The smallest and largest tip, in minor units. */
  tipMinimum: z.number(),
  tipMaximum: z.number(),
  stripeSecretKey: secretState,
  stripeWebhookSecret: secretState,
  ccbillAccount: z.string(),
  ccbillSubaccount: z.string(),
  ccbillFlexFormId: z.string(),
  ccbillSalt: secretState,
  ccbillDatalinkUser: z.string(),
  ccbillDatalinkPassword: secretState,
  /** Empty: CCBill's published webhook addresses. */
  ccbillWebhookIps: z.string(),
});
/** `GET /admin/settings`: every setting the console edits. */
export const adminSettingsSchema = publicSettingsSchema
  .pick({ siteName: true, logoUrl: true, favicon: true, loginPlaceholderImage: true, menus: true, footerContent: true, currency: true, currencySymbol: true, maintenanceMode: true })
  .extend({ commissionBps: z.number(), unapprovedItemQuota: z.number(), verificationDocumentRetentionDays: z.number(), recordKeepingStatement: z.string(), ageGateEnabled: z.boolean(), ageGateCountries: z.array(z.string()), payment: paymentView });
export type AdminSettings = z.output<typeof adminSettingsSchema>;
