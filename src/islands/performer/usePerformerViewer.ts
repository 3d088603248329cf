import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import { useMounted } from '../../lib/use-mounted.js';
import type { PerformerViewer } from '../../../common/schemas/member-shell.js';
import { loadMemberHeader, performerViewers, retryMemberHeader, seedPerformerViewer, type PerformerViewerState } from '../../lib/stores/member-header.js';

/**
 * The signed-in visitor's state on a performer's page: `initial` when the page was rendered for them, else what the
 * member shell's one request answers (src/lib/stores/member-header.ts). null while it is asked.
 */
export function usePerformerViewer(performerId: string, initial: PerformerViewer | null): { state: PerformerViewerState | null; retry: () => void } {
  useEffect(() => {
    if (initial) seedPerformerViewer(initial);
    else void loadMemberHeader();
  }, [initial]);
  const known = useStore(performerViewers)[performerId];
  // Hydration renders what the server rendered, even when the header's answer came in before this island woke up.
  const mounted = useMounted();
  return { state: (mounted ? known : undefined) ?? initial, retry: () => void retryMemberHeader() };
}
