import type { PerformerViewer } from '../../../common/schemas/member-shell.js';
import { performerViewers, seedPerformerViewer, type PerformerViewerState } from '../../lib/stores/member-header.js';
import { usePageViewer } from '../shared/usePageViewer.js';

/** The signed-in visitor's state on a performer's page (see usePageViewer). */
export function usePerformerViewer(performerId: string, initial: PerformerViewer | null): { state: PerformerViewerState | null; retry: () => void } {
  return usePageViewer(performerViewers, performerId, initial, seedPerformerViewer);
}
