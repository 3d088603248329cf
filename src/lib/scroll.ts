/** Back-to-top behaviour (docs/product.md): shown after 400 px of scroll, scrolls to the top in 450 ms. */
export const BACK_TO_TOP_THRESHOLD = 400;
export const BACK_TO_TOP_DURATION_MS = 450;

export function shouldShowBackToTop(scrollY: number): boolean {
  return scrollY > BACK_TO_TOP_THRESHOLD;
}

export function easeInOutCubic(t: number): number {
  return t < 0.5 ? 4 * t * t * t : 1 - (-2 * t + 2) ** 3 / 2;
}

function prefersReducedMotion(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/**
 * Scrolls the window to the top over `duration` ms with requestAnimationFrame and an ease-in-out curve
 * (instantly when the user prefers reduced motion). The user's own wheel, touch or key input cancels it.
 * Returns a function that cancels the animation.
 */
export function scrollToTop(duration = BACK_TO_TOP_DURATION_MS): () => void {
  const startY = window.scrollY;
  if (startY <= 0) return () => {};
  if (duration <= 0 || prefersReducedMotion()) {
    window.scrollTo(0, 0);
    return () => {};
  }
  let frame = 0;
  let startTime: number | null = null;
  const interrupts = ['wheel', 'touchstart', 'keydown'] as const;
  const cancel = () => {
    cancelAnimationFrame(frame);
    for (const type of interrupts) window.removeEventListener(type, cancel);
  };
  const step = (now: number) => {
    if (startTime === null) startTime = now;
    const progress = Math.min(1, (now - startTime) / duration);
    window.scrollTo(0, Math.round(startY * (1 - easeInOutCubic(progress))));
    if (progress < 1) frame = requestAnimationFrame(step);
    else cancel();
  };
  for (const type of interrupts) window.addEventListener(type, cancel, { passive: true });
  frame = requestAnimationFrame(step);
  return cancel;
}
