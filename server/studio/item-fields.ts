import type { DbOrTrx } from '../db/database.js';
import { newId, nowIso } from '../db/ids.js';
import type { Access, CategoryGroup } from '../db/schema.js';
import { invalid, type Actor, type StudioDeps } from './deps.js';
import { draftsOnly, initialStatus, notApproved } from './approval.js';
import * as repo from './studio.repository.js';

/**
 * The fields every studio item shares (slug, price and access, publication date, categories and tags), and the steps
 * creating and editing a video, gallery or product have in common.
 */

export function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug || 'item';
}
export const uniqueSlug = (title: string, id: string) => `${slugify(title)}-${id.slice(-6)}`;

/** Sale items need a price; other visibilities carry none. */
export function pricing(visibility: Access, price: number | undefined): { access: Access; isSale: number; price: number } {
  if (visibility === 'sale') {
    if (!price || price < 1) throw invalid('price', 'A sale item needs a price above 0, in minor units (e.g. 999 for 9.99)');
    return { access: 'sale', isSale: 1, price };
  }
  return { access: visibility, isSale: 0, price: 0 };
}

/** A future `scheduledAt` publishes then; otherwise now (or keeps the date of something already published). */
export function schedule(scheduledAt: string | null | undefined, now: string, publishedBefore: string | null): { scheduledAt: string | null; publishedAt: string } {
  if (scheduledAt && scheduledAt > now) return { scheduledAt, publishedAt: scheduledAt };
  return { scheduledAt: null, publishedAt: publishedBefore && publishedBefore <= now ? publishedBefore : now };
}

export async function checkCategories(db: DbOrTrx, group: CategoryGroup, ids: string[] | undefined): Promise<void> {
  if (!ids?.length) return;
  const found = new Set(await repo.findCategoryIds(db, group, ids));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) throw invalid('categoryIds', `Unknown ${group} categor${missing.length > 1 ? 'ies' : 'y'}: ${missing.join(', ')}`);
}

/** What the studio shows of every video and gallery, first: their shared fields in the API's names. */
export function saleItemView(row: { id: string; title: string; slug: string; description: string | null; access: Access; price: number; tags: string }) {
  return { _id: row.id, title: row.title, slug: row.slug, description: row.description, visibility: row.access, price: row.price, tags: parseTags(row.tags) };
}

export function parseTags(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

/** The catalogue items the studio counts on the performer row. */
type CountedItem = 'video' | 'gallery' | 'product';
const counterOf = { video: 'videoCount', gallery: 'galleryCount', product: 'productCount' } as const;

/**
 * What creating a video, gallery or product starts with, before its transaction: the actor's draft quota (null: not
 * limited), the new item's status (active unless asked; a draft for an unapproved performer, who may not schedule
 * either), its categories checked, its id, the time, its tags, and the columns every such row has (`columns`, for
 * its title: a product's name).
 */
export async function startCreate<S extends string>(
  deps: StudioDeps,
  actor: Actor,
  group: CategoryGroup,
  input: { status?: S; categoryIds?: string[]; tags?: string[]; scheduledAt?: string | null },
) {
  const drafts = await draftsOnly(deps, actor);
  const status = initialStatus<S | 'active' | 'draft'>(drafts, input.status, 'active', 'draft');
  if (drafts && input.scheduledAt) throw notApproved('scheduling becomes possible once you are approved');
  await checkCategories(deps.db, group, input.categoryIds);
  const [now, id, tags] = [nowIso(), newId(), input.tags ?? []];
  const columns = (title: string, description: string | null | undefined) => ({
    id, performerId: actor.id, status, slug: uniqueSlug(title, id), description: description ?? null, tags: JSON.stringify(tags), createdAt: now, updatedAt: now,
  });
  return { drafts, now, id, tags, columns };
}

/** In a create's transaction, after the item's row: its tags and categories, and one more on its performer's count. */
export async function linkNewItem(trx: DbOrTrx, type: CountedItem, id: string, performerId: string, links: { tags: string[]; categoryIds?: string[] }): Promise<void> {
  await repo.setTags(trx, type, id, links.tags);
  await repo.setCategories(trx, type, id, links.categoryIds ?? []);
  await repo.bumpPerformerCounter(trx, performerId, counterOf[type], 1);
}

/** The fields among `keys` an edit sent, and its tags (stored as JSON): what the edit changes of them. */
export function sentFields<I extends { tags?: string[] }, K extends keyof I>(input: I, keys: readonly K[]): Partial<Pick<I, K>> & { tags?: string } {
  const sent: Record<string, unknown> = {};
  for (const key of keys) if (input[key] !== undefined) sent[key as string] = input[key];
  if (input.tags !== undefined) sent.tags = JSON.stringify(input.tags);
  return sent as Partial<Pick<I, K>> & { tags?: string };
}

/** In an edit's transaction: the tags and categories it sent, if any. */
export async function relinkItem(trx: DbOrTrx, type: CountedItem, id: string, input: { tags?: string[]; categoryIds?: string[] }): Promise<void> {
  if (input.tags !== undefined) await repo.setTags(trx, type, id, input.tags);
  if (input.categoryIds !== undefined) await repo.setCategories(trx, type, id, input.categoryIds);
}
