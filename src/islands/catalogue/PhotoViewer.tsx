import { useEffect, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type TouchEvent as ReactTouchEvent } from 'react';
import { createPortal } from 'react-dom';
import type { PhotoCardData } from '../../../common/schemas/catalogue.js';
import { formatMoney } from '../../../common/money.js';

/**
 * The photo viewer of a photo list (src/islands/LoadMoreList.tsx loads it the first time a photo is opened, so no
 * page pays for it up front). A modal dialog over the page: previous/next buttons, ←/→ keys, a horizontal swipe on
 * touch screens, a counter, Escape or the close button to leave; focus stays inside while it is open and goes back
 * to the photo's card when it closes (the list does that, it knows the cards).
 *
 * An open photo shows its full file (a signed URL, over its sharp thumbnail while it loads); a locked one shows its
 * blurred preview and what would open it, never a file it may not have.
 */
export interface PhotoViewerProps {
  items: PhotoCardData[];
  /** All photos of the list, loaded or not (the counter says "3 / 12" even when 6 are loaded so far). */
  total: number;
  index: number;
  symbol: string;
  /** Shows photo `index`; the list loads the next page first when it is not loaded yet. */
  onShow(index: number): void;
  /** Closes the viewer; focus goes back to the photo's card unless `returnFocus` is false (it went elsewhere). */
  onClose(returnFocus?: boolean): void;
  /** Where the paywall prompt sends a locked photo's viewer (the gallery's unlock box), or null for none. */
  unlockHref(item: PhotoCardData): string | null;
}

/** A horizontal move of at least this many pixels (and more horizontal than vertical) is a swipe. */
const SWIPE_PX = 40;

const FOCUSABLE = 'a[href], button:not([disabled]), [tabindex]:not([tabindex="-1"])';

export default function PhotoViewer({ items, total, index, symbol, onShow, onClose, unlockHref }: PhotoViewerProps) {
  const dialog = useRef<HTMLDivElement>(null);
  const closeButton = useRef<HTMLButtonElement>(null);
  const touch = useRef<{ x: number; y: number } | null>(null);
  const item = items[index];
  const [failed, setFailed] = useState<string | null>(null);
  const hasPrev = index > 0;
  const hasNext = index + 1 < total;
  const prev = () => hasPrev && onShow(index - 1);
  const next = () => hasNext && onShow(index + 1);

  // The page behind does not scroll while the dialog is open (a class: the page CSP refuses style attributes).
  useEffect(() => {
    document.documentElement.classList.add('has-modal');
    closeButton.current?.focus();
    return () => document.documentElement.classList.remove('has-modal');
  }, []);

  // Keys work wherever focus is inside the dialog; Tab and Shift+Tab go round its controls only.
  const onKeyDown = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onClose();
    } else if (e.key === 'ArrowLeft') {
      e.preventDefault();
      prev();
    } else if (e.key === 'ArrowRight') {
      e.preventDefault();
      next();
    } else if (e.key === 'Tab') {
      const controls = [...(dialog.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])];
      if (!controls.length) return;
      const first = controls[0]!;
      const last = controls[controls.length - 1]!;
      const active = document.activeElement;
      if (e.shiftKey && (active === first || !dialog.current?.contains(active))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (active === last || !dialog.current?.contains(active))) {
        e.preventDefault();
        first.focus();
      }
    }
  };

  const onTouchStart = (e: ReactTouchEvent) => {
    const t = e.touches[0];
    touch.current = e.touches.length === 1 && t ? { x: t.clientX, y: t.clientY } : null;
  };
  const onTouchEnd = (e: ReactTouchEvent) => {
    const start = touch.current;
    const t = e.changedTouches[0];
    touch.current = null;
    if (!start || !t) return;
    const dx = t.clientX - start.x;
    const dy = t.clientY - start.y;
    if (Math.abs(dx) < SWIPE_PX || Math.abs(dx) <= Math.abs(dy)) return;
    if (dx < 0) next();
    else prev();
  };

  // The unlock box on this page: close, then take focus (and the reader) there. Another page: follow the link.
  const toUnlock = (e: { preventDefault(): void }, href: string) => {
    if (!href.startsWith('#')) return;
    e.preventDefault();
    onClose(false);
    const target = document.getElementById(href.slice(1));
    if (!target) return;
    target.tabIndex = -1;
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: 'center' });
  };

  const title = item?.title ?? null;
  const alt = title ?? `Photo ${index + 1} of ${total}`;
  const full = item && !item.locked ? (item.photo?.url ?? null) : null;
  const unlock = item?.locked ? unlockHref(item) : null;

  return createPortal(
    <div className="photo-viewer" data-testid="photo-viewer" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={dialog}
        className="photo-viewer__dialog"
        role="dialog"
        aria-modal="true"
        aria-label="Photo viewer"
        // A click on the photo (not a control) focuses the dialog itself, so its keys keep working.
        tabIndex={-1}
        onKeyDown={onKeyDown}
        onTouchStart={onTouchStart}
        onTouchEnd={onTouchEnd}
      >
        <div className="photo-viewer__bar">
          <p className="photo-viewer__counter" data-testid="photo-viewer-counter" aria-live="polite" aria-atomic="true">
            <span className="sr-only">Photo </span>{index + 1} / {total}
          </p>
          <button ref={closeButton} type="button" className="photo-viewer__close" onClick={() => onClose()} aria-label="Close the photo viewer" data-testid="photo-viewer-close">
            <span aria-hidden="true">×</span>
          </button>
        </div>
        <figure className="photo-viewer__figure">
          <div className="photo-viewer__stage">
            {!item ? (
              <p className="photo-viewer__note">Loading…</p>
            ) : (
              <>
                {/* The thumbnail fills the stage while the full photo loads (blurred when locked). */}
                {item.thumbnail ? <img key={`t${item._id}`} className="photo-viewer__img photo-viewer__img--preview" src={item.thumbnail} alt={full ? '' : alt} data-testid="photo-viewer-preview" /> : null}
                {full && failed !== full ? (
                  <img key={full} className="photo-viewer__img" src={full} alt={alt} data-testid="photo-viewer-image" onError={() => setFailed(full)} />
                ) : null}
              </>
            )}
          </div>
          {item?.locked ? (
            <div className="photo-viewer__paywall" data-testid="photo-viewer-paywall">
              <p>
                <span aria-hidden="true">🔒 </span>
                {item.access === 'sale' ? `Buy this gallery for ${formatMoney(item.price, symbol)} to see this photo in full.` : 'Subscribe to see this photo in full.'}
              </p>
              {unlock ? <a className="btn btn--primary" href={unlock} onClick={(e) => toUnlock(e, unlock)} data-testid="photo-viewer-unlock">{item.access === 'sale' ? 'Buy the gallery' : 'See how to subscribe'}</a> : null}
            </div>
          ) : full && failed === full ? (
            <p className="photo-viewer__note" role="alert">
              This photo could not be loaded (its link may have expired).{' '}
              <button type="button" className="btn btn--link" onClick={() => location.reload()}>Reload the page</button> to see it.
            </p>
          ) : null}
          {title ? <figcaption className="photo-viewer__caption">{title}</figcaption> : null}
        </figure>
        <button type="button" className="photo-viewer__nav photo-viewer__nav--prev" onClick={prev} disabled={!hasPrev} aria-label="Previous photo" data-testid="photo-viewer-prev">
          <span aria-hidden="true">‹</span>
        </button>
        <button type="button" className="photo-viewer__nav photo-viewer__nav--next" onClick={next} disabled={!hasNext} aria-label="Next photo" data-testid="photo-viewer-next">
          <span aria-hidden="true">›</span>
        </button>
      </div>
    </div>,
    document.body,
  );
}
