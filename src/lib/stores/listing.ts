import { map, type MapStore } from 'nanostores';
import type { ListResult } from '../../../common/schemas/http.js';
import type { ListQuery } from '../api/transport.js';
import { errorMessage } from '../api/error.js';
import { call } from './client.js';
import { registerReset } from './reset.js';

/**
 * Listing state (docs/product.md: items, total, requesting, error, success) for videos, galleries, products, photos,
 * posts and performers. Lists load (loading → success or failure, docs/product.md) and a separate load-more appends
 * the next page (by cursor when the server gave one, else by offset), skipping items already present.
 */
export interface ListingState<T> {
  items: T[];
  total: number;
  requesting: boolean;
  error: string | null;
  success: boolean;
  nextCursor: string | null;
}

export type ListingFetcher<T> = (query: ListQuery) => Promise<ListResult<T>>;

export interface Listing<T> {
  store: MapStore<ListingState<T>>;
  /** Loads the first page (replacing the items). */
  load(): Promise<void>;
  /** Appends the next page. */
  loadMore(): Promise<void>;
  hasMore(): boolean;
}

export const LOAD_ERROR = 'Could not load more items, please try again';

const all = new Set<MapStore<ListingState<unknown>>>();

export function emptyListing<T>(): ListingState<T> {
  return { items: [], total: 0, requesting: false, error: null, success: false, nextCursor: null };
}

/** A listing over `fetcher` with a fixed query (filters, sort, page size); `initial` is the server-rendered first page. */
export function createListing<T extends { _id: string }>(fetcher: ListingFetcher<T>, query: ListQuery, initial?: ListResult<T> | null): Listing<T> {
  const store = map<ListingState<T>>(
    initial ? { ...emptyListing<T>(), items: initial.items, total: initial.total, nextCursor: initial.nextCursor ?? null, success: true } : emptyListing<T>(),
  );
  // Only the browser's listings are reset on sign-out; a server render's store is dropped with the render (kept
  // here, every server render of a list would stay in memory for good).
  if (typeof window !== 'undefined') all.add(store as unknown as MapStore<ListingState<unknown>>);

  async function fetchPage(more: boolean): Promise<void> {
    const s = store.get();
    if (s.requesting) return;
    store.setKey('requesting', true);
    store.setKey('error', null);
    try {
      const page = await fetcher({ ...query, ...(more ? (s.nextCursor ? { cursor: s.nextCursor } : { offset: s.items.length }) : {}) });
      const current = store.get();
      const seen = new Set(current.items.map((i) => i._id));
      const items = more ? [...current.items, ...page.items.filter((i) => !seen.has(i._id))] : page.items;
      store.set({ items, total: page.total, nextCursor: page.nextCursor ?? null, requesting: false, error: null, success: true });
    } catch (err) {
      store.set({ ...store.get(), requesting: false, success: false, error: errorMessage(err, LOAD_ERROR) });
    }
  }

  return {
    store,
    load: () => fetchPage(false),
    loadMore: () => fetchPage(true),
    hasMore: () => store.get().items.length < store.get().total,
  };
}

export type CatalogueListKind = 'videos' | 'galleries' | 'products' | 'photos' | 'galleryPhotos' | 'posts' | 'performers';

/** A listing of one of the public catalogue lists (`galleryId` for a gallery's photos). */
export function catalogueListing<T extends { _id: string }>(kind: CatalogueListKind, query: ListQuery, initial?: ListResult<T> | null, galleryId?: string): Listing<T> {
  const fetcher = (q: ListQuery) =>
    call<ListResult<unknown>>(({ catalogue }) => (kind === 'galleryPhotos' ? catalogue.galleryPhotos(galleryId ?? '', q) : catalogue[kind](q))) as Promise<ListResult<T>>;
  return createListing<T>(fetcher, query, initial);
}

/** Listings the browser holds (for tests: a server render must not add to it). */
export const listingsHeld = (): number => all.size;

registerReset('listings', () => {
  for (const store of all) store.set(emptyListing());
});
