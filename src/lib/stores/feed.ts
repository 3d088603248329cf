import { map, type MapStore } from 'nanostores';
import type { FeedPage } from '../../../common/schemas/feed.js';
import { toFeedCard, type FeedCard, type FeedCardPage } from '../feed-cards.js';
import { errorMessage } from '../api/error.js';
import { call } from './client.js';
import { onRealtime } from './realtime-events.js';
import { LOAD_ERROR } from './listing.js';

/**
 * The home feed (docs/product.md, Follows and the feed): the items shown, the cursor of the next page, and the new
 * items that arrived while the page was open (`fresh`), shown on top when the reader asks ("2 new posts"), so what
 * they are reading does not move. A `content/new` event only says that something was published; the feed's first
 * page is then asked over HTTP, which applies the access rules, and what is not shown yet becomes fresh.
 */
export interface FeedState {
  items: FeedCard[];
  fresh: FeedCard[];
  nextCursor: string | null;
  requesting: boolean;
  error: string | null;
}

export interface Feed {
  store: MapStore<FeedState>;
  loadMore(): Promise<void>;
  /** Asks the newest page and keeps what is not shown yet as fresh. */
  checkNew(): Promise<void>;
  /** Puts the fresh items on top. */
  showFresh(): void;
  /** Listens for `content/new` until the returned function is called. */
  listen(): () => void;
}

export function createFeed(initial: FeedCardPage, pageSize: number): Feed {
  const store = map<FeedState>({ items: initial.items, fresh: [], nextCursor: initial.nextCursor ?? null, requesting: false, error: null });
  const fetchPage = (cursor?: string | null) => call(({ engagement }) => engagement.feed({ limit: pageSize, cursor })) as Promise<FeedPage>;
  const known = () => new Set([...store.get().items, ...store.get().fresh].map((i) => i._id));

  async function loadMore(): Promise<void> {
    const s = store.get();
    if (s.requesting || !s.nextCursor) return;
    store.setKey('requesting', true);
    store.setKey('error', null);
    try {
      const page = await fetchPage(s.nextCursor);
      const seen = known();
      store.set({ ...store.get(), items: [...store.get().items, ...page.items.map(toFeedCard).filter((i) => !seen.has(i._id))], nextCursor: page.nextCursor ?? null, requesting: false });
    } catch (err) {
      store.set({ ...store.get(), requesting: false, error: errorMessage(err, LOAD_ERROR) });
    }
  }

  let checking: Promise<void> | null = null;
  async function checkNew(): Promise<void> {
    // Events of one burst share one request; one that comes during it asks again after it.
    if (checking) return checking.then(() => checkNew());
    checking = (async () => {
      try {
        const page = await fetchPage();
        const seen = known();
        const fresh = page.items.map(toFeedCard).filter((i) => !seen.has(i._id));
        // With nothing shown yet (an empty feed) they go straight in.
        if (!store.get().items.length) store.set({ ...store.get(), items: fresh, nextCursor: page.nextCursor ?? null });
        else if (fresh.length) store.setKey('fresh', [...fresh, ...store.get().fresh]);
      } catch {
        // the next event or a reload tries again
      }
    })();
    try {
      await checking;
    } finally {
      checking = null;
    }
  }

  function showFresh(): void {
    const s = store.get();
    store.set({ ...s, items: [...s.fresh, ...s.items], fresh: [] });
  }

  return { store, loadMore, checkNew, showFresh, listen: () => onRealtime('content/new', () => void checkNew()) };
}
