import { sql } from 'kysely';
import { expect } from 'vitest';
import type { TestApp } from './test-app.js';

/**
 * Every counter the site shows next to its rows, counted in plain SQL independently of the app's code
 * (docs/architecture.md, Where the numbers come from): the demo seed's check (tests/api/seed-counters.test.ts) and
 * any test that removes rows in bulk (an account deletion) ask it. `allowEmpty`: a small fixture may lack a table's rows.
 */
export type Mismatch = { table: string; id: string; column: string; shown: number; rows: number };

/** Every counter column next to its rows, counted in SQL; answers the rows where they differ. */
export async function counterMismatches(t: TestApp, opts: { allowEmpty?: boolean } = {}): Promise<{ mismatches: Mismatch[]; totals: Record<string, number> }> {
  const now = new Date().toISOString();
  const engaged = (table: string, type: string) => sql`
    (select count(*) from reactions r where r.object_type = ${type} and r.object_id = ${sql.ref(`${table}.id`)} and r.action = 'like') as rows_like_count,
    (select count(*) from reactions r where r.object_type = ${type} and r.object_id = ${sql.ref(`${table}.id`)} and r.action = 'favourite') as rows_favourite_count,
    (select count(*) from comments c where c.object_type = ${type} and c.object_id = ${sql.ref(`${table}.id`)} and c.status = 'active') as rows_comment_count`;
  const queries: Record<string, ReturnType<typeof sql>> = {
    performers: sql`select id, subscriber_count, follower_count, video_count, photo_count, gallery_count, product_count, view_count, like_count, favourite_count, comment_count,
      (select count(*) from subscriptions s where s.performer_id = performers.id and s.status = 'active' and s.expires_at > ${now}) as rows_subscriber_count,
      (select count(*) from follows f where f.performer_id = performers.id) as rows_follower_count,
      (select count(*) from videos v where v.performer_id = performers.id) as rows_video_count,
      (select count(*) from photos p where p.performer_id = performers.id) as rows_photo_count,
      (select count(*) from galleries g where g.performer_id = performers.id) as rows_gallery_count,
      (select count(*) from products p where p.performer_id = performers.id) as rows_product_count,
      (select count(*) from video_views w where w.performer_id = performers.id) as rows_view_count,
      ${engaged('performers', 'performer')}
      from performers`,
    videos: sql`select id, view_count, like_count, favourite_count, comment_count,
      (select count(*) from video_views w where w.video_id = videos.id) as rows_view_count,
      ${engaged('videos', 'video')}
      from videos`,
    // Nothing records a view of a gallery or a product (only videos are played): their view counts stay 0.
    galleries: sql`select id, photo_count, view_count, like_count, favourite_count, comment_count,
      (select count(*) from photos p where p.gallery_id = galleries.id) as rows_photo_count,
      0 as rows_view_count,
      ${engaged('galleries', 'gallery')}
      from galleries`,
    products: sql`select id, view_count, like_count, favourite_count, comment_count, 0 as rows_view_count, ${engaged('products', 'product')} from products`,
    posts: sql`select id, like_count, favourite_count, comment_count, ${engaged('posts', 'post')} from posts`,
    // Photos are not something one reacts to or comments on: their counters stay 0.
    photos: sql`select id, view_count, like_count, favourite_count, comment_count, 0 as rows_view_count, 0 as rows_like_count, 0 as rows_favourite_count, 0 as rows_comment_count from photos`,
    coupons: sql`select id, used_count, (select count(*) from payments p where p.coupon_id = coupons.id and p.coupon_held = 1) as rows_used_count from coupons`,
  };
  const mismatches: Mismatch[] = [];
  const totals: Record<string, number> = {};
  for (const [table, query] of Object.entries(queries)) {
    const { rows } = await query.execute(t.ctx.db);
    if (!opts.allowEmpty) expect(rows.length, `${table} has rows to check`).toBeGreaterThan(0);
    for (const row of rows as Array<Record<string, unknown>>) {
      // The database handle camel-cases every column name it answers (rows_like_count → rowsLikeCount).
      for (const key of Object.keys(row).filter((k) => /^rows[A-Z]/.test(k))) {
        const column = key[4]!.toLowerCase() + key.slice(5);
        expect(row, `${table}.${column}`).toHaveProperty(column);
        const shown = Number(row[column]);
        const counted = Number(row[key]);
        totals[`${table}.${column}`] = (totals[`${table}.${column}`] ?? 0) + counted;
        if (shown !== counted) mismatches.push({ table, id: String(row.id), column, shown, rows: counted });
      }
    }
  }
  return { mismatches, totals };
}
