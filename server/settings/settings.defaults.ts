import type { GatewayName, WatermarkPosition } from '../../common/enums.js';
import type { MenuItem, PublicSettings } from '../../common/schemas/site.js';

/** Every setting the site knows, with its default, group and whether guests may read it. */
export interface SettingDef<T = unknown> {
  default: T;
  group: string;
  public: boolean;
}

const menus: MenuItem[] = [
  { title: 'Home', path: '/', section: 'header', ordering: 0 },
  { title: 'Performers', path: '/performers', section: 'header', ordering: 1 },
  { title: 'Videos', path: '/videos', section: 'header', ordering: 2 },
  { title: 'Store', path: '/store', section: 'header', ordering: 3 },
  { title: 'Blog', path: '/posts', section: 'header', ordering: 4 },
  { title: 'Contact', path: '/contact', section: 'footer', ordering: 0 },
  { title: 'Terms of service', path: '/posts/terms', section: 'footer', ordering: 1 },
  { title: 'Privacy', path: '/posts/privacy', section: 'footer', ordering: 2 },
  { title: 'Record-keeping statement', path: '/record-keeping', section: 'footer', ordering: 3 },
  { title: 'Request removal', path: '/takedown', section: 'footer', ordering: 4 },
];

/** Says that records exist and who keeps them; the admin replaces the placeholders with the custodian's name and address. */
const RECORD_KEEPING_DEFAULT =
  '<p>All persons who appear in any visual depiction of actual or simulated sexually explicit conduct on this site were 18 years of age or older at the time the depiction was created.</p>' +
  '<p>The records required by 18 U.S.C. 2257 and 28 C.F.R. 75 for all materials on this site, including each performer\'s and each co-performer\'s proof of age, identity document and signed release, are kept by the custodian of records:</p>' +
  '<p>Custodian of Records<br>[Company name]<br>[Street address]<br>[City, postal code, country]</p>' +
  '<p>Performers upload their own content; every person shown in it is named on it and has confirmed their consent, or their signed release and identity document were provided, before it was published.</p>';

export const settingDefs = {
  siteName: { default: 'Fanstage', group: 'general', public: true },
  logoUrl: { default: '/logo.svg', group: 'general', public: true },
  favicon: { default: '/favicon.svg', group: 'general', public: true },
  loginPlaceholderImage: { default: '/login-placeholder.svg', group: 'general', public: true },
  menus: { default: menus, group: 'general', public: true },
  footerContent: { default: '<p>© Fanstage. All performers were 18 or older at the time of production.</p>', group: 'general', public: true },
  // The record-keeping statement page (/record-keeping): HTML an admin writes, cleaned like the footer's.
  recordKeepingStatement: { default: RECORD_KEEPING_DEFAULT, group: 'general', public: false },
  currency: { default: 'USD', group: 'general', public: true },
  currencySymbol: { default: '$', group: 'general', public: true },
  maintenanceMode: { default: false, group: 'general', public: true },
  captchaSiteKey: { default: '', group: 'captcha', public: true },
  captchaSecret: { default: '', group: 'captcha', public: false },
  commissionBps: { default: 2000, group: 'commission', public: false },
  // Until an admin approves a performer, their studio keeps drafts only, at most this many items (videos,
  // galleries, photos, products and posts counted together; server/studio/approval.ts).
  unapprovedItemQuota: { default: 20, group: 'performer', public: false },
  // Days after an admin's decision that a performer's identity pictures are kept, then deleted by the retention job
  // (server/verification/); the decision, dates, legal name and date of birth stay.
  verificationDocumentRetentionDays: { default: 30, group: 'performer', public: false },
  // Money (server/payments/README.md): which gateway new checkouts use ('sandbox' | 'stripe' | 'ccbill'), Stripe's
  // keys (the STRIPE_SECRET_KEY / STRIPE_WEBHOOK_SECRET environment variables win over these), CCBill's account and
  // keys, and how long an unpaid checkout holds its stock before it expires (the hold time), and how many units of one
  // product a buyer may hold in unpaid checkouts at once (so nobody can empty the shelf by starting checkouts they
  // never pay).
  paymentGateway: { default: 'sandbox' as GatewayName, group: 'payment', public: false },
  stripeSecretKey: { default: '', group: 'payment', public: false },
  stripeWebhookSecret: { default: '', group: 'payment', public: false },
  // CCBill (server/payments/ccbill.gateway.ts): account and subaccount numbers, the FlexForms payment flow, the
  // dynamic pricing salt (secret, encrypted), the DataLink user that cancels subscriptions (password secret, encrypted),
  // and where webhooks may come from (empty: CCBill's published addresses).
  ccbillAccount: { default: '', group: 'payment', public: false },
  ccbillSubaccount: { default: '', group: 'payment', public: false },
  ccbillFlexFormId: { default: '', group: 'payment', public: false },
  ccbillSalt: { default: '', group: 'payment', public: false },
  ccbillDatalinkUser: { default: '', group: 'payment', public: false },
  ccbillDatalinkPassword: { default: '', group: 'payment', public: false },
  ccbillWebhookIps: { default: '', group: 'payment', public: false },
  checkoutExpiryMinutes: { default: 30, group: 'payment', public: false },
  stockHoldMaxPerBuyer: { default: 10, group: 'payment', public: false },
  // Days a subscription whose renewal failed stays open to the provider's retries before it lapses (counted from the
  // end of the paid period; access is closed meanwhile: no access without a paid period).
  renewalGraceDays: { default: 3, group: 'payment', public: false },
  // Days before a yearly subscription renews that its subscriber is mailed a reminder (0: no reminder). Monthly plans
  // get none: a reminder every month would be noise, and the receipt of each renewal says what was charged.
  renewalReminderDays: { default: 7, group: 'payment', public: false },
  // Payouts (server/payments/README.md, "Payouts"): an earning becomes available to a payout request this many days
  // after it was credited (a refund or chargeback usually comes within them), and a request must reach this amount
  // (minor units: 5000 = 50.00 in the site currency), so that small transfers do not eat the money in fees.
  payoutHoldDays: { default: 7, group: 'payment', public: false },
  payoutMinimum: { default: 5000, group: 'payment', public: false },
  // Tips (server/payments/README.md, "Tips"): the smallest and largest amount a fan may tip, minor units (100 = 1.00).
  tipMinimum: { default: 100, group: 'payment', public: false },
  tipMaximum: { default: 50000, group: 'payment', public: false },
  // The age gate (server/http/age-gate.ts): guests confirm they are 18 or older before any page, in the listed
  // countries (ISO codes; empty: everywhere).
  ageGateEnabled: { default: false, group: 'age-gate', public: false },
  ageGateCountries: { default: [] as string[], group: 'age-gate', public: false },
  // Watermarks (docs/product.md, Watermarks; server/media/watermark/): the performer's page address stamped on full
  // photos, posts' full pictures, video posters and full videos; opacity in percent. Changing them re-processes the
  // catalogue through a watermark run.
  watermarkEnabled: { default: false, group: 'watermark', public: false },
  watermarkPosition: { default: 'bottom-right' as WatermarkPosition, group: 'watermark', public: false },
  watermarkOpacity: { default: 60, group: 'watermark', public: false },
  // Data rights (server/privacy/README.md): days a "download my data" file stays downloadable before a job deletes it.
  dataExportDays: { default: 7, group: 'privacy', public: false },
} satisfies Record<string, SettingDef>;

export type SettingKey = keyof typeof settingDefs;
export type SettingValue<K extends SettingKey> = (typeof settingDefs)[K]['default'];

export const publicSettingKeys = Object.entries(settingDefs)
  .filter(([, def]) => def.public)
  .map(([key]) => key as SettingKey);

export type { PublicSettings };
