import { lazy, Suspense, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import type {
  GalleryCardData, PerformerCardData, PhotoCardData, PostCardData, ProductCardData, VideoCardData,
} from '../../common/schemas/catalogue.js';
import type { ListResult } from '../../common/schemas/http.js';
import type { ListQuery } from '../lib/api/transport.js';
import { catalogueListing, type CatalogueListKind } from '../lib/stores/listing.js';
import { GalleryCardView, PerformerCardItem, PhotoCardView, PostCardView, ProductCardView, VideoCardView } from './catalogue/cards.tsx';
import { NativeLazyImages } from './catalogue/LazyImage.tsx';

// Loaded the first time a photo is opened: pages pay nothing for the viewer until then.
const PhotoViewer = lazy(() => import('./catalogue/PhotoViewer.tsx'));

export type ListKind = CatalogueListKind;

/** What the cards show; the first page holds only these fields (src/server/list-cards.ts), later pages full items. */
export type AnyCard = VideoCardData | GalleryCardData | ProductCardData | PhotoCardData | PostCardData | PerformerCardData;

export interface LoadMoreListProps {
  kind: ListKind;
  /** Filters, sort and page size, as the page rendered the first page with. */
  query: ListQuery;
  /** The first page (server-rendered), cut to the cards' fields by cardPage. */
  initial: ListResult<AnyCard>;
  /** For `galleryPhotos`: the gallery. */
  galleryId?: string;
  currencySymbol?: string;
  emptyText?: string;
  testId?: string;
  /**
   * The page renders this list without a client directive (HTML only, never hydrated): its images load through the
   * browser's own lazy loading, since no script will ever give them their `src`.
   */
  serverOnly?: boolean;
  /**
   * The page was rendered without the viewer (a member-shell page, shown alike to every signed-in visitor): once
   * hydrated, the list asks for its first page again as the viewer, so the cards show what is open to them, unless
   * the member header says nothing is open to them that a guest's copy shows locked.
   */
  reloadForViewer?: boolean;
  /** A short list beside an item (a video's "more from"): that item left out, and no "Load more". */
  sample?: { exclude: string };
}

/** A listing whose "Load more" button appends the next page (docs/product.md); items render on the server first. */
export default function LoadMoreList({ kind, query, initial, galleryId, currencySymbol = '$', emptyText = 'Nothing here yet.', testId, serverOnly = false, reloadForViewer = false, sample }: LoadMoreListProps) {
  const listing = useMemo(() => catalogueListing<AnyCard>(kind, query, initial, galleryId), []); // eslint-disable-line react-hooks/exhaustive-deps
  useEffect(() => {
    if (!reloadForViewer) return;
    // Only when something may be open to this viewer that a guest's copy shows locked; loaded here alone, so a
    // guest's page never downloads the member header's store.
    void import('../lib/stores/member-header.js')
      .then(({ loadMemberHeader }) => loadMemberHeader())
      .then((header) => (header?.unlocksMore ? listing.load() : undefined));
  }, []); // eslint-disable-line react-hooks/exhaustive-deps
  const listed = useStore(listing.store);
  const sampled = sample && listed.items.filter((i) => i._id !== sample.exclude);
  const state = sampled ? { ...listed, items: sampled, total: sampled.length } : listed;
  const root = useRef<HTMLDivElement>(null);
  // The photo shown in the viewer (an index into the list), or null while it is closed.
  const [viewing, setViewing] = useState<number | null>(null);
  const photos = kind === 'photos' || kind === 'galleryPhotos';

  const showPhoto = async (i: number) => {
    if (i < 0 || i >= state.total) return;
    if (i >= listing.store.get().items.length) await listing.loadMore();
    if (i < listing.store.get().items.length) setViewing(i);
  };
  const closeViewer = (returnFocus = true) => {
    const at = viewing;
    setViewing(null);
    // Back to the card of the photo last shown (loaded pages stay, so it is there).
    if (returnFocus && at !== null) root.current?.querySelectorAll<HTMLElement>('[data-testid="photo-card"] [data-photo-open]')[at]?.focus();
  };
  // A locked photo's prompt leads to the gallery's unlock box: on this page when it is the gallery's page.
  const unlockHref = (item: PhotoCardData) => (!item.galleryId ? null : kind === 'galleryPhotos' ? '#unlock' : `/galleries/${item.galleryId}#unlock`);

  const card = (item: AnyCard, i: number) => {
    switch (kind) {
      case 'videos': return <VideoCardView key={item._id} item={item as VideoCardData} symbol={currencySymbol} />;
      case 'galleries': return <GalleryCardView key={item._id} item={item as GalleryCardData} symbol={currencySymbol} />;
      case 'products': return <ProductCardView key={item._id} item={item as ProductCardData} symbol={currencySymbol} />;
      case 'photos':
      case 'galleryPhotos': return <PhotoCardView key={item._id} item={item as PhotoCardData} symbol={currencySymbol} onOpen={serverOnly ? undefined : () => void showPhoto(i)} />;
      case 'posts': return <PostCardView key={item._id} item={item as PostCardData} symbol={currencySymbol} />;
      case 'performers': return <PerformerCardItem key={item._id} item={item as PerformerCardData} symbol={currencySymbol} />;
    }
  };
  const list = (
    <div className="listing" data-testid={testId ?? `list-${kind}`} data-total={state.total} ref={root}>
      <div className={`grid ${kind === 'performers' ? 'grid--performers' : 'grid--media'}`}>{state.items.map(card)}</div>
      {state.items.length === 0 && !state.requesting ? <p className="empty">{emptyText}</p> : null}
      {state.error ? <p className="form__error" role="alert">{state.error}</p> : null}
      {state.items.length < state.total ? (
        <div className="listing__more">
          <button type="button" className="btn" onClick={() => void listing.loadMore()} disabled={state.requesting} data-testid="load-more">
            {state.requesting ? 'Loading…' : `Load more (${state.items.length} of ${state.total})`}
          </button>
        </div>
      ) : null}
      {photos && viewing !== null ? (
        <Suspense fallback={null}>
          <PhotoViewer
            items={state.items as PhotoCardData[]}
            total={state.total}
            index={viewing}
            symbol={currencySymbol}
            onShow={(i) => void showPhoto(i)}
            onClose={closeViewer}
            unlockHref={unlockHref}
          />
        </Suspense>
      ) : null}
    </div>
  );
  return serverOnly ? <NativeLazyImages.Provider value>{list}</NativeLazyImages.Provider> : list;
}
