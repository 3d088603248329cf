import type { VideoViewer } from '../../../common/schemas/member-shell.js';
import { seedVideoViewer, videoViewers, type VideoViewerState } from '../../lib/stores/member-header.js';
import { usePageViewer } from '../shared/usePageViewer.js';

/** The signed-in visitor's state on a video's page (see usePageViewer). */
export function useVideoViewer(videoId: string, initial: VideoViewer | null): { state: VideoViewerState | null; retry: () => void } {
  return usePageViewer(videoViewers, videoId, initial, seedVideoViewer);
}
