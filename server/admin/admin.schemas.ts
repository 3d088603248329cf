import { countries } from 'countries-list';
import { z } from 'zod';
import { pageQuery } from '../../common/schemas/http.js';
import { isSiteLink, LINK_MAX, LINK_MESSAGE } from '../../common/links.js';
import { MAX_PRICE_MINOR } from '../../common/money.js';

/** Request shapes of the admin console (server/admin/*.routes.ts). Unknown body fields are refused (400). */

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
    currency: z.string().trim().toUpperCase().regex(/^[A-Z]{3}$/, 'Currency must be a three-letter ISO 4217 code'),
    currencySymbol: z.string().trim().min(1, 'Currency symbol is required').max(5),
    maintenanceMode: z.boolean(),
    commissionBps: z.number().int().min(0, 'Commission cannot be negative').max(10_000, 'Commission must be at most 100 %'),
    unapprovedItemQuota: z.number().int().min(0).max(10_000),
  })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'Send at least one setting');
export type SettingsBody = z.infer<typeof settingsBody>;

const secretField = z.string().trim().max(500).nullable();
export const paymentSettingsBody = z
  .object({
    paymentGateway: z.enum(['sandbox', 'stripe']),
    stripeSecretKey: secretField,
    stripeWebhookSecret: secretField,
    checkoutExpiryMinutes: z.number().int().min(5).max(1440),
    stockHoldMaxPerBuyer: z.number().int().min(1).max(100),
  })
  .partial()
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'Send at least one setting');

export const siteImageParams = z.object({ kind: z.enum(['logo', 'favicon', 'login-placeholder']) });

const status = z.enum(['active', 'inactive']);
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
    group: z.enum(['performer', 'video', 'gallery', 'product', 'post']),
    description: z.string().trim().max(2000).nullable().optional(),
    ordering: ordering.optional(),
    status: status.optional(),
  })
  .strict();
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
  role: z.enum(['user', 'performer', 'admin']).optional(),
  status: z.enum(['active', 'suspended', 'pending']).optional(),
});
export const performerListQuery = adminPage.extend({
  q,
  status: z.enum(['active', 'inactive', 'suspended']).optional(),
  approved: z.enum(['0', '1']).optional(),
});
export const reasonBody = z.object({ reason: z.string().trim().max(500).optional() }).strict().optional();
export const approveBody = z.object({ approved: z.boolean().default(true) }).strict().optional();

export const contentTypes = ['video', 'gallery', 'product', 'post'] as const;
export type ContentType = (typeof contentTypes)[number];
export const contentListQuery = adminPage.extend({ type: z.enum(contentTypes).default('video'), q, status: z.string().trim().max(20).optional() });
export const contentParams = z.object({ type: z.enum(contentTypes), id: idParams.shape.id });
export const contentStatusBody = z.object({ status: z.enum(['active', 'inactive', 'hidden', 'published', 'draft']) }).strict();

export const commentListQuery = adminPage.extend({ q, objectType: z.string().trim().max(20).optional() });

const isoDate = z.iso.datetime({ offset: true }).or(z.iso.date()).optional();
export const paymentListQuery = adminPage.extend({
  q,
  status: z.enum(['pending', 'success', 'failed', 'cancelled', 'refunded', 'chargeback']).optional(),
  type: z.enum(['subscription_monthly', 'subscription_yearly', 'video', 'products', 'gallery', 'post']).optional(),
  gateway: z.string().trim().max(20).optional(),
  userId: z.string().trim().max(64).optional(),
  performerId: z.string().trim().max(64).optional(),
  from: isoDate,
  to: isoDate,
});
export const orderListQuery = adminPage.extend({
  q,
  status: z.enum(['pending', 'paid', 'cancelled', 'refunded']).optional(),
  deliveryStatus: z.enum(['created', 'processing', 'shipping', 'delivered', 'cancelled']).optional(),
  performerId: z.string().trim().max(64).optional(),
  buyerId: z.string().trim().max(64).optional(),
});
export const earningsQuery = adminPage.extend({ q, unpaidOnly: z.enum(['0', '1']).optional() });
export const earningRowsQuery = adminPage.extend({ performerId: z.string().trim().min(1).max(64), paid: z.enum(['0', '1']).optional() });
export const payoutBody = z.object({ performerId: z.string().trim().min(1).max(64), note: z.string().trim().max(500).optional() }).strict();
export const payoutListQuery = adminPage.extend({ performerId: z.string().trim().max(64).optional() });
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
