import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import type { MapStore } from 'nanostores';
import { useMounted } from '../../lib/use-mounted.js';
import { loadMemberHeader, retryMemberHeader, type ViewerState } from '../../lib/stores/member-header.js';

/**
 * The signed-in visitor's state on a performer's or a video's page, or the home feed's first page: `initial` when the page was rendered for them
 * (`seed` puts it in the store for the page's other islands), else what the member shell's one request answers
 * (src/lib/stores/member-header.ts). null while it is asked.
 */
export function usePageViewer<T>(
  store: MapStore<Record<string, ViewerState<T> | undefined>>,
  id: string,
  initial: T | null,
  seed: (state: T) => void,
): { state: ViewerState<T> | null; retry: () => void } {
  useEffect(() => {
    if (initial) seed(initial);
    else void loadMemberHeader();
  }, [initial]); // eslint-disable-line react-hooks/exhaustive-deps
  const known = useStore(store)[id];
  // Hydration renders what the server rendered, even when the header's answer came in before this island woke up.
  const mounted = useMounted();
  return { state: (mounted ? known : undefined) ?? initial, retry: () => void retryMemberHeader() };
}
