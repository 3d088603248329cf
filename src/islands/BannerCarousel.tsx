import { useEffect, useRef, useState } from 'react';

export interface BannerSlide {
  _id: string;
  title: string;
  description: string | null;
  link: string | null;
  imageUrl: string | null;
}

export interface BannerCarouselProps {
  banners: BannerSlide[];
  /** How long each banner shows while the banners rotate. */
  intervalMs?: number;
}

/**
 * The home page's promotions: one banner at a time, its title and description written over the picture as text (not
 * baked into the image). A row that scrolls sideways with snap points, so it works without JavaScript and swipes
 * natively on phones; once hydrated it rotates by itself, with previous/next, pause/play and a dot per banner.
 * Rotation pauses while the pointer or keyboard focus is on it, and does not start for visitors who ask for reduced
 * motion (they may press play). The controls appear only once they work, over the picture, so nothing moves.
 */
export default function BannerCarousel({ banners, intervalMs = 6000 }: BannerCarouselProps) {
  const track = useRef<HTMLDivElement>(null);
  const [current, setCurrent] = useState(0);
  const [ready, setReady] = useState(false);
  const [playing, setPlaying] = useState(false);
  const [held, setHeld] = useState({ hover: false, focus: false });
  const reduced = useRef(false);
  /** The banner a button is scrolling to: until the row rests there, the readings on the way do not count. */
  const aimed = useRef<number | null>(null);
  const count = banners.length;

  useEffect(() => {
    reduced.current = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
    setPlaying(!reduced.current);
    setReady(true);
  }, []);

  // The banner shown is the one the row rests on, whoever scrolled it (a button, a swipe, Tab to its link). Read
  // once the scrolling has settled: mid-way through a smooth scroll the row passes over the banners between.
  useEffect(() => {
    const el = track.current;
    if (!el) return;
    let settle: ReturnType<typeof setTimeout> | undefined;
    const onScroll = () => {
      clearTimeout(settle);
      settle = setTimeout(() => {
        const slides = [...el.children] as HTMLElement[];
        let best = 0;
        slides.forEach((s, i) => {
          if (Math.abs(s.offsetLeft - el.scrollLeft) < Math.abs(slides[best]!.offsetLeft - el.scrollLeft)) best = i;
        });
        // A reading left over from an earlier scroll must not undo the button pressed since.
        if (aimed.current !== null && best !== aimed.current) return;
        aimed.current = null;
        setCurrent(best);
      }, 150);
    };
    // The visitor's own swipe, wheel, keys or Tab into a banner take over from a button's scroll.
    const byHand = () => {
      aimed.current = null;
    };
    const hands = ['pointerdown', 'wheel', 'touchstart', 'keydown', 'focusin'] as const;
    el.addEventListener('scroll', onScroll, { passive: true });
    for (const h of hands) el.addEventListener(h, byHand, { passive: true });
    return () => {
      el.removeEventListener('scroll', onScroll);
      for (const h of hands) el.removeEventListener(h, byHand);
      clearTimeout(settle);
    };
  }, []);

  const goTo = (i: number) => {
    const el = track.current;
    const next = (i + count) % count;
    const slide = el?.children[next] as HTMLElement | undefined;
    if (!el || !slide) return;
    aimed.current = next;
    el.scrollTo({ left: slide.offsetLeft, behavior: reduced.current ? 'auto' : 'smooth' });
    setCurrent(next);
  };

  // One timer per banner shown: a manual move gives the new banner its full time.
  const rotating = ready && playing && !held.hover && !held.focus && count > 1;
  useEffect(() => {
    if (!rotating) return;
    const timer = setTimeout(() => goTo(current + 1), intervalMs);
    return () => clearTimeout(timer);
  }, [rotating, current, intervalMs]); // eslint-disable-line react-hooks/exhaustive-deps

  if (count === 0) return null;
  return (
    <section
      className="banners"
      aria-roledescription="carousel"
      aria-label="Promotions"
      data-testid="banners"
      data-current={current}
      data-rotating={rotating ? 'true' : 'false'}
      onMouseEnter={() => setHeld((h) => ({ ...h, hover: true }))}
      onMouseLeave={() => setHeld((h) => ({ ...h, hover: false }))}
      onFocus={() => setHeld((h) => ({ ...h, focus: true }))}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setHeld((h) => ({ ...h, focus: false }));
      }}
    >
      <div className="container banners__frame">
        {/* Announced when it changes by a visitor's action, not every few seconds while rotating. */}
        <div className="banners__track" ref={track} aria-live={rotating ? 'off' : 'polite'}>
          {banners.map((b, i) => (
            <div key={b._id} className="banner" role="group" aria-roledescription="slide" aria-label={`${i + 1} of ${count}`} data-testid="banner">
              <a className="banner__link" href={b.link ?? '#'}>
                {b.imageUrl ? (
                  <img src={b.imageUrl} alt="" width={1200} height={375} loading={i === 0 ? 'eager' : 'lazy'} fetchPriority={i === 0 ? 'high' : undefined} decoding="async" />
                ) : null}
                <div className="banner__text">
                  <h2 className="banner__title" data-testid="banner-title">{b.title}</h2>
                  {b.description ? <p className="banner__description">{b.description}</p> : null}
                </div>
              </a>
            </div>
          ))}
        </div>
        {ready && count > 1 ? (
          <div className="banners__controls" data-testid="banner-controls">
            <button type="button" className="banners__button" onClick={() => goTo(current - 1)} aria-label="Previous banner" data-testid="banner-prev">
              <span aria-hidden="true">‹</span>
            </button>
            <div className="banners__dots">
              {banners.map((b, i) => (
                <button
                  key={b._id}
                  type="button"
                  className="banners__dot"
                  onClick={() => goTo(i)}
                  aria-label={`Show banner ${i + 1} of ${count}: ${b.title}`}
                  aria-current={i === current ? 'true' : undefined}
                  data-testid="banner-dot"
                />
              ))}
            </div>
            <button type="button" className="banners__button" onClick={() => goTo(current + 1)} aria-label="Next banner" data-testid="banner-next">
              <span aria-hidden="true">›</span>
            </button>
            <button
              type="button"
              className="banners__button"
              onClick={() => setPlaying((p) => !p)}
              aria-label={playing ? 'Pause the banners' : 'Play the banners'}
              data-testid="banner-pause"
            >
              <span aria-hidden="true">{playing ? '❚❚' : '▶'}</span>
            </button>
          </div>
        ) : null}
      </div>
    </section>
  );
}
