import { useEffect, useState } from 'react';

/**
 * The loading indicator of route changes (docs/product.md). Pages are full loads (no view transitions), so the
 * bar starts on a click on a same-origin link, on a native form submission and on beforeunload (covers
 * `navigate()` from the stores), and stops on pageshow (including a page restored from the bfcache).
 * A navigation that never happens (a download, a 204) is given up after a while.
 */
const GIVE_UP_MS = 15_000;
const FADE_MS = 300;

type Phase = 'idle' | 'loading' | 'done';

/** Whether a click on this link loads another page of this site in the current tab. */
export function isPageNavigation(event: MouseEvent, link: HTMLAnchorElement): boolean {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return false;
  if (link.hasAttribute('download')) return false;
  const target = link.getAttribute('target');
  if (target && target !== '_self') return false;
  let url: URL;
  try {
    url = new URL(link.href, window.location.href);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.origin !== window.location.origin) return false;
  // A link to an anchor of this same page scrolls, it does not load.
  const here = window.location;
  if (url.hash && url.pathname === here.pathname && url.search === here.search) return false;
  return true;
}

export default function RouteProgress() {
  const [phase, setPhase] = useState<Phase>('idle');

  useEffect(() => {
    let giveUp: ReturnType<typeof setTimeout> | undefined;
    let fade: ReturnType<typeof setTimeout> | undefined;
    const start = () => {
      clearTimeout(fade);
      clearTimeout(giveUp);
      setPhase('loading');
      giveUp = setTimeout(done, GIVE_UP_MS);
    };
    const done = () => {
      clearTimeout(giveUp);
      setPhase((p) => (p === 'idle' ? p : 'done'));
      fade = setTimeout(() => setPhase('idle'), FADE_MS);
    };
    const onClick = (event: MouseEvent) => {
      const link = (event.target as Element | null)?.closest?.('a[href]');
      if (link instanceof HTMLAnchorElement && isPageNavigation(event, link)) start();
    };
    const onSubmit = (event: SubmitEvent) => {
      const form = event.target as HTMLFormElement | null;
      const target = form?.getAttribute('target');
      if (!event.defaultPrevented && (!target || target === '_self')) start();
    };
    // Bubble phase: handlers that take over the click (islands, preventDefault) have already run.
    document.addEventListener('click', onClick);
    document.addEventListener('submit', onSubmit);
    window.addEventListener('beforeunload', start);
    window.addEventListener('pageshow', done);
    return () => {
      clearTimeout(giveUp);
      clearTimeout(fade);
      document.removeEventListener('click', onClick);
      document.removeEventListener('submit', onSubmit);
      window.removeEventListener('beforeunload', start);
      window.removeEventListener('pageshow', done);
    };
  }, []);

  if (phase === 'idle') return null;
  return (
    <div
      className={`route-progress ${phase === 'loading' ? 'is-loading' : 'is-done'}`}
      role="progressbar"
      aria-label="Loading page"
      aria-busy={phase === 'loading'}
      data-testid="route-progress"
    />
  );
}
