import { useEffect, useMemo } from 'react';
import { useStore } from '@nanostores/react';
import { formatMoney } from '../../common/money.js';
import { countOf } from '../../common/plural.js';
import { unlockLink, type FeedCard, type FeedCardPage } from '../lib/feed-cards.js';
import { createFeed } from '../lib/stores/feed.js';
import { feedPages, seedFeedPage } from '../lib/stores/member-header.js';
import { withNext } from '../../common/next-path.js';
import { usePageViewer } from './shared/usePageViewer.js';
import { GalleryCardView, PostCardView, VideoCardView } from './catalogue/cards.tsx';

export interface FeedProps {
  /**
   * The first page, cut to the cards' fields (src/server/list-cards.ts, feedCardPage), when the page was rendered for
   * the visitor; null on the member shell, where it comes with the header's one request (the page names its size:
   * `data-member-feed`).
   */
  initial: FeedCardPage | null;
  pageSize: number;
  currencySymbol?: string;
}

const KIND = { video: 'video', gallery: 'gallery', post: 'post' } as const;
const when = (iso: string) => new Date(iso).toLocaleString('en-US', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: 'UTC' });

/**
 * The home feed: new posts, videos and galleries of followed and subscribed performers, newest first, "Load more" by
 * cursor, and a "1 new post" pill when something is published while the page is open. A locked item shows the way to
 * unlock it, as the catalogue's cards do. Until the first page is known the feed holds its place.
 */
export default function Feed({ initial, pageSize, currencySymbol = '$' }: FeedProps) {
  const { state, retry } = usePageViewer(feedPages, String(pageSize), initial, (page) => seedFeedPage(pageSize, page));
  if (state === null) return <p className="feed feed--waiting" aria-busy="true" data-testid="feed-pending">Loading your feed…</p>;
  if (state === 'guest') {
    return (
      <p className="feed" data-testid="feed-guest">
        Your session has ended. <a href={withNext('/auth/login', '/home')}>Log in</a> to see your feed.
      </p>
    );
  }
  if (state === 'failed') {
    return (
      <p className="feed" data-testid="feed-failed">
        <button type="button" className="btn" onClick={retry} data-testid="feed-retry">Could not load your feed. Try again</button>
      </p>
    );
  }
  return <FeedList first={state} pageSize={pageSize} currencySymbol={currencySymbol} />;
}

function FeedList({ first, pageSize, currencySymbol }: { first: FeedCardPage; pageSize: number; currencySymbol: string }) {
  const feed = useMemo(() => createFeed(first, pageSize), []); // eslint-disable-line react-hooks/exhaustive-deps
  const state = useStore(feed.store);
  useEffect(() => feed.listen(), [feed]);

  const showFresh = () => {
    feed.showFresh();
    window.scrollTo({ top: 0, behavior: 'smooth' });
  };

  return (
    <div className="feed" data-testid="feed">
      {state.fresh.length > 0 ? (
        <button type="button" className="btn btn--primary feed__pill" onClick={showFresh} data-testid="feed-new">
          {countOf(state.fresh.length, 'new post')}
        </button>
      ) : null}
      {state.items.length === 0 ? (
        <p className="empty" data-testid="feed-empty">Your feed is empty. Follow performers and their new posts, videos and galleries will show up here.</p>
      ) : null}
      <ol className="feed__list">
        {state.items.map((item) => (
          <li key={item._id} className="feed__item" data-testid="feed-item" data-kind={item.kind} data-id={item._id}>
            <header className="feed__head">
              {item.performer ? (
                <a href={`/performers/${item.performer.username}`} className="feed__who">
                  <img src={item.performer.avatar} alt="" width={32} height={32} className="feed__avatar" loading="lazy" />
                  <span>{item.performer.name}</span>
                </a>
              ) : null}
              <span className="feed__meta">
                new {KIND[item.kind]} · <time dateTime={item.publishedAt}>{when(item.publishedAt)}</time>
              </span>
            </header>
            {item.kind === 'video' ? <VideoCardView item={item.card} symbol={currencySymbol} /> : null}
            {item.kind === 'gallery' ? <GalleryCardView item={item.card} symbol={currencySymbol} /> : null}
            {item.kind === 'post' ? <PostCardView item={item.card} symbol={currencySymbol} /> : null}
            <Unlock item={item} symbol={currencySymbol} />
          </li>
        ))}
      </ol>
      {state.error ? <p className="form__error" role="alert">{state.error}</p> : null}
      {state.nextCursor ? (
        <div className="listing__more">
          <button type="button" className="btn" onClick={() => void feed.loadMore()} disabled={state.requesting} data-testid="feed-more">
            {state.requesting ? 'Loading…' : 'Load more'}
          </button>
        </div>
      ) : null}
    </div>
  );
}

function Unlock({ item, symbol }: { item: FeedCard; symbol: string }) {
  const link = unlockLink(item);
  if (!link) return null;
  return (
    <p className="feed__unlock" data-testid="feed-unlock">
      <a className="btn" href={link.href}>
        {link.label === 'buy' ? `🔒 Unlock · ${formatMoney(item.card.price, symbol)}` : '🔒 Subscribe to unlock'}
      </a>
    </p>
  );
}
