import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { dismissToast, toasts, TOAST_TIMEOUT_MS, type Toast } from '../lib/stores/toast.js';

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

/** Renders the toast queue; each toast goes away after about 4 s or when dismissed. */
export default function Toaster() {
  const list = useStore(toasts);
  // The server renders no toasts; the queue (which may come from sessionStorage) shows after hydration.
  const [mounted, setMounted] = useState(false);
  useEffect(() => setMounted(true), []);
  return (
    <div className="toaster" role="region" aria-label="Notifications">
      {mounted ? list.map((item) => <ToastItem key={item.id} item={item} />) : null}
    </div>
  );
}
