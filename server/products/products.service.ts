import type { ContentStatus } from '../db/schema.js';
import { forbidden, notFound } from '../http/errors.js';
import { canManage, checkAccess, loadAccessView, productSubject, type AccessView, type Viewer, mayFind } from '../access/access.service.js';
import { audienceOf } from '../catalogue/catalogue.repository.js';
import { foundItem, fullMedia, itemPage, type CatalogueDeps, type ItemList } from '../catalogue/catalogue.service.js';
import type { DownloadLink, ProductItem } from '../../common/schemas/catalogue.js';
import type { ListResult } from '../../common/schemas/http.js';
import { findProductByKey, listOwnProducts, listPublicProducts, type ProductFilters, type ProductRow } from './products.repository.js';
import { toProductItem } from './products.mapper.js';

async function toItems(deps: CatalogueDeps, viewer: Viewer, rows: ProductRow[], given?: AccessView): Promise<ProductItem[]> {
  const [performers, files, access] = await Promise.all([
    deps.display.performerSummaries(deps.db, rows.map((r) => r.performerId)),
    deps.display.files(deps.db, rows.map((r) => r.imageFileId)),
    given ?? loadAccessView(deps.db, viewer, rows.map(productSubject)),
  ]);
  return rows.map((r) =>
    toProductItem(r, { performer: performers.get(r.performerId), image: r.imageFileId ? files.get(r.imageFileId) : undefined, decision: access.decide(productSubject(r)) }),
  );
}

/** The public product list, in its two steps (see ItemList). */
export const productList: ItemList<ProductFilters, ProductRow, ProductItem> = {
  rows: (deps, viewer, filters) => listPublicProducts(deps.db, filters, audienceOf(viewer, deps.country)),
  items: toItems,
  subject: productSubject,
};

export async function searchProducts(deps: CatalogueDeps, viewer: Viewer, filters: ProductFilters): Promise<ListResult<ProductItem>> {
  return itemPage(deps, viewer, productList, filters);
}

/** A product public to this visitor; its performer and admins also get it while not public. */
export async function getProduct(deps: CatalogueDeps, viewer: Viewer, key: string): Promise<ProductItem> {
  return foundItem(deps, viewer, await findProductByKey(deps.db, key, audienceOf(viewer, deps.country)), 'Product', toItems);
}

/** Performer studio: own products in every state (an admin may name any performer, default: their own id). */
export async function searchOwnProducts(
  deps: CatalogueDeps,
  viewer: NonNullable<Viewer>,
  filters: ProductFilters & { status?: ContentStatus },
): Promise<ListResult<ProductItem>> {
  const performerId = viewer.role === 'admin' && filters.performerId ? filters.performerId : viewer.id;
  const { rows, total, nextCursor } = await listOwnProducts(deps.db, performerId, filters);
  return { items: await toItems(deps, viewer, rows), total, nextCursor };
}

export async function getOwnProduct(deps: CatalogueDeps, viewer: NonNullable<Viewer>, key: string): Promise<ProductItem> {
  const row = await findProductByKey(deps.db, key, audienceOf(viewer, deps.country));
  if (!row || !canManage(viewer, row.performerId)) throw notFound('Product');
  const [item] = await toItems(deps, viewer, [row]);
  return item!;
}

/** A signed, short-lived link to a digital product's file: buyers (and the performer, admins) only. */
export async function productDownloadLink(deps: CatalogueDeps, viewer: NonNullable<Viewer>, key: string): Promise<DownloadLink> {
  const row = await findProductByKey(deps.db, key, audienceOf(viewer, deps.country));
  if (!row || !mayFind(viewer, row.visible, row.performerId)) throw notFound('Product');
  if (row.type !== 'digital' || !row.digitalFileId) throw notFound('Download');
  const decision = await checkAccess(deps.db, viewer, productSubject(row));
  if (!decision.open) throw forbidden('Buy this product to download it');
  const file = (await deps.display.files(deps.db, [row.digitalFileId])).get(row.digitalFileId);
  const media = fullMedia(deps.signer, viewer, { objectType: 'product', objectId: row.id }, file);
  if (!media) throw notFound('Download');
  return { downloadLink: media.url, expiresAt: media.expiresAt, fileName: file?.originalName ?? null };
}
