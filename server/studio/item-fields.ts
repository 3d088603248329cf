import type { DbOrTrx } from '../db/database.js';
import type { Access, CategoryGroup } from '../db/schema.js';
import { invalid } from './deps.js';
import * as repo from './studio.repository.js';

/** The fields every studio item shares: slug, price and access, publication date, categories and tags. */

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

export function parseTags(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}
