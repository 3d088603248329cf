import type {
  GalleryCardData, PerformerCardData, PhotoCardData, PostCardData, ProductCardData, VideoCardData,
} from '../../../common/schemas/catalogue.js';
import { formatMoney } from '../../../common/money.js';
import { countOf, formatCount } from '../../../common/plural.js';
import type { MouseEvent } from 'react';
import LazyImage from './LazyImage.tsx';

/** Cards of the catalogue listings: previews and price only (a locked item never names its full file). */

const lockLabel = (access: string, price: number, symbol: string) =>
  access === 'sale' ? `Buy ${formatMoney(price, symbol)}` : access === 'subscribers' ? 'Subscribers' : 'Locked';

export function duration(seconds: number | null): string {
  if (!seconds || seconds <= 0) return '';
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function VideoCardView({ item, symbol }: { item: VideoCardData; symbol: string }) {
  return (
    <article className="card media-card" data-testid="video-card">
      <a href={`/videos/${item._id}`} className="media-card__link">
        <div className="media-card__thumb">
          <LazyImage src={item.thumbnail ?? item.poster} alt={item.title} width={320} height={180} />
          {item.duration ? <span className="media-card__badge media-card__badge--time">{duration(item.duration)}</span> : null}
          {item.locked ? <span className="media-card__badge media-card__badge--lock">🔒 {lockLabel(item.access, item.price, symbol)}</span> : item.access === 'free' ? <span className="media-card__badge">Free</span> : null}
        </div>
        <h3 className="media-card__title">{item.title}</h3>
      </a>
      {item.performer ? <p className="media-card__meta"><a href={`/performers/${item.performer.username}`}>{item.performer.name}</a> · {countOf(item.stats.views, 'view')}</p> : null}
    </article>
  );
}

export function GalleryCardView({ item, symbol }: { item: GalleryCardData; symbol: string }) {
  return (
    <article className="card media-card" data-testid="gallery-card">
      <a href={`/galleries/${item._id}`} className="media-card__link">
        <div className="media-card__thumb">
          <LazyImage src={item.cover} alt={item.title} width={320} height={180} />
          <span className="media-card__badge media-card__badge--time">{countOf(item.photoCount, 'photo')}</span>
          {item.locked ? <span className="media-card__badge media-card__badge--lock">🔒 {lockLabel(item.access, item.price, symbol)}</span> : null}
        </div>
        <h3 className="media-card__title">{item.title}</h3>
      </a>
      {item.performer ? <p className="media-card__meta"><a href={`/performers/${item.performer.username}`}>{item.performer.name}</a></p> : null}
    </article>
  );
}

export function ProductCardView({ item, symbol }: { item: ProductCardData; symbol: string }) {
  return (
    <article className="card media-card" data-testid="product-card">
      <a href={`/products/${item._id}`} className="media-card__link">
        <div className="media-card__thumb">
          <LazyImage src={item.image} alt={item.name} width={320} height={180} />
          <span className="media-card__badge">{item.type === 'digital' ? 'Digital' : 'Physical'}</span>
        </div>
        <h3 className="media-card__title">{item.name}</h3>
      </a>
      <p className="media-card__meta">{formatMoney(item.price, symbol)}{item.type === 'physical' && item.stock !== null ? ` · ${item.stock > 0 ? `${formatCount(item.stock)} in stock` : 'Sold out'}` : ''}</p>
    </article>
  );
}

export function PhotoCardView({ item, symbol, onOpen }: { item: PhotoCardData; symbol: string; onOpen?: () => void }) {
  const name = item.title ?? 'Photo';
  const badge = item.locked ? lockLabel(item.access, item.price, symbol) : null;
  const body = (
    <div className="media-card__thumb">
      <LazyImage src={item.thumbnail} alt={name} width={320} height={320} />
      {badge ? <span className="media-card__badge media-card__badge--lock">🔒 {badge}</span> : null}
    </div>
  );
  // With the viewer (src/islands/catalogue/PhotoViewer.tsx) a click opens the photo on the page; the links stay for
  // a click with a modifier key (a new tab) and for the moment before the list is hydrated.
  const open = onOpen
    ? (e: MouseEvent<HTMLElement>) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        onOpen();
      }
    : undefined;
  // A link's name holds the words shown on it (the lock badge), so speech control users can say what they see.
  const viewerLabel = badge ? `${name}: ${badge} (locked preview)` : `${name}: view the photo`;
  return (
    <article className="card media-card media-card--photo" data-testid="photo-card">
      {/* Named on the link itself: the picture inside may still be a pending lazy image with no name to lend. */}
      {!item.locked && item.photo ? (
        <a href={item.photo.url} target="_blank" rel="noopener" onClick={open} data-photo-open aria-label={onOpen ? viewerLabel : `${name} (full size, opens in a new tab)`}>{body}</a>
      ) : item.galleryId ? (
        <a href={`/galleries/${item.galleryId}`} onClick={open} data-photo-open aria-label={onOpen ? viewerLabel : badge ? `${name}: ${badge}, open the gallery` : `${name}: open the gallery`}>{body}</a>
      ) : onOpen ? (
        <button type="button" className="media-card__open" onClick={open} data-photo-open aria-label={viewerLabel}>{body}</button>
      ) : (
        body
      )}
    </article>
  );
}

/** A post: its picture (blurred while locked), what it holds, and the lock with its price; the teaser below. */
export function PostCardView({ item, symbol }: { item: PostCardData; symbol: string }) {
  const holds = item.hasVideo ? 'Video' : item.imageCount > 0 ? countOf(item.imageCount, 'photo') : null;
  return (
    <article className="card media-card" data-testid="post-card" data-locked={item.locked ? 'true' : 'false'}>
      <a href={`/posts/${item._id}`} className="media-card__link">
        {item.image ? (
          <div className="media-card__thumb">
            <LazyImage src={item.image} alt={item.title} width={320} height={180} />
            {holds ? <span className="media-card__badge media-card__badge--time">{holds}</span> : null}
            {item.locked ? <span className="media-card__badge media-card__badge--lock">🔒 {lockLabel(item.access, item.price, symbol)}</span> : null}
          </div>
        ) : item.locked ? (
          <p className="media-card__meta" data-testid="post-card-lock">🔒 {lockLabel(item.access, item.price, symbol)}</p>
        ) : null}
        <h3 className="media-card__title">{item.title}</h3>
      </a>
      {item.excerpt ? <p className="media-card__meta">{item.excerpt}</p> : null}
      <p className="media-card__meta">{(item.publishedAt ?? item.createdAt).slice(0, 10)}</p>
    </article>
  );
}

export function PerformerCardItem({ item, symbol }: { item: PerformerCardData; symbol: string }) {
  return (
    <article className="card performer-card" data-testid="performer-card">
      <a href={`/performers/${item.username}`} className="performer-card__link">
        <div className="performer-card__cover">{item.cover ? <LazyImage src={item.cover} alt="" width={400} height={100} /> : null}</div>
        <LazyImage className="performer-card__avatar" src={item.avatar} alt={item.name} width={72} height={72} />
        <h3 className="performer-card__name">{item.name}</h3>
        <p className="performer-card__meta">@{item.username} · {countOf(item.videoCount, 'video')}</p>
        <p className="performer-card__price">{item.monthlyPrice > 0 ? `${formatMoney(item.monthlyPrice, symbol)} / month` : 'Free'}</p>
      </a>
    </article>
  );
}
