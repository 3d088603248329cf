import type { DbOrTrx } from '../db/database.js';
import type { PerformerSummary } from '../../common/schemas/catalogue.js';
import { loadFiles, loadPerformerSummaries, loadVariants, type MediaFile } from './catalogue.repository.js';
import { postMediaOf, type PostMediaRow } from '../posts/posts.repository.js';
import { coverThumbnailIds } from '../galleries/galleries.repository.js';
import { activePackages, type ActivePackages } from '../subscriptions/subscriptions.repository.js';

/**
 * What a catalogue card shows beside its own row, read by id: its performer's name, username and avatar, its file
 * rows (thumbnail, teaser, full file) and their derived variants (a video's poster), a post's media rows, a gallery's
 * cover thumbnail; and the site's subscription packages an offer is priced from. They are the same for every
 * viewer, and a signed-in render (which the micro-cache never serves) read them again on every page: three of a
 * performer page's statements, six of a video page's. Here they are kept `ttlMs` (PAGE_CACHE_MS: the delay anonymous
 * visitors already see a change with) and shared by every request of this instance.
 *
 * Never kept here: anything an access decision reads. The item's own row (its access level, price, visibility),
 * subscriptions and entitlements are read fresh by every request, and a protected file is checked again when it is
 * fetched (server/media/protected.routes.ts); a stale file row can at worst name a preview that was just removed.
 * Reads inside a transaction go to the database (their rows may not be committed), and with `ttlMs` 0 (tests) nothing
 * is kept.
 */
export interface DisplayReads {
  performerSummaries(db: DbOrTrx, ids: readonly string[]): Promise<Map<string, PerformerSummary>>;
  files(db: DbOrTrx, ids: ReadonlyArray<string | null | undefined>): Promise<Map<string, MediaFile>>;
  variants(db: DbOrTrx, parentIds: ReadonlyArray<string | null | undefined>, variant: string): Promise<Map<string, MediaFile>>;
  /** Posts' media by post, each post's in order; a post without media is absent. */
  postMedia(db: DbOrTrx, postIds: readonly string[]): Promise<Map<string, readonly PostMediaRow[]>>;
  /** Cover photos' thumbnail file ids by photo id. */
  coverThumbnails(db: DbOrTrx, photoIds: ReadonlyArray<string | null>): Promise<Map<string, string>>;
  /**
   * The site's active subscription packages, which price an offer where the performer sets no price of their own.
   * An offer shown may lag an admin's change by `ttlMs`, as a guest's cached page does; the checkout reads them fresh.
   */
  sitePackages(db: DbOrTrx): Promise<ActivePackages>;
}

export type Load<V> = (db: DbOrTrx, ids: string[]) => Promise<Map<string, V>>;

/**
 * A by-id cache in front of a batch loader: the ids it holds fresh are answered from memory, the rest in one call of
 * the loader. An id the loader did not find is remembered as absent too. Values are frozen: every request shares them.
 */
export function cacheById<V extends object>(ttlMs: number, maxEntries: number, load: Load<V>) {
  const entries = new Map<string, { at: number; value: V | undefined }>();
  return async (db: DbOrTrx, ids: ReadonlyArray<string | null | undefined>): Promise<Map<string, V>> => {
    const wanted = [...new Set(ids.filter((x): x is string => !!x))];
    if (ttlMs <= 0 || db.isTransaction || !wanted.length) return load(db, wanted);
    const found = new Map<string, V>();
    const missing: string[] = [];
    const now = Date.now();
    for (const id of wanted) {
      const e = entries.get(id);
      if (e && now - e.at < ttlMs) {
        if (e.value) found.set(id, e.value);
      } else missing.push(id);
    }
    if (!missing.length) return found;
    const loaded = await load(db, missing);
    const at = Date.now();
    for (const id of missing) {
      const value = loaded.get(id);
      entries.delete(id);
      entries.set(id, { at, value: value && Object.freeze(value) });
      if (value) found.set(id, value);
    }
    // Oldest first: Map keeps insertion order, and a refreshed id was moved to the end above.
    while (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    return found;
  };
}

/** One value the same for every request (not by id), kept `ttlMs`; concurrent misses share one load. */
export function cacheOne<V extends object>(ttlMs: number, load: (db: DbOrTrx) => Promise<V>) {
  let kept: { at: number; value: Promise<Readonly<V>> } | undefined;
  return (db: DbOrTrx): Promise<Readonly<V>> => {
    if (ttlMs <= 0 || db.isTransaction) return load(db);
    if (!kept || Date.now() - kept.at >= ttlMs) {
      const value = load(db).then((v) => Object.freeze(v));
      kept = { at: Date.now(), value };
      // A failed load is not kept: the next request tries again.
      value.catch(() => {
        if (kept?.value === value) kept = undefined;
      });
    }
    return kept.value;
  };
}

export function createDisplayCache(opts: { ttlMs: number; maxEntries?: number }): DisplayReads {
  const max = opts.maxEntries ?? 20_000;
  const performers = cacheById(opts.ttlMs, max, loadPerformerSummaries);
  const files = cacheById(opts.ttlMs, max, loadFiles);
  const postMedia = cacheById(opts.ttlMs, max, postMediaOf);
  // Kept as objects (what the cache freezes and shares), answered as the ids themselves.
  const covers = cacheById(opts.ttlMs, max, async (db, ids) => new Map([...(await coverThumbnailIds(db, ids))].map(([photo, fileId]) => [photo, { fileId }])));
  // One cache per variant name, keyed by the parent's id.
  const variants = new Map<string, ReturnType<typeof cacheById<MediaFile>>>();
  return {
    performerSummaries: performers,
    files,
    sitePackages: cacheOne(opts.ttlMs, activePackages),
    postMedia,
    async coverThumbnails(db, photoIds) {
      return new Map([...(await covers(db, photoIds))].map(([photo, { fileId }]) => [photo, fileId]));
    },
    variants(db, parentIds, variant) {
      let cache = variants.get(variant);
      if (!cache) variants.set(variant, (cache = cacheById(opts.ttlMs, max, (d, ids) => loadVariants(d, ids, variant))));
      return cache(db, parentIds);
    },
  };
}
