// @vitest-environment jsdom
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderToString } from 'react-dom/server';
import LazyImage, { LAZY_DELAY_MS, NativeLazyImages } from '../../src/islands/catalogue/LazyImage.js';
import LoadMoreList from '../../src/islands/LoadMoreList.js';
import type { VideoCardData } from '../../common/schemas/catalogue.js';

/** An IntersectionObserver whose visibility the test decides. */
function stubIntersection() {
  const observers: Array<(entries: Array<{ isIntersecting: boolean }>) => void> = [];
  vi.stubGlobal('IntersectionObserver', class {
    constructor(cb: (entries: Array<{ isIntersecting: boolean }>) => void) {
      observers.push(cb);
    }
    observe() {}
    disconnect() {}
  });
  return {
    show: (visible: boolean) => act(() => observers.forEach((cb) => cb([{ isIntersecting: visible }]))),
    /** Several records in one batch, oldest first (a fast scroll). */
    batch: (...states: boolean[]) => act(() => observers.forEach((cb) => cb(states.map((isIntersecting) => ({ isIntersecting }))))),
  };
}

describe('LazyImage (200 ms lazy-loading delay)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('gets its src 200 ms after coming into view, not before, and not if it left the view', () => {
    const io = stubIntersection();
    const { container } = render(<LazyImage src="/media/public/a.webp" alt="Mia" width={72} height={72} />);
    const img = () => container.querySelector('img:not(noscript img)') as HTMLImageElement;
    expect(img().getAttribute('src')).toBeNull();
    expect(img().dataset.lazy).toBe('pending');
    io.show(true);
    act(() => vi.advanceTimersByTime(LAZY_DELAY_MS - 10));
    io.show(false);
    act(() => vi.advanceTimersByTime(50));
    expect(img().getAttribute('src')).toBeNull();
    io.show(true);
    act(() => vi.advanceTimersByTime(LAZY_DELAY_MS));
    expect(img().getAttribute('src')).toBe('/media/public/a.webp');
    expect(img().dataset.lazy).toBe('loaded');
  });

  it('shows the placeholder instead of a broken image when the file fails to load', () => {
    const io = stubIntersection();
    const { container } = render(<LazyImage src="/media/public/missing.webp" alt="Mia" width={16} height={9} />);
    io.show(true);
    act(() => vi.advanceTimersByTime(LAZY_DELAY_MS));
    const img = container.querySelector('img[data-lazy="loaded"]')!;
    expect(container.querySelector('svg.media-placeholder')).toBeNull();
    fireEvent.error(img);
    expect(container.querySelector('img[data-lazy]')).toBeNull();
    expect(container.querySelector('svg.media-placeholder')?.getAttribute('viewBox')).toBe('0 0 16 9');
  });

  it('goes by the latest record of a batch: an image that came into view and left again in one batch stays empty', () => {
    const io = stubIntersection();
    const { container } = render(<LazyImage src="/media/public/a.webp" alt="Mia" width={72} height={72} />);
    io.batch(true, false);
    act(() => vi.advanceTimersByTime(LAZY_DELAY_MS * 2));
    expect(container.querySelector('img:not(noscript img)')!.getAttribute('src')).toBeNull();
    io.batch(false, true);
    act(() => vi.advanceTimersByTime(LAZY_DELAY_MS));
    expect(container.querySelector('img:not(noscript img)')!.getAttribute('src')).toBe('/media/public/a.webp');
  });
});

describe('lazy images of lists a page renders without hydrating them', () => {
  const videos: VideoCardData[] = ['a', 'b'].map((k) => ({
    _id: `v${k}`, title: `Video ${k}`, thumbnail: `/media/public/videos/thumbs/${k}.webp`, poster: null, duration: 60, locked: false, access: 'free', price: 0,
    performer: { username: 'mia', name: 'Mia' }, stats: { views: 1 },
  }));
  const html = (serverOnly: boolean) =>
    renderToString(<LoadMoreList kind="videos" query={{}} initial={{ items: videos, total: videos.length }} serverOnly={serverOnly} />);

  it('a serverOnly list (the video page\'s "More from…") ships its images with src and native lazy loading', () => {
    const out = html(true);
    for (const v of videos) expect(out).toContain(` src="${v.thumbnail}"`);
    expect(out.match(/loading="lazy"/g)?.length).toBe(videos.length);
    expect(out).not.toContain('data-lazy="pending"');
  });

  it('a hydrated list leaves the src to the island (delay), which an HTML-only list would never run', () => {
    // The <noscript> copy is for visitors without JavaScript; the picture itself has no src.
    const out = html(false).replace(/<noscript>.*?<\/noscript>/g, '');
    for (const v of videos) {
      expect(out).not.toContain(` src="${v.thumbnail}"`);
      expect(out).toContain(`data-src="${v.thumbnail}"`);
    }
  });

  it('NativeLazyImages gives a missing picture the same placeholder', () => {
    const out = renderToString(<NativeLazyImages.Provider value><LazyImage src={null} alt="" width={16} height={9} /></NativeLazyImages.Provider>);
    expect(out).toContain('media-placeholder');
    expect(out).not.toContain('<img');
  });
});

