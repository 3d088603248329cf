/**
 * Types shared by the browser and the server. The server's zod schemas are the source of truth for
 * validation; these are the shapes the browser reads.
 */
import type { GalleryItem, PerformerSummary, VideoItem } from './schemas/catalogue.js';
import type { PublicSettings } from './schemas/site.js';
import type { ListResult } from './schemas/http.js';

// ---------------------------------------------------------------------------------------------------------------
// Admin console (issue #7).

/** A stored secret as the API shows it: never the value, only whether one is set and where it comes from. */
export interface SecretState {
  configured: boolean;
  source: 'env' | 'settings' | null;
}

/** `GET /admin/settings` */
export interface AdminSettings extends Pick<PublicSettings, 'siteName' | 'logoUrl' | 'favicon' | 'loginPlaceholderImage' | 'menus' | 'footerContent' | 'currency' | 'currencySymbol' | 'maintenanceMode'> {
  commissionBps: number;
  payment: { paymentGateway: 'sandbox' | 'stripe'; checkoutExpiryMinutes: number; stripeSecretKey: SecretState; stripeWebhookSecret: SecretState };
}
