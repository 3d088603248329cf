/**
 * What the console's pages (src/pages/admin/) read: the lists and reports the /api/admin routes answer with, so a
 * page shows what the API gives. Pages import these, never the repository (docs/architecture.md, Layering).
 */
export {
  dashboard,
  earningsByPerformer,
  listAllComments,
  listAuditNamed,
  listBanners,
  listCategories,
  listContent,
  listCountryBlocks,
  listCoupons,
  listOrdersNamed,
  listPackages,
  listPayouts,
  listPerformers,
  searchPayments,
} from './admin.repository.js';
