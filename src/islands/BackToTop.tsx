import { useEffect, useRef, useState } from 'react';
import { scrollToTop, shouldShowBackToTop } from '../lib/scroll.js';

/** The back-to-top button of the primary layout: rendered once the page is scrolled past 400 px. */
export default function BackToTop() {
  const [visible, setVisible] = useState(false);
  const cancel = useRef<(() => void) | null>(null);

  useEffect(() => {
    let frame = 0;
    const update = () => {
      frame = 0;
      setVisible(shouldShowBackToTop(window.scrollY));
    };
    const onScroll = () => {
      if (!frame) frame = requestAnimationFrame(update);
    };
    update();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      window.removeEventListener('scroll', onScroll);
      if (frame) cancelAnimationFrame(frame);
      cancel.current?.();
    };
  }, []);

  if (!visible) return null;
  return (
    <button
      type="button"
      className="back-to-top"
      aria-label="Back to top"
      title="Back to top"
      data-testid="back-to-top"
      onClick={() => {
        cancel.current?.();
        cancel.current = scrollToTop();
      }}
    >
      <span aria-hidden="true">↑</span>
    </button>
  );
}
