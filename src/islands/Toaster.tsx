import { useEffect, useLayoutEffect, useState, type CSSProperties } from 'react';
import { useStore } from '@nanostores/react';
import { dismissToast, toasts, TOAST_TIMEOUT_MS, type Toast } from '../lib/stores/toast.js';
import { useMounted } from '../lib/use-mounted.js';

/** Space between the header's bottom edge and the first toast. */
const GAP_PX = 12;
// useLayoutEffect warns when rendered on the server; the measurement only matters in the browser.
const useBrowserLayoutEffect = typeof window === 'undefined' ? useEffect : useLayoutEffect;

function ToastItem({ item }: { item: Toast }) {
  useEffect(() => {
    const timer = setTimeout(() => dismissToast(item.id), TOAST_TIMEOUT_MS);
    return () => clearTimeout(timer);
  }, [item.id]);
  return (
    <div className={`toast toast--${item.type}`} role="status" data-testid="toast" data-type={item.type}>
      <p className="toast__message">{item.message}</p>
      <button type="button" className="toast__close" aria-label="Dismiss notification" onClick={() => dismissToast(item.id)}>
        <span aria-hidden="true">×</span>
      </button>
    </div>
  );
}

/**
 * Where the header ends on screen while toasts show, so they sit below it and never over its buttons. The header's
 * height is not fixed (its rows wrap, a banner may sit above it), so it is measured, again on resize and scroll.
 * Pages without the site header (the auth layout) leave the CSS default. Phones put toasts at the bottom (CSS).
 */
function useHeaderBottom(active: boolean): number | null {
  const [bottom, setBottom] = useState<number | null>(null);
  useBrowserLayoutEffect(() => {
    if (!active) return;
    const measure = () => {
      const header = document.querySelector('.site-header');
      setBottom(header ? Math.max(0, Math.ceil(header.getBoundingClientRect().bottom)) : null);
    };
    measure();
    window.addEventListener('resize', measure);
    window.addEventListener('scroll', measure, { passive: true });
    return () => {
      window.removeEventListener('resize', measure);
      window.removeEventListener('scroll', measure);
    };
  }, [active]);
  return bottom;
}

/** Renders this page's toasts; each goes away after about 4 s or when dismissed. */
export default function Toaster() {
  const list = useStore(toasts);
  // The server renders no toasts; the queue (with any message the previous page handed over) shows after hydration.
  const mounted = useMounted();
  const shown = mounted ? list : [];
  const headerBottom = useHeaderBottom(shown.length > 0);
  const style = headerBottom === null ? undefined : ({ '--toaster-top': `${headerBottom + GAP_PX}px` } as CSSProperties);
  return (
    <div className="toaster" role="region" aria-label="Notifications" style={style}>
      {shown.map((item) => (
        <ToastItem key={item.id} item={item} />
      ))}
    </div>
  );
}
