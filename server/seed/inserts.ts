import type { Insertable, Transaction } from 'kysely';
import { newId, nowIso } from '../db/ids.js';
import type {
  CategoryGroup, ContentCategoriesTable, ContentTagsTable, Database, GalleriesTable, ObjectType, PhotosTable, ProductsTable, VideosTable,
} from '../db/schema.js';
import type { NewFile } from '../media/pipeline/pipeline.repository.js';
import type { AudienceItem } from './audience.js';
import { couponRow, packageRow, tagRows, verificationRow } from './factories.js';
import { type Plan } from './plan.js';
import { DAY_MS } from '../../common/time.js';

/**
 * Writing the demo site's rows: the plan (./plan.ts) with its files (./media.ts), its categories and tags, the
 * subscription packages and the welcome coupon, in batches of 200 inside the seed's transaction. And what of it the
 * audience (./audience.ts) may watch, react to and discuss.
 */

/** What the audience may watch, react to and discuss: every video, gallery, product and post (not the pages). */
export function audienceItems(plan: Plan): AudienceItem[] {
  const items: AudienceItem[] = [];
  for (const p of plan.performers) {
    for (const v of p.videos) items.push({ objectType: 'video', id: v.row.id, performerId: p.row.id, title: v.row.title, access: v.row.access ?? 'free', publishedAt: v.row.publishedAt! });
    for (const g of p.galleries) items.push({ objectType: 'gallery', id: g.row.id, performerId: p.row.id, title: g.row.title, access: g.row.access ?? 'free', publishedAt: g.row.publishedAt! });
    for (const pr of p.products) {
      items.push({ objectType: 'product', id: pr.row.id, performerId: p.row.id, title: pr.row.name, access: 'free', productType: pr.def.type, publishedAt: pr.row.publishedAt! });
    }
  }
  for (const post of plan.posts) {
    if (post.type === 'post') items.push({ objectType: 'post', id: post.id, performerId: null, title: post.title, access: 'free', publishedAt: post.publishedAt! });
  }
  for (const post of plan.performerPosts) {
    items.push({ objectType: 'post', id: post.row.id, performerId: post.performer.row.id, title: post.row.title, access: post.row.access ?? 'free', publishedAt: post.row.publishedAt! });
  }
  return items;
}

/** Writes every planned row and the files' rows in the seed's transaction, in batches; answers how many per table. */
export async function insertPlan(trx: Transaction<Database>, plan: Plan, files: NewFile[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const insert = async <T extends keyof Database & string>(table: T, rows: Array<Insertable<Database[T]>>) => {
    counts[table] = (counts[table] ?? 0) + rows.length;
    for (let i = 0; i < rows.length; i += 200) {
      await trx.insertInto(table).values(rows.slice(i, i + 200) as never).execute();
    }
  };
  const contentCategories: Array<Insertable<ContentCategoriesTable>> = [];
  const contentTags: Array<Insertable<ContentTagsTable>> = [];
  const link = (group: CategoryGroup, slug: string, objectType: ObjectType, objectId: string) => {
    const category = plan.categories.get(`${group}:${slug}`);
    if (!category) throw new Error(`unknown ${group} category ${slug}`);
    contentCategories.push({ categoryId: category.id, objectType, objectId });
  };
  const tag = (tags: string[], objectType: ObjectType, objectId: string) => contentTags.push(...tagRows(objectType, objectId, tags));

  await insert('users', plan.users);
  await insert('performers', plan.performers.map((p) => p.row));
  // The demo's approved performers are verified ones: an approved verification each, marked seeded (no pictures).
  await insert('performerVerifications', plan.performers.filter((p) => Number(p.row.approved ?? 1) === 1).map((p) => verificationRow({ performerId: p.row.id, legalName: p.def.name, submittedAt: p.row.createdAt })));
  await insert('categories', [...plan.categories.values()]);
  await insert('files', files);

  const videos: Array<Insertable<VideosTable>> = [];
  const galleries: Array<Insertable<GalleriesTable>> = [];
  const photos: Array<Insertable<PhotosTable>> = [];
  const products: Array<Insertable<ProductsTable>> = [];
  for (const p of plan.performers) {
    for (const c of p.def.categories) link('performer', c, 'performer', p.row.id);
    tag(p.def.tags, 'performer', p.row.id);
    for (const v of p.videos) {
      videos.push(v.row);
      link('video', v.categorySlug, 'video', v.row.id);
      tag(v.tags, 'video', v.row.id);
    }
    for (const g of p.galleries) {
      galleries.push(g.row);
      photos.push(...g.photos.map((x) => x.row));
      link('gallery', g.categorySlug, 'gallery', g.row.id);
      tag(g.tags, 'gallery', g.row.id);
    }
    for (const pr of p.products) {
      products.push(pr.row);
      link('product', pr.def.category, 'product', pr.row.id);
      tag(JSON.parse(pr.row.tags ?? '[]') as string[], 'product', pr.row.id);
    }
  }
  await insert('videos', videos);
  await insert('galleries', galleries);
  await insert('photos', photos);
  await insert('products', products);
  await insert('contentCategories', contentCategories);
  await insert('contentTags', contentTags);
  await insert('posts', [...plan.posts, ...plan.performerPosts.map((p) => p.row)]);
  await insert('postMedia', plan.performerPosts.flatMap((p) => p.media.map((m) => m.row)));
  await insert('banners', plan.banners.map((b) => b.row));

  const t = nowIso(new Date(plan.now));
  await insert('subscriptionPackages', [
    packageRow({ id: newId(plan.now), name: 'Monthly membership', description: 'Full access for 30 days, renews monthly.', type: 'monthly', price: 999, durationDays: 30, ordering: 0, createdAt: t }),
    packageRow({ id: newId(plan.now), name: 'Yearly membership', description: 'Twelve months for the price of ten.', type: 'yearly', price: 9999, durationDays: 365, ordering: 1, createdAt: t }),
  ]);
  await insert('coupons', [
    couponRow({ id: newId(plan.now), name: 'Welcome 10% off', code: 'WELCOME10', valueBps: 1000, maxUses: 100, expiresAt: nowIso(new Date(plan.now + 365 * DAY_MS)), createdAt: t }),
  ]);
  return counts;
}
