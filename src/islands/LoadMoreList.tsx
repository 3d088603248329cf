import { useMemo } from 'react';
import { useStore } from '@nanostores/react';
import type { GalleryItem, ListResult, PerformerCard, PhotoItem, PostCard, ProductItem, VideoItem } from '../../common/api-types.js';
import { catalogue, type ListQuery } from '../lib/api.js';
import { createListing, type ListingFetcher } from '../lib/stores/listing.js';
import { GalleryCardView, PerformerCardItem, PhotoCardView, PostCardView, ProductCardView, VideoCardView } from './catalogue/cards.tsx';

export type ListKind = 'videos' | 'galleries' | 'products' | 'photos' | 'galleryPhotos' | 'posts' | 'performers';

type AnyItem = VideoItem | GalleryItem | ProductItem | PhotoItem | PostCard | PerformerCard;

export interface LoadMoreListProps {
  kind: ListKind;
  /** Filters, sort and page size, as the page rendered the first page with. */
  query: ListQuery;
  /** The first page (server-rendered). */
  initial: ListResult<AnyItem>;
  /** For `galleryPhotos`: the gallery. */
  galleryId?: string;
  currencySymbol?: string;
  emptyText?: string;
  testId?: string;
}

function fetcherFor(kind: ListKind, galleryId?: string): ListingFetcher<AnyItem> {
  switch (kind) {
    case 'videos': return catalogue.videos;
    case 'galleries': return catalogue.galleries;
    case 'products': return catalogue.products;
    case 'photos': return catalogue.photos;
    case 'galleryPhotos': return (q) => catalogue.galleryPhotos(galleryId ?? '', q);
    case 'posts': return catalogue.posts;
    case 'performers': return catalogue.performers;
  }
}

/** A listing whose "Load more" button appends the next page (SPEC §4); items render on the server first. */
export default function LoadMoreList({ kind, query, initial, galleryId, currencySymbol = '$', emptyText = 'Nothing here yet.', testId }: LoadMoreListProps) {
  const listing = useMemo(() => createListing<AnyItem>(fetcherFor(kind, galleryId), query, initial), []); // eslint-disable-line react-hooks/exhaustive-deps
  const state = useStore(listing.store);
  const card = (item: AnyItem) => {
    switch (kind) {
      case 'videos': return <VideoCardView key={item._id} item={item as VideoItem} symbol={currencySymbol} />;
      case 'galleries': return <GalleryCardView key={item._id} item={item as GalleryItem} symbol={currencySymbol} />;
      case 'products': return <ProductCardView key={item._id} item={item as ProductItem} symbol={currencySymbol} />;
      case 'photos':
      case 'galleryPhotos': return <PhotoCardView key={item._id} item={item as PhotoItem} symbol={currencySymbol} />;
      case 'posts': return <PostCardView key={item._id} item={item as PostCard} />;
      case 'performers': return <PerformerCardItem key={item._id} item={item as PerformerCard} symbol={currencySymbol} />;
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
