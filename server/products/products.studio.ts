import { nowIso } from '../db/ids.js';
import type { DbOrTrx } from '../db/database.js';
import { notFound } from '../http/errors.js';
import type { ReceivedFile } from '../media/pipeline/upload.js';
import { JOB_IMAGE, type ImageJob } from '../media/pipeline/processors.js';
import { deleteFileRows, fileRow, getFiles, insertFiles } from '../media/pipeline/pipeline.repository.js';
import { invalid, owned, type Actor, type StudioDeps, type Uploads } from '../studio/deps.js';
import { checkEdit, checkNotHiddenByAdmin, draftsOnly, withinQuota } from '../studio/approval.js';
import { checkCategories, linkNewItem, parseTags, relinkItem, sentFields, startCreate } from '../studio/item-fields.js';
import { deleteStored, fileFamily, imageState, removeItem } from '../studio/stored-files.js';
import * as repo from '../studio/studio.repository.js';
import type { ProductInput, StudioProduct } from '../../common/schemas/studio.js';

/**
 * The performer studio's products (server/studio/studio.routes.ts): physical with stock, or digital with their
 * file; one that was ordered or bought is only hidden when deleted.
 */

export async function productView(db: DbOrTrx, id: string): Promise<StudioProduct> {
  const row = await repo.getProduct(db, id);
  if (!row) throw notFound('Product');
  const files = await getFiles(db, [row.imageFileId, row.digitalFileId]);
  const image = imageState(files.find((f) => f.id === row.imageFileId));
  const digital = files.find((f) => f.id === row.digitalFileId);
  return {
    _id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    type: row.type,
    price: row.price,
    stock: row.stock,
    tags: parseTags(row.tags),
    categoryIds: await repo.getCategoryIds(db, 'product', id),
    status: row.status,
    imageUrl: image.url,
    imageStatus: image.status,
    digitalFile: digital ? { name: digital.originalName, size: Number(digital.size), mime: digital.mime } : null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

function sourceImageRow(f: ReceivedFile, ownerId: string, now: string) {
  return fileRow({ id: f.id, ownerId, kind: 'image', storageKey: f.storageKey, mime: f.type.mime, size: f.size, width: f.width, height: f.height, originalName: f.originalName, status: 'processing' }, now);
}

function digitalFileRow(f: ReceivedFile, ownerId: string, now: string) {
  return fileRow({ id: f.id, ownerId, kind: 'file', storageKey: f.storageKey, mime: f.type.mime, size: f.size, originalName: f.originalName, status: 'ready' }, now);
}

export async function createProduct(deps: StudioDeps, actor: Actor, input: ProductInput, uploads: Uploads): Promise<string> {
  if (!input.name) throw invalid('name', 'Name is required');
  if (input.price === undefined) throw invalid('price', 'Price is required, in minor units (e.g. 1999 for 19.99)');
  const type = input.type ?? 'physical';
  const image = uploads.image?.[0];
  const digital = uploads.file?.[0];
  if (type === 'digital' && !digital) throw invalid('file', 'A digital product needs its file in the "file" field');
  if (type === 'physical' && digital) throw invalid('file', 'Only digital products take a file; a physical product has stock instead');
  // A draft may carry the price it will sell at; only an approved performer's active product can be bought.
  const { drafts, now, id, tags, columns } = await startCreate(deps, actor, 'product', input);
  await deps.db.transaction().execute(async (trx) => {
    await withinQuota(trx, actor, drafts, 1);
    await insertFiles(trx, [...(image ? [sourceImageRow(image, actor.id, now)] : []), ...(digital ? [digitalFileRow(digital, actor.id, now)] : [])]);
    await repo.insertProduct(trx, {
      ...columns(input.name!, input.description),
      name: input.name!,
      type,
      price: input.price!,
      stock: type === 'physical' ? (input.stock ?? 0) : null,
      imageFileId: image?.id ?? null,
      digitalFileId: digital?.id ?? null,
      publishedAt: now,
    });
    await linkNewItem(trx, 'product', id, actor.id, { tags, categoryIds: input.categoryIds });
    if (image) await deps.jobs.enqueue<ImageJob>(trx, JOB_IMAGE, { fileId: image.id, target: 'product', id }, { subject: `product:${id}` });
  });
  if (image) deps.jobs.wake();
  return id;
}

export async function updateProduct(deps: StudioDeps, actor: Actor, id: string, input: ProductInput, uploads: Uploads): Promise<string> {
  const row = owned(await repo.getProduct(deps.db, id), actor, 'Product');
  const type = input.type ?? row.type;
  const image = uploads.image?.[0];
  const digital = uploads.file?.[0];
  if (type === 'physical' && digital) throw invalid('file', 'Only digital products take a file; a physical product has stock instead');
  if (type === 'digital' && !digital && !row.digitalFileId) throw invalid('file', 'A digital product needs its file in the "file" field');
  checkEdit(await draftsOnly(deps, actor), input.status, 'active');
  checkNotHiddenByAdmin(actor, row.status, input.status);
  await checkCategories(deps.db, 'product', input.categoryIds);
  const now = nowIso();
  let keys: string[] = [];
  await deps.db.transaction().execute(async (trx) => {
    const replaced: Array<string | null> = [];
    if (image) replaced.push(row.imageFileId);
    if (digital || type === 'physical') replaced.push(row.digitalFileId);
    const old = await fileFamily(trx, replaced);
    await insertFiles(trx, [...(image ? [sourceImageRow(image, row.performerId, now)] : []), ...(digital ? [digitalFileRow(digital, row.performerId, now)] : [])]);
    await repo.updateProduct(trx, id, {
      ...sentFields(input, ['name', 'description', 'price', 'status']),
      type,
      stock: type === 'physical' ? (input.stock ?? row.stock ?? 0) : null,
      ...(image ? { imageFileId: image.id } : {}),
      ...(digital ? { digitalFileId: digital.id } : type === 'physical' ? { digitalFileId: null } : {}),
    });
    await deleteFileRows(trx, old.map((f) => f.id));
    await relinkItem(trx, 'product', id, input);
    if (image) await deps.jobs.enqueue<ImageJob>(trx, JOB_IMAGE, { fileId: image.id, target: 'product', id }, { subject: `product:${id}` });
    keys = old.map((f) => f.storageKey);
  });
  if (image) deps.jobs.wake();
  await deleteStored(deps, keys);
  return id;
}

/** Deletes a product; one that was ordered or bought is only hidden (orders and downloads keep working). */
export async function deleteProduct(deps: StudioDeps, actor: Actor, id: string): Promise<void> {
  const row = owned(await repo.getProduct(deps.db, id), actor, 'Product');
  await removeItem(deps, {
    paidFor: async (trx) => (await repo.hasOrders(trx, id)) || (await repo.hasEntitlements(trx, 'product', id)),
    hide: (trx) => repo.updateProduct(trx, id, { status: 'inactive' }),
    files: async () => [row.imageFileId, row.digitalFileId],
    async remove(trx) {
      await repo.deleteProductRow(trx, id);
      await repo.clearLinks(trx, 'product', [id]);
      await repo.bumpPerformerCounter(trx, row.performerId, 'productCount', -1);
    },
  });
}
