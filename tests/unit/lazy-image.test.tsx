// @vitest-environment jsdom
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import LazyImage, { LAZY_DELAY_MS } from '../../src/islands/catalogue/LazyImage.js';

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
  return { show: (visible: boolean) => act(() => observers.forEach((cb) => cb([{ isIntersecting: visible }]))) };
}

describe('LazyImage (SPEC §9: 200 ms lazy-loading delay)', () => {
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
});
