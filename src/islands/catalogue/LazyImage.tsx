import { createContext, useContext, useEffect, useRef, useState } from 'react';

/** docs/product.md: an image starts loading 200 ms after it enters the viewport (and only if it is still there). */
export const LAZY_DELAY_MS = 200;

/**
 * True under cards that a page renders without a client directive (HTML only, never hydrated): nothing would ever
 * give their images a `src`, so they use the browser's own lazy loading instead. The "More from…" list of a video
 * page showed empty thumbnails for good that way.
 */
export const NativeLazyImages = createContext(false);

export interface LazyImageProps {
  src: string | null;
  alt: string;
  width?: number;
  height?: number;
  className?: string;
}

/**
 * Lazy image: rendered without `src` and given it 200 ms after it scrolled into view; a `<noscript>` copy with
 * `loading="lazy"` serves visitors (and crawlers) without JavaScript. No image, or one that fails to load, is an
 * empty placeholder of the same shape.
 */
export default function LazyImage(props: LazyImageProps) {
  return useContext(NativeLazyImages) ? <NativeLazyImage {...props} /> : <DelayedImage {...props} />;
}

function NativeLazyImage({ src, alt, width, height, className }: LazyImageProps) {
  if (!src) return <svg className={`media-placeholder ${className ?? ''}`} viewBox={`0 0 ${width ?? 16} ${height ?? 9}`} aria-hidden="true" />;
  return <img src={src} alt={alt} width={width} height={height} className={className} loading="lazy" decoding="async" />;
}

function DelayedImage({ src, alt, width, height, className }: LazyImageProps) {
  const ref = useRef<HTMLImageElement>(null);
  const [shown, setShown] = useState(false);
  // A file that is missing or unreadable shows the placeholder, not a broken-image icon over the alt text.
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    const el = ref.current;
    if (!el || !src || shown) return;
    if (typeof IntersectionObserver === 'undefined') {
      setShown(true);
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const observer = new IntersectionObserver((entries) => {
      // The last record is the element's state now (a fast scroll can report it entering and leaving in one batch).
      const visible = entries[entries.length - 1]?.isIntersecting ?? false;
      if (visible && !timer) {
        timer = setTimeout(() => {
          setShown(true);
          observer.disconnect();
        }, LAZY_DELAY_MS);
      } else if (!visible && timer) {
        clearTimeout(timer);
        timer = undefined;
      }
    }, { rootMargin: '100px' });
    observer.observe(el);
    return () => {
      observer.disconnect();
      if (timer) clearTimeout(timer);
    };
  }, [src, shown]);
  // An empty SVG keeps the aspect ratio through its viewBox: no style attribute, which the page CSP refuses.
  if (!src || failed) return <svg className={`media-placeholder ${className ?? ''}`} viewBox={`0 0 ${width ?? 16} ${height ?? 9}`} aria-hidden="true" />;
  return (
    <>
      <img
        ref={ref}
        src={shown ? src : undefined}
        data-src={src}
        alt={alt}
        width={width}
        height={height}
        className={className}
        decoding="async"
        data-lazy={shown ? 'loaded' : 'pending'}
        onError={shown ? () => setFailed(true) : undefined}
      />
      <noscript>
        <img src={src} alt={alt} width={width} height={height} className={className} loading="lazy" decoding="async" />
      </noscript>
    </>
  );
}
