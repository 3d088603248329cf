import { useMemo } from 'react';
import { useStore } from '@nanostores/react';
import type {
  GalleryCardData, ListResult, PerformerCardData, PhotoCardData, PostCardData, ProductCardData, VideoCardData,
} from '../../common/api-types.js';
import type { ListQuery } from '../lib/api.js';
import { catalogueListing, type CatalogueListKind } from '../lib/stores/listing.js';
import { GalleryCardView, PerformerCardItem, PhotoCardView, PostCardView, ProductCardView, VideoCardView } from './catalogue/cards.tsx';

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
}

/** A listing whose "Load more" button appends the next page (SPEC §4); items render on the server first. */
export default function LoadMoreList({ kind, query, initial, galleryId, currencySymbol = '$', emptyText = 'Nothing here yet.', testId }: LoadMoreListProps) {
  const listing = useMemo(() => catalogueListing<AnyCard>(kind, query, initial, galleryId), []); // eslint-disable-line react-hooks/exhaustive-deps
  const state = useStore(listing.store);
  const card = (item: AnyCard) => {
    switch (kind) {
      case 'videos': return <VideoCardView key={item._id} item={item as VideoCardData} symbol={currencySymbol} />;
      case 'galleries': return <GalleryCardView key={item._id} item={item as GalleryCardData} symbol={currencySymbol} />;
      case 'products': return <ProductCardView key={item._id} item={item as ProductCardData} symbol={currencySymbol} />;
      case 'photos':
      case 'galleryPhotos': return <PhotoCardView key={item._id} item={item as PhotoCardData} symbol={currencySymbol} />;
      case 'posts': return <PostCardView key={item._id} item={item as PostCardData} symbol={currencySymbol} />;
      case 'performers': return <PerformerCardItem key={item._id} item={item as PerformerCardData} symbol={currencySymbol} />;
    }
  };
  return (
    <div className="listing" data-testid={testId ?? `list-${kind}`} data-total={state.total}>
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
    </div>
  );
}
