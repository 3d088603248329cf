import type { Insertable } from 'kysely';
import type {
  Access, BannersTable, CategoriesTable, CategoryGroup, GalleriesTable, PerformersTable, PhotosTable, PostMediaTable, PostsTable, ProductsTable,
  UsersTable, VideosTable,
} from '../db/schema.js';
import { newId, nowIso } from '../db/ids.js';
import { seededRandom } from '../../common/random.js';
import { countOf } from '../../common/plural.js';
import { bannerRow, categoryRow, galleryRow, performerRow, photoRow, postMediaRow, postRow, productRow, slugify, userRow, videoRow } from './factories.js';
import { categoryDefs, performerDefs, performerPostDefs, sitePages, sitePosts, type CategoryDef, type PerformerDef, type ProductDef } from './content.js';
import { demoFanCount, demoFanNames } from './audience.js';
import { clipCount } from './media.js';
import { DAY_MS } from '../../common/time.js';

/**
 * The plan: every row of the demo site, with ids and timestamps, before any media exist (./media.ts then fills in
 * the file ids, ./inserts.ts writes the rows). Built from the words of ./content.ts with the row builders of
 * ./factories.ts; every choice comes from one seeded generator, so the same scale gives the same site.
 */


export type Row<T> = Insertable<T> & { id: string };
export interface PlannedVideo { row: Row<VideosTable>; categorySlug: string; tags: string[]; clip: number }
export interface PlannedPhoto { row: Row<PhotosTable>; portrait: boolean; blurred: boolean }
export interface PlannedGallery { row: Row<GalleriesTable>; categorySlug: string; tags: string[]; photos: PlannedPhoto[] }
export interface PlannedProduct { row: Row<ProductsTable>; def: ProductDef }
export interface PlannedPerformer {
  user: Row<UsersTable>;
  row: Row<PerformersTable>;
  def: PerformerDef;
  videos: PlannedVideo[];
  galleries: PlannedGallery[];
  products: PlannedProduct[];
}
export interface PlannedPost {
  row: Row<PostsTable>;
  performer: PlannedPerformer;
  media: Array<{ row: Row<PostMediaTable>; portrait: boolean }>;
}
export interface Plan {
  now: number;
  users: Array<Row<UsersTable>>;
  admin: Row<UsersTable>;
  fan: Row<UsersTable>;
  /** The audience: plain accounts that subscribe, watch, react and comment (./audience.ts). */
  demoFans: Array<Row<UsersTable>>;
  demoPerformer: Row<UsersTable>;
  performers: PlannedPerformer[];
  categories: Map<string, Row<CategoriesTable>>;
  posts: Array<Row<PostsTable>>;
  performerPosts: PlannedPost[];
  banners: Array<{ row: Row<BannersTable>; performer: PlannedPerformer }>;
}

const monthlyPrices = [499, 799, 999, 1299, 1499, 1999];
const salePrices = [499, 799, 999, 1499, 1999];
const featuredIndexes = new Set([0, 1, 4, 10]);

/**
 * 1 = the normal demo site. Below 1 shrinks the content per performer (at least one of each); above 1 adds
 * performers (round(12 * scale)) with the full content each.
 */
export function buildPlan(scale: number, now: number): Plan {
  const rnd = seededRandom('demo-site');
  const at = (daysAgo: number) => {
    const ms = now - Math.round(daysAgo * DAY_MS);
    return { ms, iso: nowIso(new Date(ms)) };
  };
  const users: Array<Row<UsersTable>> = [];
  const addUser = (u: { email: string; username: string; name: string; role: 'admin' | 'performer' | 'user'; country: string | null; bio?: string }, daysAgo: number) => {
    const t = at(daysAgo);
    const row = userRow({ id: newId(t.ms), ...u, bio: u.bio ?? null, createdAt: t.iso });
    users.push(row);
    return row;
  };

  const admin = addUser({ email: 'admin@example.com', username: 'admin', name: 'Site Admin', role: 'admin', country: 'US' }, 420);

  const categories = new Map<string, Row<CategoriesTable>>();
  for (const [group, defs] of Object.entries(categoryDefs) as Array<[CategoryGroup, CategoryDef[]]>) {
    defs.forEach((d, i) => {
      const t = at(410);
      categories.set(`${group}:${d.slug}`, categoryRow({ id: newId(t.ms), name: d.name, slug: d.slug, group, ordering: i, createdAt: t.iso }));
    });
  }

  const performerTotal = scale > 1 ? Math.round(performerDefs.length * scale) : performerDefs.length;
  const perPerformer = (n: number) => (scale >= 1 ? n : Math.max(1, Math.round(n * scale)));
  const slugs = new Set<string>();
  const uniqueSlug = (text: string) => {
    const base = slugify(text) || 'item';
    let slug = base;
    for (let n = 2; slugs.has(slug); n++) slug = `${base}-${n}`;
    slugs.add(slug);
    return slug;
  };
  const performers: PlannedPerformer[] = [];

  for (let i = 0; i < performerTotal; i++) {
    const base = performerDefs[i % performerDefs.length]!;
    const round = Math.floor(i / performerDefs.length);
    const def: PerformerDef = round === 0 ? base : { ...base, name: `${base.name} ${round + 1}`, username: `${base.username}${round + 1}` };
    const joinedDaysAgo = 200 + rnd() * 180;
    const user = addUser(
      { email: i === 0 ? 'performer@example.com' : `${def.username}@example.com`, username: def.username, name: def.name, role: 'performer', country: def.country, bio: def.bio },
      joinedDaysAgo,
    );
    const monthly = monthlyPrices[i % monthlyPrices.length]!;
    const performer: PlannedPerformer = {
      user,
      def,
      row: performerRow({
        id: user.id, username: def.username, displayName: def.name, bio: def.bio, monthlyPrice: monthly, yearlyPrice: monthly * 10 + 9, commissionBps: null,
        featured: featuredIndexes.has(i) ? 1 : 0,
        // Counted from the rows planned below, at the end of this performer's plan.
        videoCount: 0, photoCount: 0, galleryCount: 0, productCount: 0,
        gender: def.gender, country: def.country, createdAt: user.createdAt,
      }),
      videos: [],
      galleries: [],
      products: [],
    };
    const itemTime = () => at(2 + rnd() * Math.min(170, joinedDaysAgo - 10));

    const videoCount = perPerformer(def.videos.length);
    for (let j = 0; j < videoCount; j++) {
      const [title, categorySlug] = def.videos[j]!;
      const t = itemTime();
      const access: Access =
        videoCount >= 3 ? (j === 0 ? 'free' : j === videoCount - 1 ? 'sale' : 'subscribers') : (['free', 'subscribers', 'sale'] as const)[(i + j) % 3]!;
      const tags = [def.tags[j % def.tags.length]!, def.tags[(j + 1) % def.tags.length]!, categorySlug.replace(/-/g, ' ')];
      performer.videos.push({
        categorySlug,
        tags,
        clip: (i * 3 + j) % clipCount,
        row: videoRow({
          id: newId(t.ms), performerId: user.id, title, slug: uniqueSlug(title), description: `${title}. ${def.tagline} with ${def.name.split(' ')[0]}.`,
          access, price: access === 'sale' ? salePrices[(i + j) % salePrices.length]! : 0, publishedAt: t.iso, tags: JSON.stringify(tags), createdAt: t.iso, updatedAt: t.iso,
        }),
      });
    }

    const galleryCount = perPerformer(def.galleries.length);
    for (let g = 0; g < galleryCount; g++) {
      const [title, categorySlug] = def.galleries[g]!;
      const t = itemTime();
      const access: Access = g === 0 ? (i % 3 === 0 ? 'free' : 'subscribers') : i % 4 === 1 ? 'sale' : 'free';
      const id = newId(t.ms);
      const photoTotal = perPerformer(4 + ((i + g) % 3));
      const photos: PlannedPhoto[] = [];
      for (let k = 0; k < photoTotal; k++) {
        photos.push({
          portrait: (i + k) % 3 !== 0,
          // The first photo is the gallery cover, shown to everyone; the others are blurred when locked.
          blurred: access !== 'free' && k > 0,
          row: photoRow({
            id: newId(t.ms + k), performerId: user.id, galleryId: id, title: `${title} ${k + 1}/${photoTotal}`, position: k,
            publishedAt: t.iso, createdAt: t.iso, updatedAt: t.iso,
          }),
        });
      }
      const tags = [def.tags[g % def.tags.length]!, 'photos'];
      performer.galleries.push({
        categorySlug,
        tags,
        photos,
        // A gallery on sale costs the factories' default price.
        row: galleryRow({
          id, performerId: user.id, title, slug: uniqueSlug(title), description: `${countOf(photoTotal, 'photo')}: ${title.toLowerCase()}.`, access,
          coverPhotoId: photos[0]?.row.id ?? null, photoCount: photos.length, publishedAt: t.iso, tags: JSON.stringify(tags), createdAt: t.iso, updatedAt: t.iso,
        }),
      });
    }

    const productCount = perPerformer(def.products.length);
    for (let k = 0; k < productCount; k++) {
      const p = def.products[k]!;
      const t = itemTime();
      const tags = [p.type, p.category.replace(/-/g, ' ')];
      performer.products.push({
        def: p,
        row: productRow({
          id: newId(t.ms), performerId: user.id, name: p.name, slug: uniqueSlug(p.name), description: p.description, type: p.type, price: p.price,
          stock: p.type === 'physical' ? 10 + Math.round(rnd() * 90) : null, publishedAt: t.iso, tags: JSON.stringify(tags), createdAt: t.iso, updatedAt: t.iso,
        }),
      });
    }

    performer.row.videoCount = performer.videos.length;
    performer.row.galleryCount = performer.galleries.length;
    performer.row.photoCount = performer.galleries.reduce((n, g) => n + g.photos.length, 0);
    performer.row.productCount = performer.products.length;
    performers.push(performer);
  }

  const fan = addUser({ email: 'fan@example.com', username: 'demofan', name: 'Sam Taylor', role: 'user', country: 'US', bio: 'Here for the yoga and the cooking.' }, 60);
  // The audience (./audience.ts): accounts made over the last months, who subscribe, watch, react and comment. The
  // demo fan above stays without subscriptions, so a newcomer logging in as them meets the paywall.
  const joined = seededRandom('demo-fans-joined');
  const demoFans = demoFanNames(demoFanCount(scale)).map((n) =>
    addUser({ email: `${n.username}@example.com`, username: n.username, name: n.name, role: 'user', country: null }, 5 + joined() * 150),
  );

  const html = (paragraphs: string[]) => paragraphs.map((x) => `<p>${escapeHtml(x)}</p>`).join('\n');
  const postRows: Array<Row<PostsTable>> = [];
  sitePosts.forEach((p, i) => {
    const t = at(3 + i * 11 + rnd() * 5);
    const slug = uniqueSlug(p.title);
    postRows.push(postRow({
      id: newId(t.ms), authorId: admin.id, title: p.title, slug, excerpt: p.excerpt, content: html(p.paragraphs), publishedAt: t.iso, createdAt: t.iso, updatedAt: t.iso,
    }));
  });
  for (const p of sitePages) {
    const t = at(400);
    slugs.add(p.slug);
    postRows.push(postRow({
      id: newId(t.ms), authorId: admin.id, type: 'page', title: p.title, slug: p.slug, excerpt: null, content: html(p.paragraphs), publishedAt: t.iso, createdAt: t.iso, updatedAt: t.iso,
    }));
  }

  const performerPosts: PlannedPost[] = performerPostDefs.map((d) => {
    const performer = performers[d.performer % performers.length]!;
    const t = at(d.daysAgo);
    const id = newId(t.ms);
    return {
      performer,
      row: postRow({
        id, authorId: performer.user.id, performerId: performer.user.id, title: d.title, slug: uniqueSlug(d.title), excerpt: d.excerpt, content: html(d.paragraphs),
        access: d.access, price: d.access === 'sale' ? (d.price ?? 499) : 0, publishedAt: t.iso, createdAt: t.iso, updatedAt: t.iso,
      }),
      media: Array.from({ length: d.pictures }, (_, k) => ({
        portrait: k % 3 === 1,
        row: postMediaRow({ id: newId(t.ms), postId: id, position: k, fileId: '', createdAt: t.iso }),
      })),
    };
  });

  const bannerPerformers = [0, 1, 4].map((n) => performers[n % performers.length]!);
  const banners = bannerPerformers.map((p, i) => {
    const t = at(30 - i);
    return {
      performer: p,
      row: bannerRow({
        id: newId(t.ms), title: i === 0 ? `New every week with ${p.def.name}` : `Meet ${p.def.name}`, description: p.def.tagline,
        link: `/performers/${p.def.username}`, ordering: i, createdAt: t.iso,
      }),
    };
  });

  return { now, users, admin, fan, demoFans, demoPerformer: performers[0]!.user, performers, categories, posts: postRows, performerPosts, banners };
}

function escapeHtml(s: string): string {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}
