/** The site's promo banners for the pages (GET /banners/search answers the same): active ones, by position. */
export { searchBanners } from './banners.repository.js';
