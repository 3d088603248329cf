import { z } from 'zod';
import { pageQuery } from './http.js';

/**
 * The site's own small endpoints: public settings, promo banners, search counts, the country, language and profile
 * option lists, the country check, the captcha check and the contact form.
 */

export const menuItemSchema = z.object({
  title: z.string(),
  path: z.string(),
  /** 'header' | 'footer' */
  section: z.string(),
  isNewTab: z.boolean().optional(),
  ordering: z.number().optional(),
});
export type MenuItem = z.output<typeof menuItemSchema>;

/** Loaded by every page (docs/product.md, Site settings). */
export const publicSettingsSchema = z.object({
  siteName: z.string(),
  logoUrl: z.string(),
  favicon: z.string(),
  loginPlaceholderImage: z.string(),
  menus: z.array(menuItemSchema),
  footerContent: z.string(),
  currency: z.string(),
  currencySymbol: z.string(),
  maintenanceMode: z.boolean(),
  /** Whether forms must carry a reCAPTCHA token (only when a secret is configured). */
  captchaEnabled: z.boolean(),
  captchaSiteKey: z.string(),
});
export type PublicSettings = z.output<typeof publicSettingsSchema>;

/** `GET /settings/public`: all, or one group's. */
export const publicSettingsQuery = z.object({ group: z.string().trim().min(1).max(64).regex(/^[a-zA-Z0-9_-]+$/).optional() });

export const bannerSchema = z.object({
  _id: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  imageUrl: z.string().nullable(),
  link: z.string().nullable(),
  position: z.string(),
});
export type Banner = z.output<typeof bannerSchema>;

export const bannerSearchQuery = pageQuery.extend({ position: z.string().trim().max(32).regex(/^[a-z0-9_-]*$/).optional() });

/** `GET /search/total`: how many public items of each kind match a keyword (the search page's tab counts). */
export const searchTotalQuery = z.object({ q: z.string().trim().min(1, 'Search keyword is required').max(100) });
export const searchTotalsSchema = z.object({
  total: z.number(),
  performers: z.number(),
  videos: z.number(),
  galleries: z.number(),
  products: z.number(),
  posts: z.number(),
});
export type SearchTotals = z.output<typeof searchTotalsSchema>;

export const countryItemSchema = z.object({ code: z.string(), name: z.string(), flag: z.string() });
export type CountryItem = z.output<typeof countryItemSchema>;
export const languageItemSchema = z.object({ code: z.string(), name: z.string(), native: z.string() });
export type LanguageItem = z.output<typeof languageItemSchema>;
export const phoneCodeItemSchema = z.object({ code: z.string(), name: z.string(), dialCode: z.string() });
export type PhoneCodeItem = z.output<typeof phoneCodeItemSchema>;
/** `GET /user-additional`: the choices of each optional profile field (common/profile-options.ts). */
export const profileOptionsSchema = z.record(z.string(), z.array(z.object({ value: z.string(), text: z.string() })));

/** `GET /country-block/check` */
export const countryBlockCheckSchema = z.object({ blocked: z.boolean(), country: z.string().nullable() });

/** `POST /re-captcha/verify` */
export const captchaVerifyBody = z.object({ token: z.string().min(1).max(4000) });
export const captchaVerifySchema = z.object({ success: z.boolean(), enabled: z.boolean(), message: z.string().optional() });

/** `POST /contact` */
export const contactBody = z.object({
  name: z.string().trim().min(1, 'Name is required').max(100),
  email: z.email('A valid email is required').max(254),
  subject: z.string().trim().max(200).optional(),
  message: z.string().trim().min(10, 'Message must be at least 10 characters').max(5000),
  captchaToken: z.string().max(4000).optional(),
});
export type ContactRequest = z.input<typeof contactBody>;
export const contactSentSchema = z.object({ success: z.literal(true) });
export type ContactSent = z.output<typeof contactSentSchema>;
